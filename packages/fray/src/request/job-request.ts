import { FrayError } from '../errors.js';
import { ResourceConfig } from '../resources/resource-config.js';
import { createEnvironment } from './environment.js';
import type { EnvironmentConfig } from './environment.js';
import type { Entrypoint } from './entrypoint.js';
import { validateJobName } from './job-name.js';
import { validatePythonEnvSpec } from './python-env-spec.js';
import type { PythonEnvSpec } from './python-env-spec.js';

/** What to run, where, and how often to retry it. */
export interface JobRequest {
  /** One Iris name component: `[A-Za-z0-9_.-]{1,128}`, not all digits. */
  name: string;
  entrypoint: Entrypoint;
  /** Per task. @default new ResourceConfig() */
  resources?: ResourceConfig;
  /** @default createEnvironment() */
  environment?: EnvironmentConfig;
  /** Tasks to run. @default resources.replicas */
  replicas?: number;
  /** Retries after a non-zero exit (remote backends). @default 0 */
  maxRetriesFailure?: number;
  /** Retries after a worker loss (remote backends). @default 100 */
  maxRetriesPreemption?: number;
  /**
   * The Python environment the job runs in, built once per lock hash by the backend; the job starts with it
   * activated. Build one with `PythonEnvSpec.fromLockFile`. @default none (the machine's own Python)
   */
  pythonEnv?: PythonEnvSpec;
  /** Scheduling band on Iris; overrides `resources.priority`. @default resources.priority, else the parent's band */
  priority?: 'PRODUCTION' | 'INTERACTIVE' | 'BATCH';
}

/** A {@link JobRequest} with every default applied; what backends consume. */
export interface ResolvedJobRequest {
  readonly name: string;
  readonly entrypoint: Entrypoint;
  readonly resources: ResourceConfig;
  readonly environment: EnvironmentConfig;
  readonly replicas: number;
  readonly maxRetriesFailure: number;
  readonly maxRetriesPreemption: number;
  readonly pythonEnv?: PythonEnvSpec;
  /** Scheduling band, if the request or its resources set one. */
  readonly priority?: 'PRODUCTION' | 'INTERACTIVE' | 'BATCH';
}

function checkCount(value: unknown, field: string, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new FrayError('FRAY_INVALID_ARGUMENT', `job request ${field} must be an integer >= ${min}, got ${String(value)}`, {
      details: { field },
    });
  }
  return value;
}

/**
 * Validates a request and applies its defaults.
 * @throws {FrayError} FRAY_INVALID_ARGUMENT naming the bad field (for a bad Python lock, `details.line`)
 */
export function resolveJobRequest(request: JobRequest): ResolvedJobRequest {
  if (typeof request !== 'object' || request === null) {
    throw new FrayError('FRAY_INVALID_ARGUMENT', 'job request must be an object');
  }
  validateJobName(request.name);
  const ep = request.entrypoint as Entrypoint | undefined;
  if (ep === undefined || (ep.kind !== 'binary' && ep.kind !== 'module' && ep.kind !== 'callable')) {
    throw new FrayError('FRAY_INVALID_ARGUMENT', `job "${request.name}" has no valid entrypoint; build one with Entrypoint.from*`);
  }
  const resources = request.resources ?? new ResourceConfig();
  if (!(resources instanceof ResourceConfig)) {
    throw new FrayError('FRAY_INVALID_ARGUMENT', `job "${request.name}" resources must be a ResourceConfig`);
  }
  const pythonEnv = request.pythonEnv === undefined ? undefined : validatePythonEnvSpec(request.pythonEnv);
  const priority = request.priority ?? resources.priority;
  if (priority !== undefined && !['PRODUCTION', 'INTERACTIVE', 'BATCH'].includes(priority)) {
    throw new FrayError('FRAY_INVALID_ARGUMENT', `job request priority must be PRODUCTION, INTERACTIVE or BATCH, got ${String(priority)}`, { details: { field: 'priority' } });
  }
  return Object.freeze({
    name: request.name,
    entrypoint: ep,
    resources,
    environment: request.environment ?? createEnvironment(),
    replicas: checkCount(request.replicas ?? resources.replicas, 'replicas', 1),
    maxRetriesFailure: checkCount(request.maxRetriesFailure ?? 0, 'maxRetriesFailure', 0),
    maxRetriesPreemption: checkCount(request.maxRetriesPreemption ?? 100, 'maxRetriesPreemption', 0),
    ...(pythonEnv === undefined ? {} : { pythonEnv }),
    ...(priority === undefined ? {} : { priority }),
  });
}
