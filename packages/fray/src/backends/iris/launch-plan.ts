import { canonicalGpuVariant, resolveCoscheduling } from '@marin/iris/core';
import type { Constraint, Coscheduling } from '@marin/iris/core';
import { FrayError } from '../../errors.js';
import type { BinaryEntrypoint, Entrypoint, ModuleEntrypoint } from '../../request/entrypoint.js';
import type { ResolvedJobRequest } from '../../request/job-request.js';
import type { DeviceSpec, ResourceConfig } from '../../resources/resource-config.js';
import { tpuShapeOf } from '../../resources/tpu-shape.js';
import { MODULE_ARGS_FILE, MODULE_RUNNER_FILE, moduleRunnerArgs, moduleRunnerNodeFlags, moduleRunnerSource } from '../../runner/module-runner.js';
import { withDeviceDefaults } from './device-env.js';

/** The device of an Iris resource spec: TPU `count` is chips per VM (per task). */
export type IrisDevice =
  | { readonly kind: 'cpu' }
  | { readonly kind: 'gpu'; readonly variant: string; readonly count: number }
  | { readonly kind: 'tpu'; readonly variant: string; readonly count: number; readonly topology?: string };

/** What Fray asks Iris for, in Iris's units; the backend hands it to the Iris client. */
export interface IrisLaunchPlan {
  /** One name component; the client makes it `/<user>/<name>` or, inside a task, a child of the task's job. */
  readonly name: string;
  readonly cpuMillicores: number;
  readonly memoryBytes: number;
  readonly diskBytes: number;
  readonly device: IrisDevice;
  readonly replicas: number;
  readonly constraints: readonly Constraint[];
  readonly coscheduling: Coscheduling | null;
  readonly envVars: Readonly<Record<string, string>>;
  readonly argv: readonly string[];
  /** Files written into the task's working directory (the module runner and its args). */
  readonly workdirFiles: Readonly<Record<string, string>>;
  readonly maxRetriesFailure: number;
  readonly maxRetriesPreemption: number;
  readonly existingJobPolicy: 'KEEP' | 'UNSPECIFIED';
  /** The job's Python environment (lock content, version, name); workers build it once per lock hash. */
  readonly pythonEnv: { readonly lock: string; readonly pythonVersion: string; readonly name: string } | null;
  /** Scheduling band; null = the parent's band (INTERACTIVE for a root job). */
  readonly priority: 'PRODUCTION' | 'INTERACTIVE' | 'BATCH' | null;
}

/** Iris's canonical lower-case GPU name (`A100-80G` → `a100`); unknown names are passed on lower-cased. */
function irisGpuVariant(variant: string): string {
  return canonicalGpuVariant(variant) ?? variant.toLowerCase();
}

/** Converts a device: TPU count = chips per VM from the topology table. */
export function irisDeviceOf(device: DeviceSpec): IrisDevice {
  if (device.kind === 'cpu') return { kind: 'cpu' };
  if (device.kind === 'gpu') return { kind: 'gpu', variant: irisGpuVariant(device.variant), count: device.count };
  const count = tpuShapeOf(device).chipsPerVm;
  return device.topology === undefined ? { kind: 'tpu', variant: device.variant, count } : { kind: 'tpu', variant: device.variant, count, topology: device.topology };
}

/**
 * Placement constraints of a resource config: `preemptible EQ "false"` when not preemptible; `region EQ r` for one
 * region, `region IN [...]` for several; `zone EQ z`; `device-variant IN [primary, ...alternatives]` with
 * alternatives (it replaces the derived `EQ` on the same key).
 */
