import { z } from 'zod';
import { IrisError } from '../errors.js';
import type { LaunchJobRequest } from '../gen/iris/v1/controller.js';
import { ConstraintMode, ConstraintOp } from '../gen/iris/v1/types.js';
import type { Constraint } from '../gen/iris/v1/types.js';
import { canonicalGpuVariant } from '../core/device-constraints.js';
import type { ResolvedDevice } from '../core/resolved-device.js';
import { parseJobName } from '../core/job-names.js';
import { resolvedDeviceOf } from './request-resources.js';

const MAX_ENV_VALUE_BYTES = 128 * 1024;
const MAX_PYTHON_LOCK_BYTES = 1024 * 1024;
const MAX_RESERVATION_ENTRIES = 1024;
const PYTHON_VERSION_RE = /^(\d+(\.\d+){0,2})?$/;
const nonNegative = (field: string) => z.number().int().nonnegative({ message: `${field} must be >= 0` });
// int64 fields arrive as JS numbers; past 2^53 they are no longer exact, so they are out of range.
const bytesOrMs = (field: string) => nonNegative(field).max(Number.MAX_SAFE_INTEGER, { message: `${field} is out of range (max ${Number.MAX_SAFE_INTEGER})` });

const RequestSchema = z.object({
  name: z.string().min(1, { message: 'name must not be empty' }),
  resources: z.object({
    cpuMillicores: nonNegative('resources.cpu_millicores'),
    memoryBytes: bytesOrMs('resources.memory_bytes'),
    diskBytes: bytesOrMs('resources.disk_bytes'),
  }),
  // 0 is proto3's "unset" and means 1; a negative count is a mistake, not a request for one task.
  replicas: z.number().int().nonnegative({ message: 'replicas must be >= 1 (0 on the wire means 1)' }),
  maxTaskFailures: nonNegative('max_task_failures'),
  maxRetriesFailure: nonNegative('max_retries_failure'),
  maxRetriesPreemption: nonNegative('max_retries_preemption').optional(),
  timeoutMs: bytesOrMs('timeout_ms'),
  schedulingTimeoutMs: bytesOrMs('scheduling_timeout_ms'),
  existingJobPolicy: z.number().int().min(0).max(3, { message: 'existing_job_policy is not a known value' }),
  preemptionPolicy: z.number().int().min(0).max(2, { message: 'preemption_policy is not a known value' }),
  priorityBand: z.number().int().min(0).max(4, { message: 'priority_band is not a known value' }),
  ports: z.array(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, { message: 'ports: a port name must be 1-64 of [A-Za-z0-9_-]' })),
  bundleId: z.string().regex(/^([0-9a-f]{64})?$/, { message: 'bundle_id must be a sha256 hex digest or empty' }),
});

function firstIssue(e: z.ZodError): string {
  const issue = e.issues[0];
  if (!issue) return 'invalid request';
  const path = issue.path.join('.');
  return issue.message.includes(' ') && !issue.message.startsWith('Invalid') ? issue.message : `${path}: ${issue.message}`;
}

/**
 * Validates a `LaunchJobRequest` at the wire edge: names, resources, budgets, env keys, devices,
 * constraints. Replica rules are applied later (they may turn 1 into a TPU slice's VM count).
 * @returns the job's device with its TPU variant resolved to the topology row, for the submit path to
 *   use without a second look-up (reservation entries' variants are checked the same way).
 * @throws {IrisError} IRIS_INVALID_ARGUMENT naming the bad field.
 */
