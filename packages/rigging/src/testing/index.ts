/**
 * Test helpers of `@marin/rigging`, published as `@marin/rigging/testing`.
 */
export { createMemoryFilesystem, resetMemoryFilesystem } from '../fs/memory-filesystem.js';
export { resetMetadataRegionCache } from '../config/region.js';
