import { retryWithBackoff } from '@marin/rigging';
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
 * failure is rethrown once the attempts run out; a non-retryable one is rethrown at once; once `signal`
 * aborts, its reason is thrown.
 */
export async function retryHubCall<T>(fn: (attempt: number) => Promise<T>, opts: HubRetryOptions): Promise<T> {
  const maxAttempts = opts.maxAttempts ?? HUB_MAX_ATTEMPTS;
  try {
    // rigging counts attempts from 1; the hub's schedule and `fn` count from 0.
    return await retryWithBackoff(
      async (attempt) => {
        try {
          return await fn(attempt - 1);
        } catch (raw) {
          opts.signal.throwIfAborted();
          throw asAttemptError(raw, opts.operation);
        }
      },
      {
        maxAttempts,
        retryable: (err) => isCodedFailure(err) && err.retryable,
        // The per-error wait: a 429's rate-limit reset raises the backoff.
        delayMs: (err, attempt) => {
          const reset = isCodedFailure(err) ? err.details['rateLimitResetSeconds'] : undefined;
          return hubRetryDelayMs(attempt - 1, opts.random, typeof reset === 'number' ? reset : null);
        },
        signal: opts.signal,
        sleep: (ms) => opts.sleep(ms, opts.signal),
        log: () => undefined,
        onRetry: ({ attempt, error, delayMs }) =>
          opts.log(
            `${opts.operation}: attempt ${attempt}/${maxAttempts} failed (${(error as Error).message}), retrying in ${(delayMs / 1000).toFixed(1)}s`,
          ),
      },
    );
  } catch (err) {
    opts.signal.throwIfAborted();
    throw err;
  }
}