export function validateLaunchRequest(req: LaunchJobRequest): ResolvedDevice {
  const parsed = RequestSchema.safeParse({
    ...req,
    resources: req.resources ?? { cpuMillicores: 0, memoryBytes: 0, diskBytes: 0 },
  });
  if (!parsed.success) throw new IrisError('IRIS_INVALID_ARGUMENT', firstIssue(parsed.error), { details: { issues: parsed.error.issues } });
  parseJobName(req.name, 'name');
  const argv = req.entrypoint?.run?.argv ?? [];
  if (argv.length === 0 || argv[0] === '') throw new IrisError('IRIS_INVALID_ARGUMENT', 'entrypoint.run.argv must name a command');
  // No process can be started with a NUL byte in its argv or env: fail the submit, not 100 attempts.
  argv.forEach((arg, i) => rejectNul(arg, `entrypoint.run.argv[${i}]`));
  (req.entrypoint?.setupCommands ?? []).forEach((c, i) => c.argv.forEach((arg, j) => rejectNul(arg, `entrypoint.setup_commands[${i}].argv[${j}]`)));
  for (const path of Object.keys(req.entrypoint?.workdirFiles ?? {})) validateWorkdirPath(path);
  for (const [key, value] of Object.entries(req.environment?.envVars ?? {})) {
    if (key === '' || key.includes('=') || key.includes('\0')) throw new IrisError('IRIS_INVALID_ARGUMENT', `environment.env_vars: invalid key "${key}"`);
    rejectNul(value, `environment.env_vars["${key}"]`);
    if (key.toUpperCase().startsWith('IRIS_')) {
      throw new IrisError('IRIS_INVALID_ARGUMENT', `environment.env_vars: key "${key}" is reserved (IRIS_* keys are set by iris)`);
    }
    if (Buffer.byteLength(value) > MAX_ENV_VALUE_BYTES) throw new IrisError('IRIS_INVALID_ARGUMENT', `environment.env_vars: value of "${key}" exceeds 128 KiB`);
  }
  const python = req.environment?.pythonEnv;
  if (python !== undefined) {
    if (python.lock.trim() === '') throw new IrisError('IRIS_INVALID_ARGUMENT', 'environment.python_env.lock must not be empty');
    if (Buffer.byteLength(python.lock) > MAX_PYTHON_LOCK_BYTES) throw new IrisError('IRIS_INVALID_ARGUMENT', 'environment.python_env.lock exceeds 1 MiB');
    if (!PYTHON_VERSION_RE.test(python.pythonVersion)) {
      throw new IrisError('IRIS_INVALID_ARGUMENT', `environment.python_env.python_version "${python.pythonVersion}" must look like 3, 3.11 or 3.11.7`);
    }
  }
  const device = req.resources?.device?.kind;
  const resolved = resolvedDeviceOf(req.resources?.device);
  if (device?.$case === 'tpu') {
    if (device.value.count < 0) throw new IrisError('IRIS_INVALID_ARGUMENT', 'resources.device.tpu.count must be >= 0');
  } else if (device?.$case === 'gpu') {
    const variant = device.value.variant.toLowerCase();
    if (variant !== 'auto' && variant !== '' && canonicalGpuVariant(variant) === undefined) {
      throw new IrisError('IRIS_INVALID_ARGUMENT', `resources.device.gpu.variant: unknown GPU variant "${device.value.variant}"`);
    }
    if (device.value.count < 0) throw new IrisError('IRIS_INVALID_ARGUMENT', 'resources.device.gpu.count must be >= 0');
  }
  req.constraints.forEach((c, i) => validateConstraint(c, `constraints[${i}]`));
  const entries = req.reservation?.entries ?? [];
  if (entries.length > MAX_RESERVATION_ENTRIES) throw new IrisError('IRIS_INVALID_ARGUMENT', `reservation.entries: at most ${MAX_RESERVATION_ENTRIES} entries`);
  entries.forEach((e, i) => {
    const r = e.resources;
    if (r && (r.cpuMillicores < 0 || r.memoryBytes < 0 || r.diskBytes < 0)) throw new IrisError('IRIS_INVALID_ARGUMENT', `reservation.entries[${i}].resources must be >= 0`);
    resolvedDeviceOf(r?.device);
    e.constraints.forEach((c, j) => validateConstraint(c, `reservation.entries[${i}].constraints[${j}]`));
  });
  if (req.coscheduling && req.coscheduling.tasksPerGroup < 0) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', 'coscheduling.tasks_per_group must be >= 0');
  }
  return resolved;
}

function rejectNul(value: string, field: string): void {
  if (value.includes('\0')) throw new IrisError('IRIS_INVALID_ARGUMENT', `${field} contains a NUL byte`);
}

/** A workdir file path must stay inside the workdir: relative, no `..`, no empty or `.` components. */
function validateWorkdirPath(path: string): void {
  const field = `entrypoint.workdir_files["${path}"]`;
  rejectNul(path, field);
  const parts = path.split('/');
  if (path.startsWith('/') || path.includes('\\') || parts.some((p) => p === '' || p === '.' || p === '..')) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', `${field}: the path must be relative to the workdir, with no "..", "." or empty components`);
  }
}

function validateConstraint(c: Constraint, field: string): void {
  if (c.key === '') throw new IrisError('IRIS_INVALID_ARGUMENT', `${field}.key must not be empty`);
  if (!(c.op in ConstraintOp) || c.op < 0) throw new IrisError('IRIS_INVALID_ARGUMENT', `${field}.op is not a known operator`);
  if (!(c.mode in ConstraintMode) || c.mode < 0) throw new IrisError('IRIS_INVALID_ARGUMENT', `${field}.mode is not a known mode`);
  const needsValue = c.op !== ConstraintOp.CONSTRAINT_OP_EXISTS && c.op !== ConstraintOp.CONSTRAINT_OP_NOT_EXISTS && c.op !== ConstraintOp.CONSTRAINT_OP_IN;
  if (needsValue && c.value?.v === undefined) throw new IrisError('IRIS_INVALID_ARGUMENT', `${field}.value is required for ${ConstraintOp[c.op]}`);
  if (c.op === ConstraintOp.CONSTRAINT_OP_IN && c.values.length === 0) throw new IrisError('IRIS_INVALID_ARGUMENT', `${field}.values must not be empty for IN`);
}

