/**
 * @packageDocumentation
 * `@marin/fray`: run a job somewhere (this process or an Iris cluster) and learn how it went.
 *
 * ```ts
 * import { Entrypoint, createLocalClient } from '@marin/fray';
 *
 * await using client = createLocalClient();
 * const job = await client.submit({ name: 'hello', entrypoint: Entrypoint.fromBinary('node', ['-e', 'console.log(1)']) });
 * await job.wait(); // 'succeeded', or throws JobFailed
 * ```
 */
export { FrayError, JobAlreadyExists, JobFailed, WaitTimeout } from './errors.js';
export type { FrayErrorCode } from './errors.js';
export { ResourceConfig } from './resources/resource-config.js';
export type { DeviceSpec, GpuResourceOptions, ResourceOptions, TpuResourceOptions } from './resources/resource-config.js';
export { GPU_TYPES, isGpuType } from './resources/gpu-types.js';
export type { GpuType } from './resources/gpu-types.js';
export { parseSizeBytes } from './resources/size-string.js';
export { getTpuTopology, listTpuVariants, tpuVariantName } from '@marin/iris';
export type { TpuTopology } from '@marin/iris';
export { Entrypoint } from './request/entrypoint.js';
export type { BinaryEntrypoint, CallableEntrypoint, JsonValue, ModuleEntrypoint } from './request/entrypoint.js';
export { DEFAULT_JOB_ENV, FORWARDED_ENV_VARS, createEnvironment } from './request/environment.js';
export type { EnvironmentConfig } from './request/environment.js';
export { resolveJobRequest } from './request/job-request.js';
export type { JobRequest, ResolvedJobRequest } from './request/job-request.js';
export { randomHex8, sanitizeJobName, validateJobName } from './request/job-name.js';
