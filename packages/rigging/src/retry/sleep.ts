import { setTimeout as timersSleep } from 'node:timers/promises';

/**
 * Waits `ms` milliseconds; rejects with an `AbortError` when `signal` aborts. The retry and polling
 * helpers take one as an option so tests can record the waits instead of spending them.
 */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** The real {@link Sleep}, on `node:timers/promises`. */
export const defaultSleep: Sleep = (ms, signal) => timersSleep(ms, undefined, signal === undefined ? undefined : { signal });
