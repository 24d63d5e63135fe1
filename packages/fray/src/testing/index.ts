/**
 * Test helpers of `@marin/fray`, published as `@marin/fray/testing`.
 */
export { createRecordingClient } from './recording-client.js';
export type { RecordingClient } from './recording-client.js';
