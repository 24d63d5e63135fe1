/**
 * @packageDocumentation
 * `@marin/fray`: run a job somewhere (this process, an Iris cluster or a Ray cluster) and learn how it went.
 *
 * ```ts
 * import { Entrypoint, createLocalClient } from '@marin/fray';
 *
 * await using client = createLocalClient();
 * const job = await client.submit({ name: 'hello', entrypoint: Entrypoint.fromBinary('node', ['-e', 'console.log(1)']) });
 * await job.wait(); // 'succeeded', or throws JobFailed
 * ```
 */
export { FrayError, JobFailed, WaitTimeout } from './errors.js';
export { JobAlreadyExists } from './client/job-already-exists.js';
export type { FrayErrorCode } from './errors.js';
export { ResourceConfig } from './resources/resource-config.js';
export type { DeviceSpec, GpuResourceOptions, ResourceOptions, TpuResourceOptions } from './resources/resource-config.js';
export { GPU_TYPES, isGpuType } from './resources/gpu-types.js';
export type { GpuType } from './resources/gpu-types.js';
export { parseSizeBytes } from './resources/size-string.js';
export { getTpuTopology, listTpuVariants, tpuVariantName } from '@marin/iris/core';
export type { TpuTopology } from '@marin/iris/core';
export { Entrypoint } from './request/entrypoint.js';
export type { BinaryEntrypoint, CallableEntrypoint, JsonValue, ModuleEntrypoint } from './request/entrypoint.js';
export { DEFAULT_JOB_ENV, FORWARDED_ENV_VARS, createEnvironment } from './request/environment.js';
export type { EnvironmentConfig } from './request/environment.js';
export { resolveJobRequest } from './request/job-request.js';
export { DEFAULT_PYTHON_VERSION, PythonEnvSpec, validatePythonEnvSpec } from './request/python-env-spec.js';
export type { JobRequest, ResolvedJobRequest } from './request/job-request.js';
export { randomHex8, sanitizeJobName, validateJobName } from './request/job-name.js';
export { JOB_STATUSES, isFinished } from './client/job-status.js';
export type { JobStatus } from './client/job-status.js';
export type { Client, JobHandle, SubmitOptions, WaitOptions } from './client/client.js';
export { WAIT_ALL_BACKOFF, WAIT_ALL_INITIAL_SLEEP_MS, WAIT_ALL_MAX_SLEEP_MS, waitAll } from './client/wait-all.js';
export { withClient } from './client/client-scope.js';
export { currentClient, setDefaultClientFactory } from './backends/current-client.js';
export type { DefaultClientFactory } from './backends/current-client.js';
export { FRAY_JOB_ENV, currentJobContext } from './client/job-context.js';
export type { JobContext } from './client/job-context.js';
export { silentLogger, stderrLogger } from './client/logger.js';
export type { FrayLogger } from './client/logger.js';
export { createLocalClient } from './backends/local/local-client.js';
export type { LocalClient, LocalClientOptions } from './backends/local/local-client.js';
export {
  MODULE_ARGS_FILE,
  MODULE_RUNNER_FILE,
  isPackageSpecifier,
  moduleRunnerArgs,
  moduleRunnerNodeFlags,
  moduleRunnerSource,
} from './runner/module-runner.js';
export { findWorkspaceRoot } from './runner/workspace-root.js';
export { RemoteCallable, remote } from './remote/remote.js';
export type { RemoteEntry, RemoteOptions } from './remote/remote.js';
export { dependencyGroupPackages, readDependencyGroups, resolveDependencyGroups } from './request/dependency-groups.js';
export type { DeclaredDependencyGroups } from './request/dependency-groups.js';
export { buildIrisLaunchPlan, irisCommandOf, irisConstraintsOf, irisCoschedulingOf, irisDeviceOf } from './backends/iris/launch-plan.js';
export type { IrisDevice, IrisLaunchPlan } from './backends/iris/launch-plan.js';
export { deviceDefaultEnv, withDeviceDefaults } from './backends/iris/device-env.js';
export { frayStatusOfIrisState } from './backends/iris/job-state-map.js';
export { createInTaskIrisBackend, createIrisBackend } from './backends/iris/iris-backend.js';
export type { IrisBackend, IrisBackendOptions } from './backends/iris/iris-backend.js';
export type { IrisJobClient, IrisJobSpec } from './backends/iris/iris-job-client.js';
export { IRIS_WAIT_INITIAL_SLEEP_MS, IRIS_WAIT_MAX_SLEEP_MS, IrisJobHandle } from './backends/iris/iris-job-handle.js';
export { FRAY_BACKENDS, createBackendClient, createDefaultClient } from './backends/default-client.js';
export type { FrayBackendName } from './backends/default-client.js';
export { createRayClient } from './backends/ray/ray-client.js';
export type { RayClient, RayClientOptions } from './backends/ray/ray-client.js';
export { RAY_WAIT_INITIAL_SLEEP_MS, RAY_WAIT_MAX_SLEEP_MS, RayJobHandle, frayStatusOfRayState } from './backends/ray/ray-job-handle.js';
export type { FollowLogsOptions } from './backends/ray/ray-job-handle.js';
export type { RayJobInfo, RayJobState } from './backends/ray/ray-jobs-api.js';
export { FRAY_RAY_ADDRESS_ENV, rayDashboardUrl } from './backends/ray/ray-address.js';
export { buildRaySubmission, rayResourcesOf, tpuHeadResource } from './backends/ray/ray-submission.js';
export type { RayJobSubmission, RayResources, RaySubmissionOptions } from './backends/ray/ray-submission.js';
export { createLocalActorBackend, DEFAULT_ACTOR_READY_TIMEOUT_MS } from './actors/local-actors.js';
export type { LocalActorBackendOptions } from './actors/local-actors.js';
export { startActorGroup } from './actors/actor-backend.js';
export type { ActorBackend, ActorEntry, AnyActorEntry, CreateActorOptions } from './actors/actor-backend.js';
export { ActorHandle, DEFAULT_ACTOR_CALL_TIMEOUT_MS } from './actors/actor-handle.js';
export type { ActorCallOptions, ActorEndpoint, ActorProxy, ActorState } from './actors/actor-handle.js';
export { ActorGroup } from './actors/actor-group.js';
export type { ActorCallResult } from './actors/actor-group.js';
export { hostActor, publicMethods } from './actors/actor-host.js';
export { actorCallSignal } from './actors/call-signal.js';
export { FRAY_PYTHON_DIR } from './actors/python-actor.js';
export type { PythonActorEntry, PythonActorEnv, PythonHostSpec } from './actors/python-actor.js';
export type { HostActorOptions, HostedActor } from './actors/actor-host.js';
export { ACTOR_PARENT_PID_ENV, ACTOR_READY_PREFIX, IRIS_ACTOR_ENDPOINT_SUFFIX, buildActorInstance, runActorHost } from './actors/actor-main.js';
export type { ActorHostSpec } from './actors/actor-main.js';
export { ACTOR_CALL_PATH, ACTOR_HEALTH_PATH, ACTOR_ERROR_CODE_KEY, ACTOR_ERROR_NAME_KEY, BLOB_MARKER, decodeFrame, encodeFrame } from './actors/wire.js';
export type { ActorHealth, ActorValue } from './actors/wire.js';
export { createIrisActorBackend } from './actors/iris-actors.js';
export type { IrisActorBackendOptions, IrisEndpointClient } from './actors/iris-actors.js';
export { createJobActorBackend } from './actors/job-actors.js';
export type { JobActorBackendOptions } from './actors/job-actors.js';
export { connectActor, connectIrisActor } from './actors/connect-actor.js';
export type { ConnectActorOptions, ConnectIrisActorOptions } from './actors/connect-actor.js';
