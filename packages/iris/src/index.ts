/**
 * @packageDocumentation
 * `@marin/iris`: a gRPC cluster scheduler (controller, workers, client, `iris` CLI, embedded local
 * cluster, TPU-slice-aware gang placement). See README.md.
 *
 * @example
 * ```ts
 * import { startLocalCluster } from '@marin/iris';
 *
 * await using cluster = await startLocalCluster({ workers: 1 });
 * await using client = cluster.client();
 * const jobId = await client.launchJob({ name: 'hello', command: ['node', '-e', "console.log('hi')"] });
 * const job = await client.waitForJob(jobId); // job.state === 'SUCCEEDED'
 * ```
 */
// Everything `@marin/iris/core` exports (errors, TPU table, sizes, constraints, task context), then the rest.
export { IrisError, IRIS_ERROR_CODE_METADATA_KEY, IRIS_ERROR_GRPC_STATUS } from './errors.js';
export type { IrisErrorCode } from './errors.js';
export { findTpuTopology, getTpuTopology, listTpuVariants, normalizeTpuVariant, tpuVariantName } from './core/tpu-topology.js';
export type { TpuFamily, TpuTopology } from './core/tpu-topology.js';
export { MAX_REPLICAS_PER_JOB, adjustTpuReplicas, planReplicas, resolveCoscheduling } from './core/tpu-replicas.js';
export type { ReplicaPlan } from './core/tpu-replicas.js';
export { CANONICAL_CONSTRAINT_KEYS, KNOWN_GPU_VARIANTS, canonicalGpuVariant, deriveDeviceConstraints, mergeConstraints } from './core/device-constraints.js';
export type { ConstraintSources } from './core/device-constraints.js';
export { constraintMatches, formatConstraint } from './core/constraint-match.js';
export { coresToMillicores, formatBytes, parseSize } from './core/sizes.js';
export { irisContext } from './core/iris-context.js';
export { PYTHON_ENV_BUILD_FAILED_EXIT_CODE, parsePythonEnvBuildFailure, pythonEnvBuildFailureMessage } from './core/python-env-failure.js';
export type { PythonEnvBuildFailure } from './core/python-env-failure.js';
export type { IrisTaskContext } from './core/iris-context.js';
export { buildSetupCommands, SetupOptionsSchema } from './core/setup-commands.js';
export type { SetupOptions } from './core/setup-commands.js';
export { createIrisClient, IrisClientOptionsSchema } from './client/iris-client.js';
export type { BundleRef, ExecEvent, IrisClient, IrisClientOptions } from './client/iris-client.js';
export type { ApiKeyInfo, AuditEntry, WhoAmI } from './wire/identity-views.js';
export type { AuthMode, CallerRole, UserRole } from './auth/identity.js';
export { JobSpecSchema, defaultUser, resolveJobName } from './client/job-spec.js';
export type { JobSpec } from './client/job-spec.js';
export { TERMINAL_JOB_STATES } from './core/job-types.js';
export type {
  AttemptInfo,
  ClusterStatus,
  Endpoint,
  EndpointQuery,
  EndpointSpec,
  FollowEvent,
  JobInfo,
  JobQuery,
  JobState,
  LogEntry,
  LogQuery,
  LogSource,
  PriorityBand,
  TaskInfo,
  TaskState,
  UserBudget,
  WorkerInfo,
} from './core/job-types.js';
export { ControllerOptionsSchema, IRIS_VERSION, startController } from './cluster/start-controller.js';
export type { ControllerHandle, ControllerOptions } from './cluster/start-controller.js';
export { parseJobName, taskIdOf } from './core/job-names.js';
export type { JobName } from './core/job-names.js';
export { LocalClusterOptionsSchema, startLocalCluster } from './cluster/local-cluster.js';
export { startCluster } from './cluster/start-cluster.js';
export { ClusterConfigSchema, loadClusterConfig, parseClusterConfig } from './autoscaler/cluster-config.js';
export type { AutoscalerTimings, ClusterConfig, ClusterConfigInput, PlatformConfig, ScaleGroupConfig } from './autoscaler/cluster-config.js';
export type { LocalClusterHandle, LocalClusterOptions } from './cluster/local-cluster.js';
export { scheduleTick } from './scheduler/schedule-tick.js';
export { DEFAULT_MAX_ASSIGNMENTS_PER_WORKER, DEFAULT_MAX_BUILDING_TASKS } from './scheduler/capacity.js';
export { PRIORITY_BANDS, effectiveBand, mayPreempt, resourceValue, userSpend } from './scheduler/priority-band.js';
export type { SpendingTask, UserBudgetLimits } from './scheduler/priority-band.js';
export { claimReservations } from './scheduler/reservation-claims.js';
export type { ReservationClaim, ReservationEntryRequest } from './scheduler/reservation-claims.js';
export { RESERVATION_ATTRIBUTE } from './scheduler/job-candidates.js';
export type { AttributeValue, Constraint, ConstraintMode, ConstraintOp, WorkerAttributes } from './core/constraints.js';
export type { Coscheduling, DeviceSpec } from './core/device-spec.js';
export type {
  Assignment,
  GangPlacement,
  PendingJobDiagnostic,
  Preemption,
  ResourceAmounts,
  RunningTask,
  SchedulerJob,
  SchedulerLimits,
  SchedulerTask,
  SchedulerTaskState,
  SchedulerWorker,
  SchedulingInput,
  SchedulingResult,
} from './scheduler/types.js';
export { startWorker, WORKER_VERSION } from './worker/worker-daemon.js';
export type { WorkerHandle } from './worker/worker-daemon.js';
export { WorkerOptionsSchema } from './worker/worker-options.js';
export type { WorkerConfig, WorkerOptions } from './worker/worker-options.js';
export { parseAttributeList } from './worker/worker-attributes.js';
export { createBundle, CreateBundleOptionsSchema, DEFAULT_MAX_BUNDLE_BYTES } from './bundle/create-bundle.js';
export type { Bundle, CreateBundleOptions } from './bundle/create-bundle.js';
export type { BundleFile } from './bundle/bundle-manifest.js';
export { bundleIdOf } from './bundle/bundle-manifest.js';
export { readBundleArchive, verifyBundleArchive } from './bundle/bundle-archive.js';
export type { BundleArchiveOptions, BundleArchiveSource, BundleUnsafeReason } from './bundle/bundle-archive.js';
export { DEFAULT_BUNDLE_LIMITS, resolveBundleLimits } from './bundle/bundle-limits.js';
export type { BundleLimits } from './bundle/bundle-limits.js';
