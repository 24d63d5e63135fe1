import { userInfo } from 'node:os';
import { z } from 'zod';
import { IrisError } from '../errors.js';
import { LaunchJobRequest } from '../gen/iris/v1/controller.js';
import { ExistingJobPolicy, JobPreemptionPolicy, PriorityBand } from '../gen/iris/v1/types.js';
import type { DeviceConfig } from '../gen/iris/v1/types.js';
import { constraintToProto } from '../wire/constraint-proto.js';
import { coresToMillicores, parseSize } from '../core/sizes.js';

const ConstraintSchema = z.object({
  key: z.string().min(1),
  op: z.enum(['EQ', 'NE', 'EXISTS', 'NOT_EXISTS', 'GT', 'GE', 'LT', 'LE', 'IN']),
  value: z.union([z.string(), z.number()]).optional(),
  values: z.array(z.union([z.string(), z.number()])).optional(),
  mode: z.enum(['REQUIRED', 'PREFERRED']).optional(),
});

const DeviceSchema = z.union([
  z.object({ kind: z.literal('cpu') }),
  z.object({ kind: z.literal('gpu'), variant: z.string().default('auto'), count: z.number().int().positive().default(1) }),
  z.object({ kind: z.literal('tpu'), variant: z.string().min(1), topology: z.string().optional(), count: z.number().int().nonnegative().optional() }),
]);

const ReservationEntrySchema = z.object({
  resources: z
    .object({
      cpu: z.union([z.number(), z.string()]).optional(),
      memory: z.union([z.number(), z.string()]).optional(),
      device: DeviceSchema.optional(),
    })
    .optional(),
  constraints: z.array(ConstraintSchema).optional(),
});

/** A job submission in domain terms; `createIrisClient().launchJob` turns it into a `LaunchJobRequest`. */
export const JobSpecSchema = z
  .object({
    /** Absolute (`/alice/train`) or relative: inside a task it becomes a child of the enclosing job, else `/<user>/<name>`. */
    name: z.string().min(1, { message: 'name must not be empty' }),
    /** @default explicit → IRIS_USER → the enclosing task's user → OS user → "root" */
    user: z.string().min(1).optional(),
    /** The command to run (argv, no shell). Give this or `entrypoint`. */
    command: z.array(z.string()).min(1).optional(),
    entrypoint: z
      .object({
        run: z.array(z.string()).min(1),
        setup: z.array(z.array(z.string()).min(1)).optional(),
        workdirFiles: z.record(z.string(), z.union([z.string(), z.instanceof(Buffer)])).optional(),
      })
      .optional(),
    /** Per-task resources: cores, sizes as strings (`8g`) or bytes, and a device. */
    resources: z
      .object({
        cpu: z.union([z.number(), z.string()]).optional(),
        memory: z.union([z.number(), z.string()]).optional(),
        disk: z.union([z.number(), z.string()]).optional(),
        device: DeviceSchema.optional(),
      })
      .optional(),
    /** At least 1. @default 1 (TPU multi-VM variants: vm_count) */
    replicas: z.number().int().min(1, { message: 'replicas must be >= 1' }).optional(),
    constraints: z.array(ConstraintSchema).optional(),
    coscheduling: z.object({ groupBy: z.string().min(1), tasksPerGroup: z.number().int().nonnegative().default(0) }).optional(),
    env: z.record(z.string(), z.string()).optional(),
    dependencyGroups: z.array(z.string()).optional(),
    npmPackages: z.array(z.string()).optional(),
    /**
     * A Python environment for the tasks: the content of a requirements lock of exact pins, built once per lock
     * hash on each worker with uv and activated for the task (`VIRTUAL_ENV`, `PATH`). A child job without one
     * inherits its parent's.
     */
    pythonEnv: z
      .object({
        lock: z.string().refine((l) => l.trim() !== '', { message: 'pythonEnv.lock must not be empty' }),
        /** @default '3.11' */
        pythonVersion: z.string().regex(/^\d+(\.\d+){0,2}$/, { message: 'pythonEnv.pythonVersion must look like 3, 3.11 or 3.11.7' }).optional(),
        /** How logs and errors name the lock. @default 'requirements.lock' */
        name: z.string().min(1).optional(),
      })
      .optional(),
    ports: z.array(z.string()).optional(),
    /** @default 0 */
    maxTaskFailures: z.number().int().nonnegative().optional(),
    /** @default 0 */
    maxRetriesFailure: z.number().int().nonnegative().optional(),
    /** @default 100 */
    maxRetriesPreemption: z.number().int().nonnegative().optional(),
    /** Per-attempt timeout; 0 = none. */
    timeoutMs: z.number().int().nonnegative().optional(),
    /** 0 = wait forever. */
    schedulingTimeoutMs: z.number().int().nonnegative().optional(),
    existingJobPolicy: z.enum(['UNSPECIFIED', 'ERROR', 'KEEP', 'RECREATE']).optional(),
    preemptionPolicy: z.enum(['UNSPECIFIED', 'TERMINATE_CHILDREN', 'PRESERVE_CHILDREN']).optional(),
    /**
     * Scheduling band: PRODUCTION preempts INTERACTIVE and BATCH, INTERACTIVE preempts BATCH, BATCH
     * never preempts. `INHERIT` takes the parent's band. @default the parent's band, INTERACTIVE for a root job
     */
    priority: z.enum(['PRODUCTION', 'INTERACTIVE', 'BATCH', 'INHERIT']).optional(),
    /**
     * Workers to claim before the job's tasks are placed, one per entry (each able to host the entry's
     * resources and meeting its constraints). Claimed workers take only this job and its descendants.
     */
    reservation: z.object({ entries: z.array(ReservationEntrySchema).min(1) }).optional(),
    /** Bookkeeping: the command line that submitted the job. */
    submitArgv: z.array(z.string()).optional(),
    /** Run in this directory as it is, with no bundle and no setup (embedded clusters sharing the workspace). */
    inPlaceWorkdir: z.string().min(1).optional(),
  })
  .refine((s) => s.command !== undefined || s.entrypoint !== undefined, { message: 'give command or entrypoint', path: ['command'] });

