import { FRAY_JOB_ENV } from '../../client/job-context.js';
import type { ResolvedJobRequest } from '../../request/job-request.js';
import type { TpuTopology } from '@marin/iris/core';
import type { DeviceSpec, ResourceConfig } from '../../resources/resource-config.js';
import { tpuShape, tpuShapeOf } from '../../resources/tpu-shape.js';
import { withDeviceDefaults } from '../iris/device-env.js';
import { irisCommandOf } from '../iris/launch-plan.js';
import { GANG_DRIVER_ENV, GANG_DRIVER_SOURCE, GANG_SPEC_ENV } from './gang-driver.js';
import { PYTHON_ENV_LAUNCHER_ENV, PYTHON_ENV_SPEC_ENV, launchedPythonEnv, pythonEnvLauncherSource, withPythonEnvLauncher } from './python-env-launcher.js';
import { shellJoin, shellQuote } from './shell-quote.js';

/** The body of Ray's `POST /api/jobs/` (Ray's field names). */
export interface RayJobSubmission {
  readonly submission_id: string;
  readonly entrypoint: string;
  readonly runtime_env: { readonly env_vars: Readonly<Record<string, string>>; readonly [key: string]: unknown };
  readonly metadata: Readonly<Record<string, string>>;
  readonly entrypoint_num_cpus?: number;
  readonly entrypoint_num_gpus?: number;
  readonly entrypoint_memory?: number;
  readonly entrypoint_resources?: Readonly<Record<string, number>>;
}

/** One replica's Ray resources: what a task of the job reserves. */
export interface RayResources {
  readonly CPU: number;
  readonly memory: number;
  readonly GPU?: number;
  /** Custom resources: `TPU` chips per VM, and `TPU-<variant>-head` on the first VM of each slice. */
  readonly custom: Readonly<Record<string, number>>;
}

/** Options of {@link buildRaySubmission}. */
export interface RaySubmissionOptions {
  /** Ray's submission id: `<prefix><name>`. */
  readonly submissionId: string;
  /** Where the job runs on the cluster (`cd` before the command); the workspace, as on Iris in place. */
  readonly workdir: string;
  /** Extra env for every job (the dashboard address for nested submissions). */
  readonly env: Readonly<Record<string, string>>;
  /** Merged into `runtime_env` (e.g. `working_dir`, `py_modules`); `env_vars` is always Fray's. */
  readonly runtimeEnv: Readonly<Record<string, unknown>>;
  /** The Python on the cluster that can `import ray`, for the gang driver. */
  readonly python: string;
  /** Where nodes build and keep the environments of jobs with a `pythonEnv`. @default each node's own default */
  readonly pythonEnvCacheDir?: string;
  /** Fray's id of the job that submits this one (inside a Fray job on Ray), kept as `metadata.fray_parent`. */
  readonly parentId?: string;
}

/** The custom resource Ray's TPU support puts on the first VM of every slice. */
export function tpuHeadResource(variant: string): string {
  return headResourceOf(tpuShape(variant));
}

function headResourceOf(tpu: TpuTopology): string {
  return `TPU-${tpu.name}-head`;
}

/**
 * One replica's resources in Ray's terms: `CPU` = cpu, `memory` = ram bytes, `GPU` = count, and for TPU `TPU` =
 * chips per VM. Disk, regions, zone and preemptibility have no Ray equivalent and are not sent.
 */
export function rayResourcesOf(resources: ResourceConfig): RayResources {
  const device: DeviceSpec = resources.device;
  const base = { CPU: resources.cpu, memory: resources.ramBytes() };
  if (device.kind === 'gpu') return { ...base, GPU: device.count, custom: {} };
  if (device.kind === 'tpu') return { ...base, custom: { TPU: tpuShapeOf(device).chipsPerVm } };
  return { ...base, custom: {} };
}

/**
 * Converts a resolved request into Ray's submission: a single task reserves its resources as the entrypoint's
 * (`entrypoint_num_cpus`, `_num_gpus`, `_memory`, `_resources` with `TPU` and, for a one-VM slice, the slice's
 * `TPU-<variant>-head`); a gang (replicas > 1) is one job whose Python driver places the replicas in a placement
 * group. The entrypoint `cd`s to the workdir, writes the command's files into a private temp dir and runs the
 * command with every argument shell-quoted. A job with a `pythonEnv` runs its command through the Python-environment
 * launcher (`python-env-launcher.ts`), which builds or finds the environment on the node first.
 *
 * @throws {FrayError} FRAY_ENTRYPOINT_NOT_PORTABLE for a callable without `reentry`
 */
