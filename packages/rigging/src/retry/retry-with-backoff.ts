import { ExponentialBackoff } from './exponential-backoff.js';
import { defaultSleep } from './sleep.js';
import type { Sleep } from './sleep.js';

/** What `onRetry` is told before each wait. */
export interface RetryAttempt {
  /** The failed attempt, from 1. */
  attempt: number;
  /** The error it threw. */
  error: unknown;
  /** How long we will wait before the next attempt. */
  delayMs: number;
  /** Time since the first attempt started. */
  elapsedMs: number;
}

/** Options of {@link retryWithBackoff}. */
export interface RetryOptions {
  /** Which errors may be retried. @default () => true */
  retryable?: (err: unknown) => boolean;
  /** Attempts in total, the first included. @default 10 */
  maxAttempts?: number;
  /** Stop when the elapsed time plus the next wait would pass this. @default unlimited */
  maxElapsedMs?: number;
  /** @default new ExponentialBackoff({ initialMs: 500, maximumMs: 10_000, factor: 2 }) */
  backoff?: ExponentialBackoff;
  /**
   * The wait after `error` ended attempt `attempt` (from 1), instead of the backoff's next interval: for
   * schedules of their own or a wait the error names (an HTTP 429's rate-limit reset).
   * @default the backoff's next interval
   */
  delayMs?: (error: unknown, attempt: number) => number;
  /** Called before each wait. */
  onRetry?: (attempt: RetryAttempt) => void;
  /** Named in the retry log line. @default '' */
  operation?: string;
  /** Aborting stops the wait and rethrows the last error. */
  signal?: AbortSignal;
  /** Where retry lines go. @default console.warn */
  log?: (line: string) => void;
  /** Injected in tests. @default timers/promises setTimeout */
  sleep?: Sleep;
  /** Injected in tests. @default Date.now */
  now?: () => number;
}

/**
 * Runs `fn` (given the attempt number, from 1), retrying retryable failures with backoff; the last error
 * is rethrown unchanged.
 * Each retry logs `Operation <operation> failed (attempt <i>/<n>, elapsed <s>s), retrying in <x.xx>s`.
 */
export async function retryWithBackoff<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const retryable = opts.retryable ?? (() => true);
  const maxAttempts = opts.maxAttempts ?? 10;
  const backoff = opts.backoff ?? new ExponentialBackoff({ initialMs: 500, maximumMs: 10_000, factor: 2 });
  const delayOf = opts.delayMs ?? (() => backoff.nextIntervalMs());
  const log = opts.log ?? ((line: string) => console.warn(line));
  const sleep = opts.sleep ?? defaultSleep;
  const now = opts.now ?? Date.now;
  const started = now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (attempt >= maxAttempts || !retryable(err) || opts.signal?.aborted === true) throw err;
      const delayMs = delayOf(err, attempt);
      const elapsedMs = now() - started;
      if (opts.maxElapsedMs !== undefined && elapsedMs + delayMs > opts.maxElapsedMs) throw err;
      log(
        `Operation ${opts.operation ?? ''} failed (attempt ${attempt}/${maxAttempts}, elapsed ${(elapsedMs / 1000).toFixed(1)}s), retrying in ${(delayMs / 1000).toFixed(2)}s`,
      );
      opts.onRetry?.({ attempt, error: err, delayMs, elapsedMs });
      try {
        await sleep(delayMs, opts.signal);
      } catch {
        throw err; // aborted while waiting
      }
    }
  }
}
