import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Metadata, credentials } from '@grpc/grpc-js';
import type { CallOptions, ClientOptions, ServiceError } from '@grpc/grpc-js';
import { ExponentialBackoff, pollUntil } from '@marin/rigging';
import { z } from 'zod';
import { createAuthInterceptor } from '../wire/token-auth.js';
import type { Bundle } from '../bundle/create-bundle.js';
import { IrisError, irisErrorFromServiceError } from '../errors.js';
import { ControllerServiceClient, LogQuery as ProtoLogQuery } from '../gen/iris/v1/controller.js';
import type { ExecInTaskRequest, FollowLogsResponse } from '../gen/iris/v1/controller.js';
import type { ExecOutput } from '../gen/iris/v1/types.js';
import { jobSpecToRequest } from './job-spec.js';
import type { JobSpec } from './job-spec.js';
import { PriorityBand } from '../gen/iris/v1/types.js';
import type {
  ClusterStatus,
  Endpoint,
  EndpointQuery,
  EndpointSpec,
  FollowEvent,
  JobInfo,
  JobQuery,
  JobState,
  LogEntry,
  LogQuery,
  PriorityBand as Band,
  TaskInfo,
  UserBudget,
  WorkerInfo,
} from '../core/job-types.js';
import { TERMINAL_JOB_STATES } from '../core/job-types.js';
import { apiKeyInfoFromProto, auditEntryFromProto } from '../wire/identity-views.js';
import type { ApiKeyInfo, AuditEntry, WhoAmI } from '../wire/identity-views.js';
import { endpointFromProto, jobInfoFromProto, jobStateFromProto, jobStateToProto, logEntryFromProto, taskInfoFromProto, userBudgetFromProto, workerInfoFromProto } from '../wire/proto-views.js';

const BUNDLE_CHUNK_BYTES = 1024 * 1024;

/** Options of {@link createIrisClient}. */
export const IrisClientOptionsSchema = z.object({
  /** Controller `host:port`. */
  address: z.string().regex(/^.+:\d+$/, { message: 'address must be host:port' }),
  /** Bearer credential: the shared token or an API key. @default IRIS_AUTH_TOKEN when set */
  token: z.string().min(1).optional(),
  /** Deadline of each unary call. @default 10000 */
  deadlineMs: z.number().int().positive().default(10_000),
});

/** What callers pass to {@link createIrisClient}. */
export type IrisClientOptions = z.input<typeof IrisClientOptionsSchema>;

/** A bundle to attach: an existing id, or a directory to pack and upload. */
export type BundleRef = { readonly bundleId: string } | { readonly root: string };

