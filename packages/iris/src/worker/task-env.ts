import { join } from 'node:path';

/** Variables copied from the daemon's own environment into every task. */
export const INHERITED_ENV_KEYS = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LC_ALL', 'TZ', 'TERM'] as const;

/** Gang placement of a coscheduled attempt. */
export interface TaskGang {
  /** The `group_by` value shared by the gang, e.g. the `tpu-name`. */
  groupValue: string;
  rank: number;
  groupSize: number;
  sliceIndex: number;
  numSlices: number;
  /** Hosts of the group's members, by rank. */
  peerHosts: readonly string[];
}

/** Everything {@link buildTaskEnv} needs to know about one attempt. */
export interface TaskEnvInput {
  /** The daemon's environment (usually `process.env`); only {@link INHERITED_ENV_KEYS} are read. */
  daemonEnv: Readonly<Record<string, string | undefined>>;
  workdir: string;
  /** The worker's `--task-env K=V` settings. */
  taskEnv: Readonly<Record<string, string>>;
  /** The job's `env_vars`. */
  jobEnv: Readonly<Record<string, string>>;
  jobId: string;
  taskId: string;
  taskIndex: number;
  numTasks: number;
  attemptId: number;
  attemptUid: string;
  user: string;
  workerId: string;
  controllerAddress: string;
  /** Shared token when auth is on. */
  authToken?: string | undefined;
  advertiseHost: string;
  bundleId: string;
  /** Named ports allocated for this attempt. */
  ports: Readonly<Record<string, number>>;
  dependencyGroups: readonly string[];
  /** The job's constraints as JSON-ready data, for child inheritance. */
  constraints: unknown;
  /** The worker's attributes (region and zone are copied when present). */
  workerAttributes: Readonly<Record<string, string | number>>;
  gang?: TaskGang | undefined;
  /** TPU identity of the worker (real or simulated); sets the `TPU_*` variables. */
  tpu?: { name: string; workerId: number; acceleratorType: string } | undefined;
}

/** Upper-cases a port name and turns every other character into `_`: `http-api` → `HTTP_API`. */
export function portEnvName(name: string): string {
  return `IRIS_PORT_${name.toUpperCase().replace(/[^A-Z0-9_]/g, '_')}`;
}

/**
 * Builds a task's complete environment: daemon basics, `TMPDIR`, the worker's task env, the
 * job's env, then the `IRIS_*` and `TPU_*` variables, which nothing earlier can override.
 */
export function buildTaskEnv(input: TaskEnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED_ENV_KEYS) {
    const value = input.daemonEnv[key];
    if (value !== undefined) env[key] = value;
  }
  const binDir = join(input.workdir, 'node_modules', '.bin');
  env['PATH'] = env['PATH'] === undefined || env['PATH'] === '' ? binDir : `${binDir}:${env['PATH']}`;
  env['TMPDIR'] = join(input.workdir, '.tmp');
  const reserved = (key: string): boolean => key.startsWith('IRIS_');
  for (const [key, value] of Object.entries(input.taskEnv)) if (!reserved(key)) env[key] = value;
  for (const [key, value] of Object.entries(input.jobEnv)) if (!reserved(key)) env[key] = value;
  // A task's stray IRIS_* keys are dropped above, so only what the worker sets below is ever seen.
  Object.assign(env, {
    IRIS_JOB_ID: input.jobId,
    IRIS_TASK_ID: input.taskId,
    IRIS_TASK_INDEX: String(input.taskIndex),
    IRIS_NUM_TASKS: String(input.numTasks),
    IRIS_ATTEMPT_ID: String(input.attemptId),
    IRIS_ATTEMPT_UID: input.attemptUid,
    IRIS_USER: input.user,
    IRIS_WORKER_ID: input.workerId,
    IRIS_CONTROLLER_ADDRESS: input.controllerAddress,
    IRIS_ADVERTISE_HOST: input.advertiseHost,
    IRIS_BUNDLE_ID: input.bundleId,
    IRIS_WORKDIR: input.workdir,
    IRIS_JOB_ENV: JSON.stringify(input.jobEnv),
    IRIS_JOB_DEPENDENCY_GROUPS: JSON.stringify(input.dependencyGroups),
    IRIS_JOB_CONSTRAINTS: JSON.stringify(input.constraints ?? []),
  });
  if (input.authToken !== undefined && input.authToken !== '') env['IRIS_AUTH_TOKEN'] = input.authToken;
  for (const [name, port] of Object.entries(input.ports)) env[portEnvName(name)] = String(port);
  const region = input.workerAttributes['region'];
  const zone = input.workerAttributes['zone'];
  if (region !== undefined) env['IRIS_WORKER_REGION'] = String(region);
  if (zone !== undefined) env['IRIS_WORKER_ZONE'] = String(zone);
  if (input.gang !== undefined) {
    env['IRIS_GANG_RANK'] = String(input.gang.rank);
    env['IRIS_GANG_SIZE'] = String(input.gang.groupSize);
    env['IRIS_GANG_HOSTS'] = input.gang.peerHosts.join(',');
    env['IRIS_SLICE_INDEX'] = String(input.gang.sliceIndex);
    env['IRIS_NUM_SLICES'] = String(input.gang.numSlices);
  }
  if (input.tpu !== undefined) {
    env['TPU_NAME'] = input.tpu.name;
    env['TPU_WORKER_ID'] = String(input.tpu.workerId);
    env['TPU_ACCELERATOR_TYPE'] = input.tpu.acceleratorType;
    const hosts = input.gang?.peerHosts ?? [input.advertiseHost];
    env['TPU_WORKER_HOSTNAMES'] = hosts.join(',');
  }
  return env;
}
