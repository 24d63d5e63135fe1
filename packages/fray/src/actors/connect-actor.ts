import type { ClientOptions, Interceptor } from '@grpc/grpc-js';
import { pollUntil } from '@marin/rigging';
import { FrayError } from '../errors.js';
import { ActorHandle } from './actor-handle.js';
import type { ActorEndpoint, ActorState } from './actor-handle.js';
import type { Grpc } from './grpc.js';
import { ACTOR_ERROR_CODE_KEY } from './wire.js';

/** Options of {@link connectActor}. */
export interface ConnectActorOptions {
  /** Name used in errors. @default the address */
  name?: string;
}

/** The metadata key that names the endpoint a call through Iris's endpoint proxy goes to. */
const IRIS_PROXY_ENDPOINT_KEY = 'x-iris-endpoint';
/** Iris's trailing-metadata key with the exact code of a refusal by the controller. */
const IRIS_ERROR_CODE_KEY = 'iris-error-code';
/** The controller's refusals of the caller itself: no retry can help, so they are not "unavailable". */
const IRIS_REFUSALS = new Set(['IRIS_PERMISSION_DENIED', 'IRIS_UNAUTHENTICATED', 'IRIS_INVALID_ARGUMENT']);

/** A fixed address nobody supervises: the actor is never known dead, only unreachable. */
class FixedEndpoint implements ActorEndpoint {
  constructor(
    readonly name: string,
    private readonly addr: string,
    /** Metadata every call carries (the endpoint name and credential for Iris's proxy). */
    private readonly metadata: Readonly<Record<string, string>> = {},
  ) {}

  clientOptions(grpc: Grpc): ClientOptions {
    const entries = Object.entries(this.metadata);
    if (entries.length === 0) return {};
    const interceptor: Interceptor = (options, nextCall) =>
      new grpc.InterceptingCall(nextCall(options), {
        start(md, _listener, next) {
          for (const [k, v] of entries) md.set(k, v);
          next(md, {
            // The proxy refused this caller (another user's actor, a bad key or name): a plain
            // FRAY_INVALID_ARGUMENT with the controller's message, not a retryable FRAY_ACTOR_UNAVAILABLE.
            onReceiveStatus(status, nextStatus) {
              const code = status.metadata.get(IRIS_ERROR_CODE_KEY)[0];
              if (typeof code === 'string' && IRIS_REFUSALS.has(code) && status.metadata.get(ACTOR_ERROR_CODE_KEY).length === 0) {
                status.metadata.set(ACTOR_ERROR_CODE_KEY, 'FRAY_INVALID_ARGUMENT');
              }
              nextStatus(status);
            },
          });
        },
      });
    return { interceptors: [interceptor] };
  }

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
  /**
   * Call through the controller's endpoint proxy instead of dialling the actor's registered address: for callers
   * outside the workers' network. `true` uses the dashboard address the controller reports (`GetClusterStatus`);
   * a `host:port` (or `http://host:port/`) names the controller's HTTP port as this caller reaches it. Calls carry
   * the endpoint's name (`x-iris-endpoint`) and `token` as the bearer credential; the controller lets through only
   * the job's owner or an admin. @default false
   */
  viaProxy?: boolean | string;
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
    if (options.viaProxy === undefined || options.viaProxy === false) return connectActor(found, { name });
    const proxy = options.viaProxy === true ? (await iris.clusterStatus()).dashboardUrl : options.viaProxy;
    if (proxy === '') throw new FrayError('FRAY_ACTOR_NOT_READY', 'the controller serves no dashboard port, so it has no endpoint proxy', { details: { endpoint: name } });
    const proxyAddress = proxy.includes('://') ? new URL(proxy).host : proxy;
    const token = options.token ?? process.env['IRIS_AUTH_TOKEN'];
    const metadata: Record<string, string> = { [IRIS_PROXY_ENDPOINT_KEY]: name, ...(token === undefined || token === '' ? {} : { authorization: `Bearer ${token}` }) };
    return new ActorHandle(new FixedEndpoint(name, proxyAddress, metadata), false);
  } finally {
    iris.close();
  }
}
