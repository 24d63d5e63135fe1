import { pollUntil } from '@marin/rigging';
import { FrayError } from '../errors.js';
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

/** Options of {@link connectIrisActor}. */
export interface ConnectIrisActorOptions {
  /** Controller `host:port`. @default IRIS_CONTROLLER_ADDRESS */
  controller?: string;
  /** Shared token. @default IRIS_AUTH_TOKEN */
  token?: string;
  /** How long to wait for the endpoint to be registered. @default 60000 */
  timeoutMs?: number;
}

/**
 * A handle to the actor registered under the Iris endpoint `name` (what `hostActor(…, { irisEndpoint })` registers
 * inside an Iris job: `<job id>/<irisEndpoint>`), resolved through the controller once, at its newest attempt.
 * Marin's `get_actor(endpoint)`. Like {@link connectActor}, nothing supervises it afterwards.
 *
 * @throws {FrayError} FRAY_ACTOR_NOT_READY when no such endpoint is registered within `timeoutMs`
 */
export async function connectIrisActor(name: string, options: ConnectIrisActorOptions = {}): Promise<ActorHandle> {
  const { createIrisClient } = await import('@marin/iris');
  const address = options.controller ?? process.env['IRIS_CONTROLLER_ADDRESS'] ?? '';
  const iris = createIrisClient({ address, ...(options.token === undefined ? {} : { token: options.token }) });
  try {
    let found: string | undefined;
    await pollUntil(
      async () => {
        const endpoints = await iris.listEndpoints({ exact: name });
        const newest = endpoints.reduce<(typeof endpoints)[number] | undefined>((a, e) => (a === undefined || e.attemptId > a.attemptId ? e : a), undefined);
        found = newest?.address;
        return found !== undefined;
      },
      { timeoutMs: options.timeoutMs ?? 60_000, interval: 100 },
    );
    if (found === undefined) {
      throw new FrayError('FRAY_ACTOR_NOT_READY', `no Iris endpoint "${name}" was registered within ${options.timeoutMs ?? 60_000} ms`, { details: { endpoint: name } });
    }
    return connectActor(found, { name });
  } finally {
    iris.close();
  }
}
