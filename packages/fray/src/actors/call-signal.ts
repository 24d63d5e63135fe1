import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<AbortSignal>();
const NEVER = new AbortController().signal;

/**
 * Inside an actor method (a TS actor served by `hostActor`): the signal of the call being served. It aborts when
 * the caller gives up on the call (its `AbortSignal` fired, or its deadline passed), or the actor stops serving;
 * its `reason` is a FrayError `FRAY_ACTOR_CALL_CANCELLED`. A long method passes it on (`fetch`, streams) or checks
 * it between units of work and returns or throws early; whatever it returns then is dropped, since the caller
 * already got its error. The call is still never sent twice. Outside a call it returns a signal that never aborts.
 *
 * ```ts
 * class Scorer {
 *   async scoreAll(docs: string[]) {
 *     const signal = actorCallSignal();
 *     for (const d of docs) { signal.throwIfAborted(); await this.score(d); }
 *   }
 * }
 * ```
 */
export function actorCallSignal(): AbortSignal {
  return current.getStore() ?? NEVER;
}

/** Runs `fn` as the body of a call whose cancellation `signal` reports. */
export function runWithCallSignal<T>(signal: AbortSignal, fn: () => T): T {
  return current.run(signal, fn);
}
