/**
 * @packageDocumentation
 * `@marin/iris/core`: what a job asks for, without gRPC. The error class, the TPU topology table and
 * replica rules, sizes, device constraints, the task context and setup commands. Importing it loads
 * neither gRPC nor a native addon, so packages that describe Iris jobs but only sometimes submit them
 * (`@marin/fray`) import this and load `@marin/iris` itself when they first talk to a controller.
 *
 * The body lives in `core/` (the lowest layer of `src/`), constraint types, matching and device
 * constraints included; this barrel re-exports nothing from the layers above it.
 */
export { IrisError, IRIS_ERROR_CODE_METADATA_KEY, IRIS_ERROR_GRPC_STATUS } from './errors.js';
export type { IrisErrorCode } from './errors.js';
export { findTpuTopology, getTpuTopology, listTpuVariants, normalizeTpuVariant, tpuVariantName } from './core/tpu-topology.js';
export type { TpuFamily, TpuTopology } from './core/tpu-topology.js';
export { MAX_REPLICAS_PER_JOB, adjustTpuReplicas, planReplicas, resolveCoscheduling } from './core/tpu-replicas.js';
export type { ReplicaPlan } from './core/tpu-replicas.js';
export {
  CANONICAL_CONSTRAINT_KEYS,
  KNOWN_GPU_VARIANTS,
  canonicalGpuVariant,
  deriveDeviceConstraints,
  mergeConstraints,
} from './core/device-constraints.js';
export type { ConstraintSources } from './core/device-constraints.js';
export { constraintMatches, formatConstraint } from './core/constraint-match.js';
export type { Coscheduling, DeviceSpec } from './core/device-spec.js';
export type { Constraint } from './core/constraints.js';
export { coresToMillicores, formatBytes, parseSize } from './core/sizes.js';
export { irisContext } from './core/iris-context.js';
export { PYTHON_ENV_BUILD_FAILED_EXIT_CODE, parsePythonEnvBuildFailure, pythonEnvBuildFailureMessage } from './core/python-env-failure.js';
export type { PythonEnvBuildFailure } from './core/python-env-failure.js';
export type { IrisTaskContext } from './core/iris-context.js';
export { buildSetupCommands, SetupOptionsSchema } from './core/setup-commands.js';
export type { SetupOptions } from './core/setup-commands.js';
