import type { IrisClient } from '@marin/iris';
import { pollUntil } from '@marin/rigging';
import type { JobHandle } from '../client/client.js';
import { isFinished } from '../client/job-status.js';
import type { FrayLogger } from '../client/logger.js';
import { FrayError } from '../errors.js';
import { Entrypoint } from '../request/entrypoint.js';
import type { JsonValue } from '../request/entrypoint.js';
import { sanitizeJobName } from '../request/job-name.js';
import { createIrisBackend } from '../backends/iris/iris-backend.js';
import type { IrisBackend } from '../backends/iris/iris-backend.js';
import { actorBackendOf } from './actor-backend.js';
import { actorJobSpecOf } from './actor-backend.js';
import type { ActorBackend, AnyActorEntry, CreateActorOptions } from './actor-backend.js';
import { ActorHandle } from './actor-handle.js';
import type { ActorEndpoint, ActorState } from './actor-handle.js';
import { IRIS_ACTOR_ENDPOINT_SUFFIX } from './actor-main.js';
import { DEFAULT_ACTOR_READY_TIMEOUT_MS } from './local-actors.js';

/** The part of an Iris client the actor backend uses to resolve endpoints. */
export type IrisEndpointClient = Pick<IrisClient, 'listEndpoints' | 'close'>;

/** Options of {@link createIrisActorBackend}. */
export interface IrisActorBackendOptions {
  /** Controller `host:port`. @default IRIS_CONTROLLER_ADDRESS */
  controller?: string;
  /** Shared token. @default IRIS_AUTH_TOKEN */
  token?: string;
  /** Run actor jobs in the workspace as it is (an embedded cluster on this machine). @default false */
  inPlace?: boolean;
  /** Bundle root. @default the git top level of the cwd */
  workspace?: string;
  /** Receives warnings. @default stderr */
  logger?: FrayLogger;
  /** An open client for endpoint lookups (not closed by the backend). @default one connected to `controller` */
  endpointClient?: IrisEndpointClient;
  /** How often a resolving handle asks the controller. @default 100 */
  pollMs?: number;
}

/** How long a handle whose connection dropped waits for the controller to say whether the actor ended. */
const FAILURE_SETTLE_MS = 15_000;
/** Reading `state` refreshes it in the background at most this often. */
const STATE_REFRESH_MS = 500;

/** One actor as an Iris job: ready while its endpoint is registered, dead once the job is finished. */
class IrisActor implements ActorEndpoint {
  private current: ActorState = 'starting';
  private addr: string | undefined;
  private attempt = -1;
  private reason: string | undefined;
  private lastRefresh = 0;
  private refreshing: Promise<void> | undefined;
  private everReady = false;

  constructor(
    readonly name: string,
    private readonly job: JobHandle,
    private readonly endpoints: () => Promise<IrisEndpointClient>,
    private readonly pollMs: number,
  ) {}

  state(): ActorState {
    if (this.current !== 'dead' && Date.now() - this.lastRefresh > STATE_REFRESH_MS) void this.refresh().catch(() => undefined);
    return this.current;
  }

  deathReason(): string | undefined {
    return this.reason;
  }

