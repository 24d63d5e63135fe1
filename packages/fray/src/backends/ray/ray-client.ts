import { userInfo } from 'node:os';
import { z } from 'zod';
import type { Client, SubmitOptions } from '../../client/client.js';
import { stderrLogger } from '../../client/logger.js';
import type { FrayLogger } from '../../client/logger.js';
import { FRAY_JOB_ENV } from '../../client/job-context.js';
import { JobAlreadyExists } from '../../client/job-already-exists.js';
import { FrayError } from '../../errors.js';
import type { JobRequest } from '../../request/job-request.js';
import { resolveJobRequest } from '../../request/job-request.js';
import { validatePythonEnvSpec } from '../../request/python-env-spec.js';
import type { PythonEnvSpec } from '../../request/python-env-spec.js';
import { readDependencyGroups, resolveDependencyGroups } from '../../request/dependency-groups.js';
import { findWorkspaceRoot } from '../../runner/workspace-root.js';
import { FRAY_RAY_ADDRESS_ENV, rayAddressFromEnv, rayDashboardUrl, rayHeadersFromEnv } from './ray-address.js';
import { RayJobHandle } from './ray-job-handle.js';
import { RayJobsApi } from './ray-jobs-api.js';
import type { RayJobInfo } from './ray-jobs-api.js';
import { PYTHON_ENV_SPEC_ENV } from './python-env-launcher.js';
import { buildRaySubmission } from './ray-submission.js';
import { stopWithProcess } from './stop-with-process.js';
import type { RayJobSubmission } from './ray-submission.js';

/** Options of {@link createRayClient}. */
export interface RayClientOptions {
  /** The dashboard (Jobs API) address, `http://host:8265` or `host:8265`. @default FRAY_RAY_ADDRESS, else RAY_ADDRESS */
  address?: string;
  /** Headers sent with every request, e.g. `{ Authorization: 'Bearer …' }`. @default RAY_JOB_HEADERS (JSON) */
  headers?: Record<string, string>;
  /** Where jobs run on the cluster: the entrypoint `cd`s here. @default the git top level of process.cwd() */
  workspace?: string;
  /**
   * Prepended to every job name to form Ray's submission id, which is global and permanent on a cluster.
   * @default inside a Fray job on Ray `<parent submission id>.`, else `fray-<user>-`
   */
  jobPrefix?: string;
  /** Merged into every job's `runtime_env` (`working_dir`, `py_modules`, …); `env_vars` stays Fray's. @default {} */
  runtimeEnv?: Record<string, unknown>;
  /** The cluster's Python that imports `ray`; runs the driver of gang jobs (replicas > 1). @default 'python' */
  python?: string;
  /**
   * Where the cluster's nodes build and keep the Python environments of jobs with a `pythonEnv` (a path on the
   * nodes). @default each node's `MARIN_PYTHON_ENV_CACHE`, else `~/.cache/marin/python-envs`
   */
  pythonEnvCacheDir?: string;
  /** Per-request timeout of the Jobs API. @default 30000 */
  requestTimeoutMs?: number;
  /** Receives warnings (failures returned without raising, ignored fields). @default stderr */
  logger?: FrayLogger;
}

const OptionsSchema = z.strictObject({
  address: z.string().min(1).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  workspace: z.string().min(1).optional(),
  jobPrefix: z.string().regex(/^[A-Za-z0-9_.-]*$/, 'letters, digits, _ . - only').optional(),
  runtimeEnv: z.record(z.string(), z.unknown()).optional(),
  python: z.string().min(1).default('python'),
  pythonEnvCacheDir: z.string().min(1).optional(),
  requestTimeoutMs: z.number().int().positive().default(30_000),
  logger: z.custom<FrayLogger>((v) => typeof v === 'object' && v !== null && 'warn' in v).optional(),
});

/** A Fray client over a Ray cluster's Jobs REST API. */
export interface RayClient extends Client {
  /** Always `'ray'`. */
  readonly backend: 'ray';
  /** The dashboard URL requests go to. */
  readonly address: string;
  submit(request: JobRequest, options?: SubmitOptions): Promise<RayJobHandle>;
  /** The submission Ray would get for `request` (nothing is sent); for inspection and tests. */
  toSubmission(request: JobRequest): RayJobSubmission;
  /** A handle to a job by its submission id (e.g. one from `list()`). */
  handle(jobId: string): RayJobHandle;
  /** The cluster's jobs; by default only those whose submission id starts with this client's job prefix. */
  list(options?: { all?: boolean }): Promise<RayJobInfo[]>;
}

/** The submission id of the Fray job on Ray this process runs in, or `null` outside one. */
function parentJobId(env: NodeJS.ProcessEnv): string | null {
  const parent = env[FRAY_JOB_ENV.jobId];
  return env[FRAY_RAY_ADDRESS_ENV] !== undefined && parent !== undefined && parent !== '' ? parent : null;
}

/** The Python environment of the Fray job on Ray this process runs in (its children inherit it), or `undefined`. */
function inheritedPythonEnv(env: NodeJS.ProcessEnv): PythonEnvSpec | undefined {
  const raw = env[PYTHON_ENV_SPEC_ENV];
  if (raw === undefined || raw === '' || parentJobId(env) === null) return undefined;
  try {
    const spec = JSON.parse(raw) as Partial<PythonEnvSpec>;
    return validatePythonEnvSpec({ lock: String(spec.lock), name: String(spec.name), pythonVersion: String(spec.pythonVersion) });
  } catch {
    return undefined;
  }
}

