/**
 * @packageDocumentation
 * `@marin/iris/core`: what a job asks for, without gRPC. The error class, the TPU topology table and
 * replica rules, sizes, device constraints, the task context and setup commands. Importing it loads
 * neither gRPC nor a native addon, so packages that describe Iris jobs but only sometimes submit them
 * (`@marin/fray`) import this and load `@marin/iris` itself when they first talk to a controller.
 */
export { IrisError, IRIS_ERROR_CODE_METADATA_KEY, IRIS_ERROR_GRPC_STATUS } from '../errors.js';
export type { IrisErrorCode } from '../errors.js';
export { findTpuTopology, getTpuTopology, listTpuVariants, normalizeTpuVariant, tpuVariantName } from '../tpu/tpu-topology.js';
export type { TpuFamily, TpuTopology } from '../tpu/tpu-topology.js';
export { MAX_REPLICAS_PER_JOB, adjustTpuReplicas, planReplicas, resolveCoscheduling } from '../tpu/tpu-replicas.js';
export type { ReplicaPlan } from '../tpu/tpu-replicas.js';
export {
  CANONICAL_CONSTRAINT_KEYS,
  KNOWN_GPU_VARIANTS,
  canonicalGpuVariant,
  deriveDeviceConstraints,
  mergeConstraints,
} from '../scheduler/device-constraints.js';
export type { ConstraintSources } from '../scheduler/device-constraints.js';
export { constraintMatches, formatConstraint } from '../scheduler/constraint-match.js';
export type { Constraint, Coscheduling, DeviceSpec } from '../scheduler/types.js';
export { coresToMillicores, formatBytes, parseSize } from '../client/sizes.js';
export { irisContext } from '../client/iris-context.js';
export { PYTHON_ENV_BUILD_FAILED_EXIT_CODE, parsePythonEnvBuildFailure, pythonEnvBuildFailureMessage } from '../client/python-env-failure.js';
export type { PythonEnvBuildFailure } from '../client/python-env-failure.js';
export type { IrisTaskContext } from '../client/iris-context.js';
export { buildSetupCommands, SetupOptionsSchema } from '../bundle/setup-commands.js';
export type { SetupOptions } from '../bundle/setup-commands.js';
