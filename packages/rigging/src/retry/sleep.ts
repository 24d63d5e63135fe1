/**
 * Waits `ms` milliseconds; rejects with an `AbortError` when `signal` aborts. The retry and polling
 * helpers take one as an option so tests can record the waits instead of spending them.
 */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * The real {@link Sleep}. It runs on the global `setTimeout` rather than `node:timers/promises`, so
 * Vitest's fake timers (which replace the globals only) drive it too. Rejects like
 * `timers/promises` does: an `AbortError` (`code` `ABORT_ERR`) whose `cause` is the signal's reason.
 */
export const defaultSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    const aborted = (): Error =>
      Object.assign(new Error('The operation was aborted', { cause: signal?.reason }), { name: 'AbortError', code: 'ABORT_ERR' });
    if (signal?.aborted === true) {
      reject(aborted());
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(aborted());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