function defaultJobPrefix(env: NodeJS.ProcessEnv): string {
  const parent = parentJobId(env);
  if (parent !== null) return `${parent}.`;
  let user = 'user';
  try {
    user = env['USER'] ?? userInfo().username;
  } catch {
    // no passwd entry (containers): keep the placeholder
  }
  return `fray-${user.toLowerCase().replace(/[^a-z0-9_.-]+/g, '-') || 'user'}-`;
}

/**
 * Creates the Ray backend: jobs go to an existing Ray cluster through its Jobs REST API (submit, status, logs,
 * stop, list). Resources map to the entrypoint's Ray resources, env vars to `runtime_env.env_vars`, and jobs run in
 * `workspace` on the cluster (the entrypoint `cd`s there), so a cluster sharing the workspace runs them in place.
 * A job's `pythonEnv` is built on the node that runs it (once per lock hash per node) by Fray's launcher. Inside a
 * Fray job on Ray, submissions are children of that job (`metadata.fray_parent`), inherit its `pythonEnv`, and are
 * stopped with it: by `terminate()` on the parent's handle, or by this process when Ray stops it.
 *
 * @throws {FrayError} FRAY_INVALID_ARGUMENT for a bad option or no address
 */
export function createRayClient(options: RayClientOptions = {}, env: NodeJS.ProcessEnv = process.env): RayClient {
  const parsed = OptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new FrayError('FRAY_INVALID_ARGUMENT', `invalid ray client option ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'bad value'}`, {
      cause: parsed.error,
    });
  }
  const config = parsed.data;
  const address = config.address ?? rayAddressFromEnv(env);
  if (address === null) {
    throw new FrayError('FRAY_INVALID_ARGUMENT', 'no Ray address: pass address ("http://host:8265", the dashboard) or set RAY_ADDRESS');
  }
  const baseUrl = rayDashboardUrl(address);
  const api = new RayJobsApi({ baseUrl, headers: config.headers ?? rayHeadersFromEnv(env), requestTimeoutMs: config.requestTimeoutMs });
  const logger = config.logger ?? stderrLogger;
  const jobPrefix = config.jobPrefix ?? defaultJobPrefix(env);
  let workspaceRoot = config.workspace;
  const workspace = (): string => (workspaceRoot ??= findWorkspaceRoot());
  const handles: RayJobHandle[] = [];
  let closed = false;
  let warnedImage = false;

  const parentId = parentJobId(env);
  const parentPythonEnv = inheritedPythonEnv(env);

  const toSubmission = (request: JobRequest): RayJobSubmission => {
    // A child job without its own environment runs in its parent's, as on Iris.
    const resolved = resolveJobRequest(request.pythonEnv === undefined && parentPythonEnv !== undefined ? { ...request, pythonEnv: parentPythonEnv } : request);
    if ((resolved.environment.dependencyGroups?.length ?? 0) > 0) {
      // Nothing is installed (jobs run in place), but a misspelt group must still fail at submit.
      resolveDependencyGroups(resolved.environment.dependencyGroups, resolved.resources.device, readDependencyGroups(resolved.environment.workspace ?? workspace()));
    }
    if (resolved.resources.image !== undefined && !warnedImage) {
      warnedImage = true;
      logger.warn(`task images are not supported on Ray; ignoring image "${resolved.resources.image}"`);
    }
    return buildRaySubmission(resolved, {
      submissionId: `${jobPrefix}${resolved.name}`,
      workdir: resolved.environment.workspace ?? workspace(),
      env: { [FRAY_RAY_ADDRESS_ENV]: baseUrl },
      runtimeEnv: config.runtimeEnv ?? {},
      python: config.python,
      ...(config.pythonEnvCacheDir === undefined ? {} : { pythonEnvCacheDir: config.pythonEnvCacheDir }),
      ...(parentId === null ? {} : { parentId }),
    });
  };

  const handle = (jobId: string): RayJobHandle => new RayJobHandle(jobId, api, logger);

  const client: RayClient = {
    backend: 'ray',
    address: baseUrl,
    toSubmission,
    handle,

    async submit(request: JobRequest, submitOptions: SubmitOptions = {}): Promise<RayJobHandle> {
      if (closed) throw new FrayError('FRAY_BACKEND_UNAVAILABLE', 'ray client is shut down', { retryable: false });
      const submission = toSubmission(request);
      const id = submission.submission_id;
      try {
        await api.submit(submission);
      } catch (e) {
        // Ray answers a duplicate submission id with a server error; whether the job exists decides.
        if (!FrayError.hasCode(e, 'FRAY_BACKEND_UNAVAILABLE') || (e.details['status'] === undefined) || (await api.get(id)) === null) throw e;
        const existing = handle(id);
        if (!(submitOptions.adoptExisting ?? true)) throw new JobAlreadyExists(request.name, existing, e);
        handles.push(existing);
        return existing;
      }
      const h = handle(id);
      handles.push(h);
      // Inside a Fray job on Ray, children must not outlive this process when Ray stops it.
      if (parentId !== null) stopWithProcess(api, id);
      return h;
    },

    async list(listOptions: { all?: boolean } = {}): Promise<RayJobInfo[]> {
      const jobs = await api.list();
      return listOptions.all === true ? jobs : jobs.filter((j) => j.submissionId.startsWith(jobPrefix));
    },

    async shutdown(shutdownOptions: { wait?: boolean } = {}): Promise<void> {
      if (closed) return;
      closed = true;
      // Cluster jobs outlive the submitter unless the caller waits for them; shutdown never stops them.
      if (shutdownOptions.wait ?? true) await Promise.all(handles.map((h) => h.wait({ raiseOnFailure: false }).catch(() => undefined)));
    },

    close(): Promise<void> {
      return client.shutdown({ wait: false });
    },

    [Symbol.asyncDispose](): Promise<void> {
      return client.shutdown({ wait: false });
    },
  };
  return client;
}