/** Typed client of the controller. */
export interface IrisClient extends AsyncDisposable {
  readonly address: string;
  /**
   * Submits a job; returns its id. `bundle`: `'workspace'` packs the git top level (or cwd), a
   * `BundleRef` attaches one, `null` runs in an empty workdir.
   * @default bundle: IRIS_BUNDLE_ID inside a task, else null
   * @throws {IrisError} IRIS_INVALID_ARGUMENT, IRIS_ALREADY_EXISTS, IRIS_FAILED_PRECONDITION
   */
  launchJob(spec: JobSpec, options?: { bundle?: 'workspace' | BundleRef | null }): Promise<string>;
  /** @throws {IrisError} IRIS_JOB_NOT_FOUND */
  getJob(jobId: string, options?: { includeTasks?: boolean }): Promise<JobInfo>;
  /** The tasks of a job with their attempts. @throws {IrisError} IRIS_JOB_NOT_FOUND */
  listTasks(jobId: string): Promise<TaskInfo[]>;
  /** One task, e.g. `/alice/train/0`. @throws {IrisError} IRIS_NOT_FOUND */
  getTask(taskId: string): Promise<TaskInfo>;
  /** States of several jobs (cheap polling); unknown ids are absent. */
  getJobStates(jobIds: readonly string[]): Promise<Map<string, JobState>>;
  listJobs(query?: JobQuery): Promise<JobInfo[]>;
  /** Kills the job and (by default) its descendants. @throws {IrisError} IRIS_JOB_NOT_FOUND */
  terminateJob(jobId: string, options?: { includeChildren?: boolean }): Promise<void>;
  fetchLogs(query: LogQuery): Promise<{ entries: LogEntry[]; cursor: string; truncated: boolean }>;
  /** Streams the backlog, then live lines, ending after the job (tree) is terminal. */
  followLogs(query: LogQuery, options?: { signal?: AbortSignal }): AsyncIterable<FollowEvent>;
  /**
   * Runs `argv` in a running task's workdir and environment on its worker (the job's owner or an
   * admin): its output as it comes, then its exit. Aborting `signal` stops the command.
   * @throws {IrisError} IRIS_NOT_FOUND, IRIS_PERMISSION_DENIED, IRIS_FAILED_PRECONDITION when the task is not running
   */
  execInTask(taskId: string, argv: readonly string[], options?: { timeoutMs?: number; signal?: AbortSignal }): AsyncIterable<ExecEvent>;
  /** Resolves once the job is terminal. @throws {IrisError} IRIS_DEADLINE_EXCEEDED after `timeoutMs`; IRIS_CANCELLED on abort */
  waitForJob(jobId: string, options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<JobInfo>;
  registerEndpoint(e: EndpointSpec): Promise<string>;
  unregisterEndpoint(endpointId: string): Promise<void>;
  listEndpoints(q: EndpointQuery): Promise<Endpoint[]>;
  listWorkers(): Promise<WorkerInfo[]>;
  /** The controller's version, start time and job counts; `timeoutMs` overrides the client's deadline. */
  clusterStatus(options?: { timeoutMs?: number }): Promise<ClusterStatus>;
  /**
   * Sets a user's budget: `budgetLimit` (0 = unlimited) and the best band their jobs may use (null = no cap).
   * @throws {IrisError} IRIS_INVALID_ARGUMENT for an empty user or a negative limit
   */
  setUserBudget(budget: { user: string; budgetLimit: number; maxBand?: Band | null }): Promise<UserBudget>;
  /** A user's budget (defaults when never set) with their current spend. */
  getUserBudget(user: string): Promise<UserBudget>;
  /** Every user with a budget or current spend. */
  listUserBudgets(): Promise<UserBudget[]>;
  /** Uploads a bundle unless the controller has it (`HasBundle`); returns its id. */
  uploadBundle(bundle: Bundle): Promise<string>;
  /** Who the controller takes this client for. @throws {IrisError} IRIS_UNAUTHENTICATED */
  whoAmI(): Promise<WhoAmI>;
  /**
   * Creates an API key for `user` (admins only), creating the user when new (role `user` unless
   * told; a new user's best band is BATCH). The key is in the result only; the controller keeps a hash.
   * @throws {IrisError} IRIS_PERMISSION_DENIED for a non-admin; IRIS_INVALID_ARGUMENT for a bad user or role
   */
  createApiKey(request: { user: string; role?: 'admin' | 'user'; name?: string }): Promise<{ key: string; info: ApiKeyInfo }>;
  /** API keys: an admin's of anyone (or `user`), a user's own. */
  listApiKeys(query?: { user?: string; includeRevoked?: boolean }): Promise<ApiKeyInfo[]>;
  /** Revokes a key (admins: any; users: their own); refused from the next request on. @throws {IrisError} IRIS_NOT_FOUND, IRIS_PERMISSION_DENIED */
  revokeApiKey(keyId: string): Promise<ApiKeyInfo>;
  /** Audit entries, newest first (admins only). @default limit 100 */
  listAuditLog(query?: { limit?: number; beforeId?: number }): Promise<AuditEntry[]>;
  close(): Promise<void>;
}

type Unary<TReq, TRes> = (req: TReq, md: Metadata, opts: CallOptions, cb: (e: ServiceError | null, r: TRes) => void) => unknown;

function toProtoQuery(q: LogQuery): ProtoLogQuery {
  return ProtoLogQuery.fromPartial({
    taskId: q.taskId ?? '',
    jobId: q.jobId ?? '',
    includeChildren: q.includeChildren,
    attemptId: q.attemptId,
    sinceMs: q.sinceMs ?? 0,
    maxLines: q.maxLines ?? 0,
    tail: q.tail ?? false,
    substring: q.substring ?? '',
    minLevel: q.minLevel ?? 0,
    cursor: q.cursor ?? '',
  });
}

/** The workspace a `'workspace'` bundle packs: `IRIS_WORKSPACE`, else the git top level, else the cwd. */
export function workspaceRoot(): string {
  if (process.env['IRIS_WORKSPACE']) return process.env['IRIS_WORKSPACE'];
  try {
    return execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || process.cwd();
  } catch {
    return process.cwd();
  }
}

/**
 * Creates a client of the controller at `address`. Errors come back as {@link IrisError} with the
 * exact code from trailing metadata and the grpc `ServiceError` as `cause`.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for malformed options.
 */
export function createIrisClient(options: IrisClientOptions): IrisClient {
  const parsed = IrisClientOptionsSchema.safeParse(options);
  if (!parsed.success) throw new IrisError('IRIS_INVALID_ARGUMENT', `client option ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`);
  const o = parsed.data;
  const token = o.token ?? (process.env['IRIS_AUTH_TOKEN'] || undefined);
  const clientOptions: ClientOptions = token ? { interceptors: [createAuthInterceptor(token)] } : {};
  const raw = new ControllerServiceClient(o.address, credentials.createInsecure(), clientOptions);

  const call = <TReq, TRes>(method: Unary<TReq, TRes>, req: TReq, deadlineMs = o.deadlineMs): Promise<TRes> =>
    new Promise((resolve, reject) => {
      method.call(raw, req, new Metadata(), { deadline: Date.now() + deadlineMs }, (e, r) => (e ? reject(irisErrorFromServiceError(e)) : resolve(r)));
    });

  const uploadBundle = async (bundle: Bundle): Promise<string> => {
    const { present } = await call(raw.hasBundle, { bundleId: bundle.id });
    if (present) return bundle.id;
    return new Promise((resolve, reject) => {
      const stream = raw.uploadBundle(new Metadata(), { deadline: Date.now() + Math.max(o.deadlineMs, 120_000) }, (e, r) =>
        e ? reject(irisErrorFromServiceError(e)) : resolve(r.bundleId),
      );
      for (let off = 0; off === 0 || off < bundle.archive.length; off += BUNDLE_CHUNK_BYTES) {
        stream.write({ bundleId: off === 0 ? bundle.id : '', data: bundle.archive.subarray(off, off + BUNDLE_CHUNK_BYTES) });
        if (bundle.archive.length === 0) break;
      }
      stream.end();
    });
  };

  const resolveBundle = async (choice: 'workspace' | BundleRef | null | undefined): Promise<string> => {
    if (choice === undefined) return process.env['IRIS_TASK_ID'] ? (process.env['IRIS_BUNDLE_ID'] ?? '') : '';
    if (choice === null) return '';
    if (choice !== 'workspace' && 'bundleId' in choice) return choice.bundleId;
    const { createBundle } = await import('../bundle/create-bundle.js');
    const bundle = await createBundle({ root: choice === 'workspace' ? workspaceRoot() : choice.root });
    return uploadBundle(bundle);
  };

  const getJob = async (jobId: string, opts: { includeTasks?: boolean } = {}): Promise<JobInfo> => {
    const r = await call(raw.getJobStatus, { jobId, includeTasks: opts.includeTasks ?? false });
    return jobInfoFromProto(r.job!);
  };

  const close = async () => raw.close();

  return {
    address: o.address,
    async launchJob(spec, opts = {}) {
      const bundleId = await resolveBundle(opts.bundle);
      const r = await call(raw.launchJob, jobSpecToRequest(spec, bundleId));
      return r.jobId;
    },
    getJob,
    async listTasks(jobId) {
      return (await call(raw.listTasks, { jobId })).tasks.map(taskInfoFromProto);
    },
    async getTask(taskId) {
      return taskInfoFromProto((await call(raw.getTaskStatus, { taskId })).task!);
    },
    async getJobStates(jobIds) {
      const r = await call(raw.getJobStates, { jobIds: [...jobIds] });
      return new Map(Object.entries(r.states).map(([k, v]) => [k, jobStateFromProto(v)]));
    },
    async listJobs(q = {}) {
      const r = await call(raw.listJobs, {
        prefix: q.prefix ?? '',
        states: (q.states ?? []).map(jobStateToProto),
        rootsOnly: q.rootsOnly ?? false,
        offset: q.offset ?? 0,
        limit: q.limit ?? 0,
      });
      return r.jobs.map(jobInfoFromProto);
    },
    async terminateJob(jobId, opts = {}) {
      await call(raw.terminateJob, { jobId, includeChildren: opts.includeChildren ?? true });
    },
    async fetchLogs(q) {
      const r = await call(raw.fetchLogs, toProtoQuery(q));
      return { entries: r.entries.map(logEntryFromProto), cursor: r.cursor, truncated: r.truncated };
    },
    followLogs(q, opts = {}) {
      return followStream(raw, toProtoQuery(q), opts.signal);
    },
    execInTask(taskId, argv, opts = {}) {
      return execStream(raw, { taskId, argv: [...argv], timeoutMs: opts.timeoutMs ?? 0 }, opts.signal);
    },
    async waitForJob(jobId, opts = {}) {
      // Short first polls: most local jobs end within a few control ticks.
      const interval = new ExponentialBackoff({ initialMs: 10, factor: 1.5, maximumMs: 500, jitter: 0 });
      const finished = await pollUntil(
        async () => {
          if (opts.signal?.aborted) throw new IrisError('IRIS_CANCELLED', `waiting for job "${jobId}" was cancelled`, { cause: opts.signal.reason });
          const states = await call(raw.getJobStates, { jobIds: [jobId] });
          const s = states.states[jobId];
          if (s === undefined) throw new IrisError('IRIS_JOB_NOT_FOUND', `job "${jobId}" not found`);
          return TERMINAL_JOB_STATES.has(jobStateFromProto(s));
        },
        { timeoutMs: opts.timeoutMs, interval },
      );
      if (!finished) throw new IrisError('IRIS_DEADLINE_EXCEEDED', `job "${jobId}" did not finish within ${opts.timeoutMs} ms`);
      return getJob(jobId, { includeTasks: true });
    },
    async registerEndpoint(e) {
      const taskId = e.taskId ?? process.env['IRIS_TASK_ID'];
      const attemptId = e.attemptId ?? Number(process.env['IRIS_ATTEMPT_ID'] ?? NaN);
      if (!taskId || !Number.isInteger(attemptId)) throw new IrisError('IRIS_INVALID_ARGUMENT', 'registerEndpoint needs taskId and attemptId (or IRIS_TASK_ID/IRIS_ATTEMPT_ID)');
      const r = await call(raw.registerEndpoint, {
        name: e.name,
        address: e.address,
        taskId,
        attemptId,
        metadata: { ...(e.metadata ?? {}) },
        endpointId: e.endpointId ?? randomUUID(),
      });
      return r.endpointId;
    },
    async unregisterEndpoint(endpointId) {
      await call(raw.unregisterEndpoint, { endpointId });
    },
    async listEndpoints(q) {
      const r = await call(raw.listEndpoints, { prefix: q.prefix ?? '', exact: q.exact ?? '' });
      return r.endpoints.map(endpointFromProto);
    },
    async listWorkers() {
      const r = await call(raw.listWorkers, {});
      return r.workers.map(workerInfoFromProto);
    },
    async clusterStatus(opts = {}) {
      const r = await call(raw.getClusterStatus, {}, opts.timeoutMs);
      return { version: r.version, startedAtMs: r.startedAtMs, workerCount: r.workerCount, jobCounts: r.jobCounts, dashboardUrl: r.dashboardUrl };
    },
    async setUserBudget(b) {
      const maxBand = b.maxBand === undefined || b.maxBand === null ? PriorityBand.PRIORITY_BAND_UNSPECIFIED : PriorityBand[`PRIORITY_BAND_${b.maxBand}`];
      return userBudgetFromProto((await call(raw.setUserBudget, { user: b.user, budgetLimit: b.budgetLimit, maxBand })).budget!);
    },
    async getUserBudget(user) {
      return userBudgetFromProto((await call(raw.getUserBudget, { user })).budget!);
    },
    async listUserBudgets() {
      return (await call(raw.listUserBudgets, {})).budgets.map(userBudgetFromProto);
    },
    uploadBundle,
    async whoAmI() {
      const r = await call(raw.whoAmI, {});
      return { user: r.user === '' ? null : r.user, role: r.role as WhoAmI['role'], authMode: r.authMode as WhoAmI['authMode'], keyId: r.keyId === '' ? null : r.keyId };
    },
    async createApiKey(r) {
      const res = await call(raw.createApiKey, { user: r.user, role: r.role ?? '', name: r.name ?? '' });
      return { key: res.key, info: apiKeyInfoFromProto(res.info!) };
    },
    async listApiKeys(q = {}) {
      return (await call(raw.listApiKeys, { user: q.user ?? '', includeRevoked: q.includeRevoked ?? false })).keys.map(apiKeyInfoFromProto);
    },
    async revokeApiKey(keyId) {
      return apiKeyInfoFromProto((await call(raw.revokeApiKey, { keyId })).info!);
    },
    async listAuditLog(q = {}) {
      return (await call(raw.listAuditLog, { limit: q.limit ?? 0, beforeId: q.beforeId ?? 0 })).entries.map(auditEntryFromProto);
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

async function* followStream(raw: ControllerServiceClient, q: ProtoLogQuery, signal: AbortSignal | undefined): AsyncGenerator<FollowEvent> {
  const stream = raw.followLogs(q, new Metadata());
  const onAbort = () => stream.cancel();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const msg of stream as AsyncIterable<FollowLogsResponse>) {
      yield { entries: msg.entries.map(logEntryFromProto), jobState: jobStateFromProto(msg.jobState), done: msg.done, cursor: msg.cursor };
      if (msg.done) break;
    }
  } catch (e) {
    if (signal?.aborted) throw new IrisError('IRIS_CANCELLED', 'log follow was cancelled', { cause: e });
    throw IrisError.from(e);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    stream.cancel();
  }
}

/** One event of {@link IrisClient.execInTask}: output bytes, or the exit (always last). */
export type ExecEvent =
  | { readonly kind: 'stdout' | 'stderr'; readonly data: Buffer }
  | { readonly kind: 'exit'; readonly exitCode: number; readonly signal: string | null };

async function* execStream(raw: ControllerServiceClient, req: ExecInTaskRequest, signal: AbortSignal | undefined): AsyncGenerator<ExecEvent> {
  const stream = raw.execInTask(req, new Metadata());
  const onAbort = () => stream.cancel();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const msg of stream as AsyncIterable<ExecOutput>) {
      const chunk = msg.chunk;
      if (chunk?.$case === 'stdout' || chunk?.$case === 'stderr') yield { kind: chunk.$case, data: Buffer.from(chunk.value) };
      else if (chunk?.$case === 'exit') yield { kind: 'exit', exitCode: chunk.value.exitCode, signal: chunk.value.signal === '' ? null : chunk.value.signal };
    }
  } catch (e) {
    if (signal?.aborted) throw new IrisError('IRIS_CANCELLED', 'exec was cancelled', { cause: e });
    throw IrisError.from(e);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    stream.cancel();
  }
}
