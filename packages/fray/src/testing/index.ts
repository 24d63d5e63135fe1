/**
 * Test helpers of `@marin/fray`, published as `@marin/fray/testing`.
 */
export { createRecordingClient } from './recording-client.js';
export type { RecordingClient } from './recording-client.js';
export { RAY_LOCK_PATH, startRayHead } from './ray-head.js';
export type { RayHead, RayHeadOptions } from './ray-head.js';
