import { pollUntil } from '@marin/rigging';
import type { Client, JobHandle } from '../client/client.js';
import { isFinished } from '../client/job-status.js';
import { FrayError } from '../errors.js';
import { Entrypoint } from '../request/entrypoint.js';
import type { JsonValue } from '../request/entrypoint.js';
import { sanitizeJobName } from '../request/job-name.js';
import { actorBackendOf } from './actor-backend.js';
import { actorJobSpecOf } from './actor-backend.js';
import type { ActorBackend, AnyActorEntry, CreateActorOptions } from './actor-backend.js';
import { ActorHandle } from './actor-handle.js';
import type { ActorEndpoint, ActorState } from './actor-handle.js';
import { ACTOR_READY_PREFIX } from './actor-main.js';
import { DEFAULT_ACTOR_READY_TIMEOUT_MS } from './local-actors.js';

/** Options of {@link createJobActorBackend}. */
export interface JobActorBackendOptions {
  /** The Fray client whose jobs host the actors (the Ray client for Ray); closed with the backend when `ownsClient`. */
  client: Client;
  /** Close `client` when the backend closes. @default false */
  ownsClient?: boolean;
  /** How often a resolving handle reads the job's status and log. @default 200 */
  pollMs?: number;
}

/** How long a handle whose connection dropped waits for the job to be seen ending. */
const FAILURE_SETTLE_MS = 15_000;
/** Reading `state` refreshes it in the background at most this often. */
const STATE_REFRESH_MS = 500;

/** The address of the last ready line in a job's log, if any. */
function readyAddress(lines: readonly string[]): string | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] ?? '';
    const at = line.indexOf(ACTOR_READY_PREFIX);
    if (at < 0) continue;
    try {
      return (JSON.parse(line.slice(at + ACTOR_READY_PREFIX.length)) as { address: string }).address;
    } catch {
      continue;
    }
  }
  return undefined;
}

/** One actor hosted by a job of a Fray client: ready once its log has the ready line; restarted by resubmitting. */
class JobActor implements ActorEndpoint {
  private current: ActorState = 'starting';
  private job: JobHandle | undefined;
  private addr: string | undefined;
  private restarts = 0;
  private reason: string | undefined;
  private everReady = false;
  private readyBy = 0;
  private lastRefresh = 0;
  private refreshing: Promise<void> | undefined;

  constructor(
    readonly name: string,
    private readonly submit: (restart: number) => Promise<JobHandle>,
    private readonly maxRestarts: number,
    private readonly readyTimeoutMs: number,
    private readonly pollMs: number,
  ) {}

  state(): ActorState {
    if (this.current !== 'dead' && Date.now() - this.lastRefresh > STATE_REFRESH_MS) void this.refresh().catch(() => undefined);
    return this.current;
  }

  deathReason(): string | undefined {
    return this.reason;
  }

  private async launch(): Promise<void> {
    this.job = await this.submit(this.restarts);
    this.readyBy = Date.now() + this.readyTimeoutMs;
  }

  private die(reason: string): void {
    this.reason ??= reason;
    this.current = 'dead';
    this.addr = undefined;
  }

  refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const job = this.job;
        if (job === undefined || this.current === 'dead') return;
        const status = await job.status();
        if (isFinished(status)) {
          this.addr = undefined;
          if (this.everReady && this.restarts < this.maxRestarts) {
            this.restarts += 1;
            this.current = 'restarting';
            await this.launch();
          } else {
            this.die(`its job "${job.jobId}" is ${status}${this.restarts > 0 ? ` after ${this.restarts} restarts` : ''}`);
          }
          return;
        }
        const address = readyAddress(await job.logs({ maxLines: 200 }));
        if (address !== undefined) {
          this.addr = address;
          this.current = 'ready';
          this.everReady = true;
        } else if (Date.now() > this.readyBy) {
          this.die(`not serving within ${this.readyTimeoutMs} ms`);
          await job.terminate().catch(() => undefined);
        }
      } finally {
        this.lastRefresh = Date.now();
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  private async settle(timeoutMs: number, done: () => boolean, signal?: AbortSignal): Promise<void> {
    await pollUntil(
      async () => {
        if (signal?.aborted === true) return true;
        await this.refresh();
        return done();
      },
      { timeoutMs, interval: this.pollMs },
    );
  }

  async start(): Promise<void> {
    await this.launch();
    await this.settle(this.readyTimeoutMs + 5_000, () => this.current === 'ready' || this.current === 'dead');
    if (this.current === 'ready') return;
    const tail = (await this.job?.logs({ maxLines: 20 }).catch(() => [] as string[])) ?? [];
    this.die(`not serving within ${this.readyTimeoutMs} ms`);
    await this.stop();
    throw new FrayError('FRAY_ACTOR_NOT_READY', `actor "${this.name}" did not become ready: ${this.reason ?? 'unknown'}`, {
      details: { actor: this.name, jobId: this.job?.jobId, tail },
    });
  }

  async address(deadlineMs: number, signal?: AbortSignal): Promise<string> {
    if (this.current === 'ready' && this.addr !== undefined) return this.addr;
    if (this.current !== 'dead') await this.settle(Math.max(0, deadlineMs - Date.now()), () => this.current === 'ready' || this.current === 'dead', signal);
    if (this.current === 'ready' && this.addr !== undefined) return this.addr;
    if (this.current === 'dead') throw new FrayError('FRAY_ACTOR_DEAD', `actor "${this.name}" is dead: ${this.reason ?? 'stopped'}`, { details: { actor: this.name } });
    return new Promise<string>(() => undefined); // the caller's deadline or abort ends the wait
  }

  async classifyFailure(deadlineMs: number): Promise<'dead' | 'unavailable'> {
    const failedJob = this.job;
    await this.settle(Math.max(0, Math.min(deadlineMs, Date.now() + FAILURE_SETTLE_MS) - Date.now()), () => this.current === 'dead' || this.job !== failedJob);
    return this.current === 'dead' ? 'dead' : 'unavailable';
  }

  async stop(): Promise<void> {
    this.die('stopped');
    await this.job?.terminate().catch(() => undefined);
  }
}

/**
 * Actors hosted by jobs of any Fray client: each actor is a module job running `runActorHost`; its address is
 * read from the ready line in the job's log, and a restart is a new job. This is how actors run on Ray: a Ray job
 * hosting a gRPC endpoint (the TS actor runs Node, which Ray's Python actors cannot host without a second hop).
 */
export function createJobActorBackend(options: JobActorBackendOptions): ActorBackend {
  const { client } = options;
  const pollMs = options.pollMs ?? 200;
  const actors = new Set<JobActor>();
  let closed = false;

  const startOne = async (entry: AnyActorEntry, name: string, opts: CreateActorOptions): Promise<ActorHandle> => {
    if (closed) throw new FrayError('FRAY_BACKEND_UNAVAILABLE', 'the actor backend is closed', { retryable: false });
    const { spec, pythonEnv } = actorJobSpecOf(entry, name, opts, false);
    const submit = (restart: number): Promise<JobHandle> =>
      client.submit(
        {
          name: sanitizeJobName(`actor-${name}${restart > 0 ? `-r${restart}` : ''}`),
          entrypoint: Entrypoint.fromModule({ module: '@marin/fray', exportName: 'runActorHost', args: spec as unknown as JsonValue }),
          ...(opts.resources === undefined ? {} : { resources: opts.resources }),
          ...(pythonEnv === undefined ? {} : { pythonEnv }),
        },
        { adoptExisting: false },
      );
    const actor = new JobActor(name, submit, opts.maxRestarts ?? 0, opts.readyTimeoutMs ?? DEFAULT_ACTOR_READY_TIMEOUT_MS, pollMs);
    actors.add(actor);
    await actor.start().catch((e: unknown) => {
      actors.delete(actor);
      throw e;
    });
    return new ActorHandle(actor);
  };
  return actorBackendOf({
    backend: 'job',
    lowerCaseNames: true,
    startOne,
    async close() {
      closed = true;
      await Promise.all([...actors].map((a) => a.stop()));
      actors.clear();
      if (options.ownsClient === true) await client.close();
    },
  });
}
