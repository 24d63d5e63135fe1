import { PipelineError } from '../../errors.js';
import { HUB_MAX_ATTEMPTS, hubRetryDelayMs } from './retry-schedule.js';

/** Options of {@link retryHubCall}. */
export interface HubRetryOptions {
  /** Waits `ms`; must reject when `signal` aborts. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Uniform randoms in `[0, 1)` for the jitter. */
  random: () => number;
  /** Aborting stops the retries and rethrows the abort reason. */
  signal: AbortSignal;
  /** Receives one line per retry. */
  log: (line: string) => void;
  /** What is being attempted, for the log line (a URL). */
  operation: string;
  /** Attempts in total, the first included. @default 20 */
  maxAttempts?: number;
}

/** An error of one of our packages (`PipelineError`, `RiggingError`, …): a code, a retry flag, details. */
export type CodedFailure = Error & { code: string; retryable: boolean; details: Record<string, unknown> };

// Shape check rather than instanceof: a second copy of a package (source next to dist) must still count.
function isCodedFailure(e: unknown): e is CodedFailure {
  if (!(e instanceof Error)) return false;
  const c = e as Partial<CodedFailure>;
  return typeof c.code === 'string' && typeof c.retryable === 'boolean' && typeof c.details === 'object' && c.details !== null;
}

/**
 * Normalises a failure of one attempt: our coded errors keep their `retryable` flag; anything else
 * (fetch's `TypeError`, a connection reset mid-body, a read timeout) is a retryable
 * PIPELINE_HUB_UNAVAILABLE wrapping it.
 */
export function asAttemptError(err: unknown, operation: string): CodedFailure {
  if (isCodedFailure(err)) return err;
  return new PipelineError('PIPELINE_HUB_UNAVAILABLE', `reading "${operation}" failed`, {
    cause: err,
    retryable: true,
    details: { url: operation },
  });
}

/**
 * Runs `fn` until it succeeds, retrying retryable failures on the hub's schedule
 * ({@link hubRetryDelayMs}: exponential from 5 s, 15 min cap, `RateLimit` reset honoured). The last
 * failure is rethrown once the attempts run out; a non-retryable one is rethrown at once.
 */
export async function retryHubCall<T>(fn: (attempt: number) => Promise<T>, opts: HubRetryOptions): Promise<T> {
  const maxAttempts = opts.maxAttempts ?? HUB_MAX_ATTEMPTS;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (raw) {
      opts.signal.throwIfAborted();
      const err = asAttemptError(raw, opts.operation);
      if (!err.retryable || attempt + 1 >= maxAttempts) throw err;
      const reset = err.details['rateLimitResetSeconds'];
      const delayMs = hubRetryDelayMs(attempt, opts.random, typeof reset === 'number' ? reset : null);
      opts.log(
        `${opts.operation}: attempt ${attempt + 1}/${maxAttempts} failed (${err.message}), retrying in ${(delayMs / 1000).toFixed(1)}s`,
      );
      await opts.sleep(delayMs, opts.signal);
    }
  }
}
