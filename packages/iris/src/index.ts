/**
 * @packageDocumentation
 * `@marin/iris`. See README.md.
 */
export { IrisError } from './errors.js';
export type { IrisErrorCode } from './errors.js';
export { findTpuTopology, getTpuTopology, listTpuVariants, normalizeTpuVariant, tpuVariantName } from './tpu/tpu-topology.js';
export type { TpuFamily, TpuTopology } from './tpu/tpu-topology.js';
export { MAX_REPLICAS_PER_JOB, adjustTpuReplicas, planReplicas, resolveCoscheduling } from './tpu/tpu-replicas.js';
export type { ReplicaPlan } from './tpu/tpu-replicas.js';
export { scheduleTick } from './scheduler/schedule-tick.js';
export { DEFAULT_MAX_ASSIGNMENTS_PER_WORKER, DEFAULT_MAX_BUILDING_TASKS } from './scheduler/capacity.js';
export {
  CANONICAL_CONSTRAINT_KEYS,
  KNOWN_GPU_VARIANTS,
  canonicalGpuVariant,
  deriveDeviceConstraints,
  mergeConstraints,
} from './scheduler/device-constraints.js';
export type { ConstraintSources } from './scheduler/device-constraints.js';
export { constraintMatches, formatConstraint } from './scheduler/constraint-match.js';
export type {
  Assignment,
  AttributeValue,
  Constraint,
  ConstraintMode,
  ConstraintOp,
  Coscheduling,
  DeviceSpec,
  GangPlacement,
  PendingJobDiagnostic,
  ResourceAmounts,
  SchedulerJob,
  SchedulerLimits,
  SchedulerTask,
  SchedulerTaskState,
  SchedulerWorker,
  SchedulingInput,
  SchedulingResult,
  WorkerAttributes,
} from './scheduler/types.js';
export { startWorker, WORKER_VERSION } from './worker/worker-daemon.js';
export type { WorkerHandle } from './worker/worker-daemon.js';
export { WorkerOptionsSchema } from './worker/worker-options.js';
export type { WorkerConfig, WorkerOptions } from './worker/worker-options.js';
export { createBundle, CreateBundleOptionsSchema, DEFAULT_MAX_BUNDLE_BYTES } from './bundle/create-bundle.js';
export type { Bundle, CreateBundleOptions } from './bundle/create-bundle.js';
export type { BundleFile } from './bundle/bundle-manifest.js';
export { bundleIdOf } from './bundle/bundle-manifest.js';
export { readBundleArchive, verifyBundleArchive } from './bundle/bundle-archive.js';
export { buildSetupCommands, SetupOptionsSchema } from './bundle/setup-commands.js';
export type { SetupOptions } from './bundle/setup-commands.js';