/** What callers pass to `launchJob`. */
export type JobSpec = z.input<typeof JobSpecSchema>;

/** The submitting user when a spec names none. */
export function defaultUser(env: NodeJS.ProcessEnv = process.env): string {
  if (env['IRIS_USER']) return env['IRIS_USER'];
  try {
    return userInfo().username || 'root';
  } catch {
    return 'root';
  }
}

/** Resolves a spec's name to a full job id: inside a task a relative name becomes a child of that task. */
export function resolveJobName(name: string, user: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (name.startsWith('/')) return name;
  const parent = env['IRIS_JOB_ID'];
  if (parent && env['IRIS_TASK_ID']) return `${parent}/${name}`;
  return `/${user ?? defaultUser(env)}/${name}`;
}

function deviceToProto(d: z.output<typeof DeviceSchema> | undefined): DeviceConfig | undefined {
  if (!d) return undefined;
  if (d.kind === 'cpu') return { kind: { $case: 'cpu', value: { variant: '' } } };
  if (d.kind === 'gpu') return { kind: { $case: 'gpu', value: { variant: d.variant.toLowerCase(), count: d.count } } };
  return { kind: { $case: 'tpu', value: { variant: d.variant, topology: d.topology ?? '', count: d.count ?? 0 } } };
}

/**
 * Validates a {@link JobSpec} and builds the wire request.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT naming the bad field.
 */
export function jobSpecToRequest(spec: JobSpec, bundleId: string, env: NodeJS.ProcessEnv = process.env): LaunchJobRequest {
  const parsed = JobSpecSchema.safeParse(spec);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new IrisError('IRIS_INVALID_ARGUMENT', `job spec ${issue?.path.join('.') || ''}: ${issue?.message}`.replace('spec :', 'spec:'), {
      details: { issues: parsed.error.issues },
    });
  }
  const s = parsed.data;
  const run = s.entrypoint?.run ?? s.command!;
  const files: Record<string, Buffer> = {};
  for (const [k, v] of Object.entries(s.entrypoint?.workdirFiles ?? {})) files[k] = typeof v === 'string' ? Buffer.from(v) : v;
  const policy = { UNSPECIFIED: 0, ERROR: 1, KEEP: 2, RECREATE: 3 }[s.existingJobPolicy ?? 'UNSPECIFIED'] as ExistingJobPolicy;
  const preemption = { UNSPECIFIED: 0, TERMINATE_CHILDREN: 1, PRESERVE_CHILDREN: 2 }[s.preemptionPolicy ?? 'UNSPECIFIED'] as JobPreemptionPolicy;
  return LaunchJobRequest.fromPartial({
    name: resolveJobName(s.name, s.user, env),
    entrypoint: {
      run: { argv: run },
      setupCommands: (s.entrypoint?.setup ?? []).map((argv) => ({ argv })),
      workdirFiles: files,
      inPlace: s.inPlaceWorkdir !== undefined,
      workdir: s.inPlaceWorkdir ?? '',
    },
    resources: {
      cpuMillicores: s.resources?.cpu === undefined ? 0 : coresToMillicores(s.resources.cpu, 'resources.cpu'),
      memoryBytes: s.resources?.memory === undefined ? 0 : parseSize(s.resources.memory, 'resources.memory'),
      diskBytes: s.resources?.disk === undefined ? 0 : parseSize(s.resources.disk, 'resources.disk'),
      device: deviceToProto(s.resources?.device),
    },
    environment: {
      envVars: s.env ?? {},
      dependencyGroups: s.dependencyGroups ?? [],
      npmPackages: s.npmPackages ?? [],
      pythonEnv:
        s.pythonEnv === undefined ? undefined : { lock: s.pythonEnv.lock, pythonVersion: s.pythonEnv.pythonVersion ?? '', name: s.pythonEnv.name ?? '' },
    },
    bundleId,
    replicas: s.replicas ?? 0,
    constraints: (s.constraints ?? []).map(constraintToProto),
    coscheduling: s.coscheduling,
    ports: s.ports ?? [],
    maxTaskFailures: s.maxTaskFailures ?? 0,
    maxRetriesFailure: s.maxRetriesFailure ?? 0,
    maxRetriesPreemption: s.maxRetriesPreemption,
    timeoutMs: s.timeoutMs ?? 0,
    schedulingTimeoutMs: s.schedulingTimeoutMs ?? 0,
    existingJobPolicy: policy,
    preemptionPolicy: preemption,
    submitArgv: s.submitArgv ?? [],
    user: s.user ?? '',
    priorityBand: s.priority === undefined ? PriorityBand.PRIORITY_BAND_UNSPECIFIED : PriorityBand[`PRIORITY_BAND_${s.priority}`],
    reservation:
      s.reservation === undefined
        ? undefined
        : {
            entries: s.reservation.entries.map((e) => ({
              resources: {
                cpuMillicores: e.resources?.cpu === undefined ? 0 : coresToMillicores(e.resources.cpu, 'reservation.resources.cpu'),
                memoryBytes: e.resources?.memory === undefined ? 0 : parseSize(e.resources.memory, 'reservation.resources.memory'),
                diskBytes: 0,
                device: deviceToProto(e.resources?.device),
              },
              constraints: (e.constraints ?? []).map(constraintToProto),
            })),
          },
  });
}
