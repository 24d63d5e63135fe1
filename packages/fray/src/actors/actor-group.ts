import { FrayError } from '../errors.js';
import type { ActorCallOptions, ActorHandle } from './actor-handle.js';

/** One member's outcome of {@link ActorGroup.callAll}. */
export type ActorCallResult<TResult = unknown> =
  | { readonly index: number; readonly ok: true; readonly value: TResult }
  | { readonly index: number; readonly ok: false; readonly error: FrayError };

/**
 * Several actors of one entry: `call` picks members round-robin, skipping dead ones; `callAll` calls every live
 * member (Marin's `ActorPool.call()` / `broadcast()`).
 */
export class ActorGroup implements AsyncDisposable {
  private next = 0;

  /** @param handles the members, index = position */
  constructor(readonly handles: readonly ActorHandle[]) {}

  /** Number of members, dead ones included. */
  get size(): number {
    return this.handles.length;
  }

  /** Number of members not dead. */
  get liveCount(): number {
    return this.handles.filter((h) => h.state !== 'dead').length;
  }

  /**
   * Calls `method` on the next live member, round-robin.
   * @throws {FrayError} FRAY_ACTOR_DEAD when every member is dead; otherwise what the member's call throws
   */
  call<TResult = unknown>(method: string, ...args: unknown[]): Promise<TResult> {
    return this.callWithOptions<TResult>(method, args);
  }

  /** {@link ActorGroup.call} with per-call options. */
  callWithOptions<TResult = unknown>(method: string, args: readonly unknown[], options: ActorCallOptions = {}): Promise<TResult> {
    for (let tried = 0; tried < this.handles.length; tried++) {
      const handle = this.handles[this.next % this.handles.length];
      this.next = (this.next + 1) % this.handles.length;
      if (handle !== undefined && handle.state !== 'dead') return handle.callWithOptions<TResult>(method, args, options);
    }
    return Promise.reject(new FrayError('FRAY_ACTOR_DEAD', `every actor of the group (${this.handles.length}) is dead`, { details: { method } }));
  }

  /** Calls `method` on every live member at once; never throws, each member's outcome is in the result. */
  async callAll<TResult = unknown>(method: string, args: readonly unknown[] = [], options: ActorCallOptions = {}): Promise<ActorCallResult<TResult>[]> {
    const live = this.handles.map((h, index) => ({ h, index })).filter(({ h }) => h.state !== 'dead');
    return Promise.all(
      live.map(({ h, index }) =>
        h.callWithOptions<TResult>(method, args, options).then(
          (value): ActorCallResult<TResult> => ({ index, ok: true, value }),
          (e: unknown): ActorCallResult<TResult> => ({ index, ok: false, error: FrayError.from(e, 'FRAY_ACTOR_UNAVAILABLE') }),
        ),
      ),
    );
  }

  /** Stops every member. */
  async close(): Promise<void> {
    await Promise.all(this.handles.map((h) => h.close()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