  /** Asks the controller for the job's state and the actor's endpoint (one request each), once at a time. */
  refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const status = await this.job.status();
        if (isFinished(status)) {
          this.addr = undefined;
          this.reason ??= `its Iris job "${this.job.jobId}" is ${status}`;
          this.current = 'dead';
          return;
        }
        const client = await this.endpoints();
        const found = await client.listEndpoints({ exact: `${this.job.jobId}${IRIS_ACTOR_ENDPOINT_SUFFIX}` });
        const latest = found.reduce<(typeof found)[number] | undefined>((a, e) => (a === undefined || e.attemptId > a.attemptId ? e : a), undefined);
        if (latest !== undefined && latest.attemptId >= this.attempt) {
          this.addr = latest.address;
          this.attempt = latest.attemptId;
          this.current = 'ready';
          this.everReady = true;
        } else {
          this.addr = undefined;
          this.current = this.everReady ? 'restarting' : 'starting';
        }
      } finally {
        this.lastRefresh = Date.now();
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  /** Polls until the actor serves or is dead, at most `timeoutMs`. */
  private async settle(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    await pollUntil(
      async () => {
        if (signal?.aborted === true) return true;
        await this.refresh();
        return this.current === 'ready' || this.current === 'dead';
      },
      { timeoutMs, interval: this.pollMs },
    );
  }

  async start(readyTimeoutMs: number): Promise<void> {
    await this.settle(readyTimeoutMs);
    if (this.current === 'ready') return;
    const why = this.current === 'dead' ? (this.reason ?? 'its job ended') : `not serving within ${readyTimeoutMs} ms`;
    const tail = (await this.job.logs().catch(() => [] as string[])).slice(-20);
    await this.stop();
    throw new FrayError('FRAY_ACTOR_NOT_READY', `actor "${this.name}" did not become ready: ${why}`, { details: { actor: this.name, jobId: this.job.jobId, tail } });
  }

  async address(deadlineMs: number, signal?: AbortSignal): Promise<string> {
    if (this.current === 'ready' && this.addr !== undefined) return this.addr;
    if (this.current !== 'dead') await this.settle(Math.max(0, deadlineMs - Date.now()), signal);
    if (this.current === 'ready' && this.addr !== undefined) return this.addr;
    if (this.current === 'dead') throw new FrayError('FRAY_ACTOR_DEAD', `actor "${this.name}" is dead: ${this.reason ?? 'stopped'}`, { details: { actor: this.name } });
    return new Promise<string>(() => undefined); // the caller's deadline or abort ends the wait
  }

  async classifyFailure(deadlineMs: number): Promise<'dead' | 'unavailable'> {
    const failedAddress = this.addr;
    const failedAttempt = this.attempt;
    // The attempt whose connection dropped is over: only a newer attempt (a restart) or the job's end settles it.
    this.current = 'restarting';
    this.addr = undefined;
    this.attempt = failedAttempt + 1;
    await pollUntil(
      async () => {
        await this.refresh();
        return this.current === 'dead' || (this.current === 'ready' && this.addr !== failedAddress);
      },
      { timeoutMs: Math.max(0, Math.min(deadlineMs, Date.now() + FAILURE_SETTLE_MS) - Date.now()), interval: this.pollMs },
    );
    const settled = this.current as ActorState; // refresh() changed it
    if (settled === 'dead') return 'dead';
    // Still the same attempt as far as the controller knows (a network blip): let it be resolved again.
    if (settled !== 'ready') this.attempt = failedAttempt;
    return 'unavailable';
  }

  async stop(): Promise<void> {
    this.reason ??= 'stopped';
    this.current = 'dead';
    this.addr = undefined;
    await this.job.terminate().catch(() => undefined);
  }
}

/**
 * The Iris actor backend: each actor is an Iris job running `runActorHost` through fray's Iris backend (so
 * resources become Iris resources); the actor registers the endpoint `<job id>/actor` with the controller and
 * handles resolve it there. Restarts are Iris task retries (`maxRetriesFailure = maxRestarts`).
 */
export function createIrisActorBackend(options: IrisActorBackendOptions = {}): ActorBackend {
  const fray: IrisBackend = createIrisBackend({
    ...(options.controller === undefined ? {} : { controller: options.controller }),
    ...(options.token === undefined ? {} : { token: options.token }),
    ...(options.workspace === undefined ? {} : { workspace: options.workspace }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    inPlace: options.inPlace ?? false,
  });
  const pollMs = options.pollMs ?? 100;
  let endpointClient: Promise<IrisEndpointClient> | undefined = options.endpointClient === undefined ? undefined : Promise.resolve(options.endpointClient);
  const ownsEndpointClient = options.endpointClient === undefined;
  const endpoints = (): Promise<IrisEndpointClient> =>
    (endpointClient ??= (async () => {
      const { createIrisClient } = await import('@marin/iris');
      const address = options.controller ?? process.env['IRIS_CONTROLLER_ADDRESS'] ?? '';
      return createIrisClient({ address, ...(options.token === undefined ? {} : { token: options.token }) });
    })());
  const actors = new Set<IrisActor>();
  let closed = false;

  const startOne = async (entry: AnyActorEntry, name: string, opts: CreateActorOptions): Promise<ActorHandle> => {
    if (closed) throw new FrayError('FRAY_BACKEND_UNAVAILABLE', 'the Iris actor backend is closed', { retryable: false });
    const { spec, pythonEnv } = actorJobSpecOf(entry, name, opts, true);
    const job = await fray.submit(
      {
        name: sanitizeJobName(`actor-${name}`),
        entrypoint: Entrypoint.fromModule({ module: '@marin/fray', exportName: 'runActorHost', args: spec as unknown as JsonValue }),
        ...(opts.resources === undefined ? {} : { resources: opts.resources }),
        ...(pythonEnv === undefined ? {} : { pythonEnv }),
        maxRetriesFailure: opts.maxRestarts ?? 0,
      },
      { adoptExisting: false },
    );
    const actor = new IrisActor(name, job, endpoints, pollMs);
    actors.add(actor);
    await actor.start(opts.readyTimeoutMs ?? DEFAULT_ACTOR_READY_TIMEOUT_MS).catch((e: unknown) => {
      actors.delete(actor);
      throw e;
    });
    return new ActorHandle(actor);
  };
  return actorBackendOf({
    backend: 'iris',
    lowerCaseNames: true,
    startOne,
    async close() {
      closed = true;
      await Promise.all([...actors].map((a) => a.stop()));
      actors.clear();
      if (ownsEndpointClient && endpointClient !== undefined) (await endpointClient).close();
      await fray.close();
    },
  });
}