export function buildRaySubmission(request: ResolvedJobRequest, options: RaySubmissionOptions): RayJobSubmission {
  const command = irisCommandOf(request.entrypoint, request.name);
  const { workdirFiles } = command;
  const { resources, replicas, pythonEnv } = request;
  const argv = pythonEnv === undefined ? command.argv : withPythonEnvLauncher(command.argv);
  const env: Record<string, string> = {
    ...withDeviceDefaults(request.environment.envVars ?? {}, resources.device),
    ...options.env,
    [FRAY_JOB_ENV.jobId]: options.submissionId,
    [FRAY_JOB_ENV.taskIndex]: '0',
    [FRAY_JOB_ENV.numTasks]: String(replicas),
  };
  const metadata: Record<string, string> = { fray_name: request.name, fray_replicas: String(replicas) };
  if (options.parentId !== undefined) metadata['fray_parent'] = options.parentId;
  if (pythonEnv !== undefined) {
    env[PYTHON_ENV_SPEC_ENV] = JSON.stringify(launchedPythonEnv(pythonEnv, options.pythonEnvCacheDir));
    env[PYTHON_ENV_LAUNCHER_ENV] = pythonEnvLauncherSource();
    metadata['fray_python_env'] = pythonEnv.name;
  }
  const runtimeEnv = { ...options.runtimeEnv, env_vars: env };
  const ray = rayResourcesOf(resources);
  const cd = `cd ${shellQuote(options.workdir)}`;
  if (replicas === 1) {
    const custom: Record<string, number> = { ...ray.custom };
    const tpu = resources.device.kind === 'tpu' ? tpuShapeOf(resources.device) : undefined;
    if (tpu !== undefined && tpu.vmCount === 1) custom[headResourceOf(tpu)] = 1;
    return {
      submission_id: options.submissionId,
      entrypoint: singleTaskScript(cd, argv, workdirFiles),
      runtime_env: runtimeEnv,
      metadata,
      entrypoint_num_cpus: ray.CPU,
      entrypoint_memory: ray.memory,
      ...(ray.GPU === undefined ? {} : { entrypoint_num_gpus: ray.GPU }),
      ...(Object.keys(custom).length === 0 ? {} : { entrypoint_resources: custom }),
    };
  }
  const spec = {
    argv,
    files: workdirFiles,
    cwd: options.workdir,
    env: {},
    bundles: gangBundles(resources, replicas),
    // Multi-VM TPU replicas must land on distinct hosts; Ray cannot also keep them within one slice.
    strategy: resources.device.kind === 'tpu' && tpuShapeOf(resources.device).vmCount > 1 ? 'STRICT_SPREAD' : 'SPREAD',
  };
  return {
    submission_id: options.submissionId,
    // The driver and its spec travel as env vars, so Ray's "Running entrypoint" line stays one readable line.
    entrypoint: `${cd} && exec ${shellQuote(options.python)} -c "$${GANG_DRIVER_ENV}"`,
    runtime_env: { ...runtimeEnv, env_vars: { ...env, [GANG_DRIVER_ENV]: GANG_DRIVER_SOURCE, [GANG_SPEC_ENV]: JSON.stringify(spec) } },
    metadata,
  };
}

function gangBundles(resources: ResourceConfig, replicas: number): Record<string, number>[] {
  const ray = rayResourcesOf(resources);
  const tpu = resources.device.kind === 'tpu' ? tpuShapeOf(resources.device) : undefined;
  const vmCount = tpu?.vmCount ?? 1;
  return Array.from({ length: replicas }, (_, i) => {
    const bundle: Record<string, number> = { CPU: ray.CPU, memory: ray.memory, ...ray.custom };
    if (ray.GPU !== undefined) bundle['GPU'] = ray.GPU;
    // The first VM of every slice holds the slice's head resource, so each slice's gang starts on a real slice head.
    if (tpu !== undefined && i % vmCount === 0) bundle[headResourceOf(tpu)] = 1;
    return bundle;
  });
}

function singleTaskScript(cd: string, argv: readonly string[], files: Readonly<Record<string, string>>): string {
  const names = Object.keys(files);
  if (names.length === 0) return `${cd} && exec ${shellJoin(argv)}`;
  // Files go to a private dir on the node that runs the job; arguments naming a file are replaced by its path.
  const writes = names.map((n) => `printf '%s' ${shellQuote(files[n] as string)} > "$FRAY_FILES/"${shellQuote(n)}`);
  const args = argv.map((a) => (Object.hasOwn(files, a) ? `"$FRAY_FILES/"${shellQuote(a)}` : shellQuote(a)));
  return [
    `${cd} && FRAY_FILES=$(mktemp -d) && trap 'rm -rf "$FRAY_FILES"' EXIT`,
    ...writes,
    args.join(' '),
  ].join(' && ');
}