export function irisConstraintsOf(resources: ResourceConfig): Constraint[] {
  const out: Constraint[] = [];
  if (!resources.preemptible) out.push({ key: 'preemptible', op: 'EQ', value: 'false' });
  const regions = resources.regions ?? [];
  if (regions.length === 1) out.push({ key: 'region', op: 'EQ', value: regions[0] as string });
  else if (regions.length > 1) out.push({ key: 'region', op: 'IN', values: [...regions] });
  if (resources.zone !== undefined) out.push({ key: 'zone', op: 'EQ', value: resources.zone });
  const alternatives = resources.deviceAlternatives ?? [];
  if (alternatives.length > 0 && resources.device.kind !== 'cpu') {
    const primary = resources.device.kind === 'gpu' ? irisGpuVariant(resources.device.variant) : resources.device.variant;
    // TPU alternatives are canonical names already (the ResourceConfig resolved them).
    const rest = alternatives.map((a) => (resources.device.kind === 'gpu' ? irisGpuVariant(a) : a));
    out.push({ key: 'device-variant', op: 'IN', values: [...new Set([primary, ...rest])] });
  }
  return out;
}

/** Coscheduling of a job (Iris's replica rules): multi-VM TPU → `tpu-name` gangs; GPU with replicas > 1 → `pool`. */
export function irisCoschedulingOf(device: DeviceSpec, replicas: number): Coscheduling | null {
  if (replicas <= 1) return null;
  return resolveCoscheduling(irisDeviceOf(device), replicas);
}

/** The command and workdir files of a portable entrypoint. */
export function irisCommandOf(entrypoint: Entrypoint, jobName: string): { argv: string[]; workdirFiles: Record<string, string> } {
  let ep: BinaryEntrypoint | ModuleEntrypoint;
  if (entrypoint.kind === 'callable') {
    if (entrypoint.reentry === undefined) {
      throw new FrayError(
        'FRAY_ENTRYPOINT_NOT_PORTABLE',
        `job "${jobName}" is a callable without a reentry entrypoint; remote backends cannot ship closures (use a module entrypoint or remote(fn, { entry }))`,
        { details: { name: jobName } },
      );
    }
    ep = entrypoint.reentry;
  } else {
    ep = entrypoint;
  }
  if (ep.kind === 'binary') return { argv: [ep.command, ...ep.args], workdirFiles: { ...(ep.files ?? {}) } };
  return {
    argv: ['node', ...moduleRunnerNodeFlags(ep.module), MODULE_RUNNER_FILE, MODULE_ARGS_FILE],
    workdirFiles: { [MODULE_RUNNER_FILE]: moduleRunnerSource(), [MODULE_ARGS_FILE]: moduleRunnerArgs(ep) },
  };
}

/**
 * Converts a resolved Fray request into Iris's terms: resources in millicores and bytes, constraints,
 * coscheduling, env with device defaults, command and workdir files, retry limits, the existing-job policy and the
 * Python environment.
 *
 * @throws {FrayError} FRAY_ENTRYPOINT_NOT_PORTABLE for a callable without `reentry`
 */
export function buildIrisLaunchPlan(request: ResolvedJobRequest, options: { adoptExisting: boolean }): IrisLaunchPlan {
  const { resources } = request;
  const command = irisCommandOf(request.entrypoint, request.name);
  return {
    name: request.name,
    cpuMillicores: Math.round(resources.cpu * 1000),
    memoryBytes: resources.ramBytes(),
    diskBytes: resources.diskBytes(),
    device: irisDeviceOf(resources.device),
    replicas: request.replicas,
    constraints: irisConstraintsOf(resources),
    coscheduling: irisCoschedulingOf(resources.device, request.replicas),
    envVars: withDeviceDefaults(request.environment.envVars ?? {}, resources.device),
    argv: command.argv,
    workdirFiles: command.workdirFiles,
    maxRetriesFailure: request.maxRetriesFailure,
    maxRetriesPreemption: request.maxRetriesPreemption,
    existingJobPolicy: options.adoptExisting ? 'KEEP' : 'UNSPECIFIED',
    priority: request.priority ?? null,
    pythonEnv:
      request.pythonEnv === undefined
        ? null
        : { lock: request.pythonEnv.lock, pythonVersion: request.pythonEnv.pythonVersion, name: request.pythonEnv.name },
  };
}
