import { Entrypoint, RemoteCallable, ResourceConfig, createEnvironment, randomHex8, sanitizeJobName } from '@marin/fray';
import type { BinaryEntrypoint, JobRequest, ModuleEntrypoint } from '@marin/fray';

/** Options of {@link stepJobRequest}. */
export interface StepJobOptions {
  /** The step's label (name with hash); the job is `sanitize(label-<8 hex>)`. */
  label: string;
  /** The step's `fn` when it is a `RemoteCallable` (its resources, env and groups apply), else `null`. */
  remote?: RemoteCallable<never> | null;
  /** The step's own `resources`; they win over the callable's. */
  resources?: ResourceConfig | null;
  /** Runs the step in-process (local backend). */
  run: () => unknown;
  /** What remote backends run instead: usually `buildStepReentry(...)`. */
  reentry?: BinaryEntrypoint | ModuleEntrypoint;
}

/**
 * The Fray job of one executor step: resources = the step's, else the callable's, else
 * `withCpu()`; env vars and dependency groups from the callable (`null` groups stay omitted so the backend derives
 * them from the device); a callable entrypoint that runs `run` in-process and `reentry` elsewhere.
 */
export function stepJobRequest(options: StepJobOptions): JobRequest {
  const rc = options.remote !== undefined && options.remote !== null && RemoteCallable.is(options.remote) ? options.remote : null;
  const groups = rc?.dependencyGroups ?? null;
  return {
    name: sanitizeJobName(`${options.label}-${randomHex8()}`),
    entrypoint: Entrypoint.fromCallable(options.run, options.reentry === undefined ? {} : { reentry: options.reentry }),
    resources: options.resources ?? rc?.resources ?? ResourceConfig.withCpu(),
    environment: createEnvironment(groups === null ? { envVars: { ...(rc?.envVars ?? {}) } } : { envVars: { ...(rc?.envVars ?? {}) }, dependencyGroups: [...groups] }),
  };
}
