import { RiggingError } from '../errors.js';
import { pollUntil } from './poll-until.js';

/** Options of {@link ExponentialBackoff}. */
export interface ExponentialBackoffOptions {
  /** First interval. @default 50 */
  initialMs?: number;
  /** Cap on the interval. @default 1000 */
  maximumMs?: number;
  /** Growth per step. @default 1.5 */
  factor?: number;
  /** Each interval is multiplied by a uniform factor in `[1 − jitter, 1 + jitter]`. @default 0.1 */
  jitter?: number;
  /** Source of uniform randoms in `[0, 1)` (tests pin it). @default Math.random */
  random?: () => number;
}

/** Options of {@link ExponentialBackoff.waitUntil}. */
export interface WaitUntilOptions {
  /** Give up after this long. */
  timeoutMs: number;
  /** What to name in the RIGGING_UNAVAILABLE error of `waitUntilOrThrow`. @default 'condition' */
  operation?: string;
}

/**
 * Growing intervals with jitter: `nextIntervalMs()` returns the current interval scaled by the jitter
 * factor, then grows it by `factor` up to `maximumMs`.
 */
export class ExponentialBackoff {
  readonly initialMs: number;
  readonly maximumMs: number;
  readonly factor: number;
  readonly jitter: number;
  private readonly random: () => number;
  private currentMs: number;

  constructor(opts: ExponentialBackoffOptions = {}) {
    this.initialMs = opts.initialMs ?? 50;
    this.maximumMs = opts.maximumMs ?? 1000;
    this.factor = opts.factor ?? 1.5;
    this.jitter = opts.jitter ?? 0.1;
    this.random = opts.random ?? Math.random;
    this.currentMs = this.initialMs;
  }

  /** The next interval to wait, in milliseconds. */
  nextIntervalMs(): number {
    const scale = 1 - this.jitter + 2 * this.jitter * this.random();
    const value = this.currentMs * scale;
    this.currentMs = Math.min(this.currentMs * this.factor, this.maximumMs);
    return value;
  }

  /** Restarts from `initialMs`. */
  reset(): void {
    this.currentMs = this.initialMs;
  }

  /**
   * Polls `cond` with these intervals; `true` once it holds, `false` after `timeoutMs`.
   * @deprecated use `pollUntil(cond, { timeoutMs, interval: backoff })`, which this calls
   */
  waitUntil(cond: () => boolean | Promise<boolean>, opts: WaitUntilOptions): Promise<boolean> {
    return pollUntil(cond, { timeoutMs: opts.timeoutMs, interval: this });
  }

  /**
   * Like {@link ExponentialBackoff.waitUntil} but throws on timeout.
   * @throws {RiggingError} RIGGING_UNAVAILABLE if `cond` does not hold within `timeoutMs`.
   */
  async waitUntilOrThrow(cond: () => boolean | Promise<boolean>, opts: WaitUntilOptions): Promise<void> {
    if (await this.waitUntil(cond, opts)) return;
    const operation = opts.operation ?? 'condition';
    throw new RiggingError('RIGGING_UNAVAILABLE', `timed out after ${opts.timeoutMs}ms waiting for ${operation}`, {
      details: { path: '', operation, timeoutMs: opts.timeoutMs },
    });
  }
}
