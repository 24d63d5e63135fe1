import { ActorHandle } from './actor-handle.js';
import type { ActorEndpoint, ActorState } from './actor-handle.js';

/** Options of {@link connectActor}. */
export interface ConnectActorOptions {
  /** Name used in errors. @default the address */
  name?: string;
}

/** A fixed address nobody supervises: the actor is never known dead, only unreachable. */
class FixedEndpoint implements ActorEndpoint {
  constructor(
    readonly name: string,
    private readonly addr: string,
  ) {}

  state(): ActorState {
    return 'ready';
  }

  address(): Promise<string> {
    return Promise.resolve(this.addr);
  }

  classifyFailure(): Promise<'dead' | 'unavailable'> {
    return Promise.resolve('unavailable');
  }

  deathReason(): string | undefined {
    return undefined;
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * A handle to an actor served at `address` (`host:port`) by someone else: one started with `hostActor` in another
 * job, or an Iris endpoint's address. Closing it closes the connection only. A lost connection is
 * FRAY_ACTOR_UNAVAILABLE, never FRAY_ACTOR_DEAD: nothing here knows the actor's fate.
 */
export function connectActor(address: string, options: ConnectActorOptions = {}): ActorHandle {
  return new ActorHandle(new FixedEndpoint(options.name ?? address, address), false);
}
