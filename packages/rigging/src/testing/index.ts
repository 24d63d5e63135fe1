/**
 * Test helpers of `@marin/rigging`, published as `@marin/rigging/testing`.
 */
export { createMemoryFilesystem, resetMemoryFilesystem } from '../fs/memory-filesystem.js';
export { resetMetadataRegionCache } from '../config/region.js';
export { FAKE_GCS_VERSION, ensureFakeGcsBinary, startFakeGcs } from './fake-gcs.js';
export type { FakeGcsHandle, StartFakeGcsOptions } from './fake-gcs.js';
