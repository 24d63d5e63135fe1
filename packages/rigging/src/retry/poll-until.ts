import type { ExponentialBackoff } from './exponential-backoff.js';
import { defaultSleep } from './sleep.js';
import type { Sleep } from './sleep.js';

/** Options of {@link pollUntil}. */
export interface PollOptions {
  /** Give up after this long. @default Infinity */
  timeoutMs?: number;
  /** The wait between checks: fixed milliseconds, or a backoff whose intervals grow. @default 50 */
  interval?: number | ExponentialBackoff;
  /** Aborting rejects the wait with the sleep's `AbortError`. */
  signal?: AbortSignal;
  /** Injected in tests. @default timers/promises setTimeout */
  sleep?: Sleep;
  /** Injected in tests. @default Date.now */
  now?: () => number;
}

/**
 * Checks `done()` until it returns true or `timeoutMs` passes, waiting `interval` between checks (never
 * past the deadline). It is checked once more only if time is left, so a zero timeout checks once.
 *
 * @returns whether `done()` became true; `false` means the timeout passed
 * @throws the sleep's `AbortError` when `signal` aborts during a wait, or whatever `done()` throws
 *
 * @example
 * ```ts
 * const up = await pollUntil(() => isServing(port), { timeoutMs: 10_000, interval: 100 });
 * ```
 */
export async function pollUntil(done: () => boolean | Promise<boolean>, options: PollOptions = {}): Promise<boolean> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const interval = options.interval ?? 50;
  const nextMs = typeof interval === 'number' ? () => interval : () => interval.nextIntervalMs();
  const deadline = now() + (options.timeoutMs ?? Number.POSITIVE_INFINITY);
  for (;;) {
    if (await done()) return true;
    const remaining = deadline - now();
    if (remaining <= 0) return false;
    await sleep(Math.min(nextMs(), remaining), options.signal);
  }
}
