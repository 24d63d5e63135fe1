/** What a task knows about itself, from the `IRIS_*` environment. */
export interface IrisTaskContext {
  readonly jobId: string;
  readonly taskId: string;
  readonly taskIndex: number;
  readonly numTasks: number;
  readonly attemptId: number;
  readonly attemptUid: string;
  readonly user: string;
  readonly workerId: string;
  /** The controller as seen from the worker. */
  readonly controllerAddress: string;
  /** Present when auth is on; lets the task submit children. */
  readonly authToken: string | undefined;
  readonly bundleId: string;
  readonly workdir: string;
  /** Named ports, by name as given at submit (upper-cased). */
  readonly ports: Readonly<Record<string, number>>;
  /** Gang placement of coscheduled jobs, else null. */
  readonly gang: { readonly rank: number; readonly size: number; readonly hosts: readonly string[]; readonly sliceIndex: number; readonly numSlices: number } | null;
}

/** The enclosing task's context from `IRIS_*` variables, or null outside a task. */
export function irisContext(env: NodeJS.ProcessEnv = process.env): IrisTaskContext | null {
  const taskId = env['IRIS_TASK_ID'];
  const jobId = env['IRIS_JOB_ID'];
  if (!taskId || !jobId) return null;
  const int = (k: string, d = 0) => {
    const n = Number(env[k]);
    return Number.isFinite(n) ? n : d;
  };
  const ports: Record<string, number> = {};
  for (const [k, v] of Object.entries(env)) if (k.startsWith('IRIS_PORT_') && v) ports[k.slice('IRIS_PORT_'.length)] = Number(v);
  return {
    jobId,
    taskId,
    taskIndex: int('IRIS_TASK_INDEX'),
    numTasks: int('IRIS_NUM_TASKS', 1),
    attemptId: int('IRIS_ATTEMPT_ID'),
    attemptUid: env['IRIS_ATTEMPT_UID'] ?? '',
    user: env['IRIS_USER'] ?? '',
    workerId: env['IRIS_WORKER_ID'] ?? '',
    controllerAddress: env['IRIS_CONTROLLER_ADDRESS'] ?? '',
    authToken: env['IRIS_AUTH_TOKEN'] || undefined,
    bundleId: env['IRIS_BUNDLE_ID'] ?? '',
    workdir: env['IRIS_WORKDIR'] ?? '',
    ports,
    gang:
      env['IRIS_GANG_RANK'] === undefined
        ? null
        : {
            rank: int('IRIS_GANG_RANK'),
            size: int('IRIS_GANG_SIZE', 1),
            hosts: (env['IRIS_GANG_HOSTS'] ?? '').split(',').filter((h) => h !== ''),
            sliceIndex: int('IRIS_SLICE_INDEX'),
            numSlices: int('IRIS_NUM_SLICES', 1),
          },
  };
}
