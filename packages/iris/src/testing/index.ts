/**
 * Test helpers of `@marin/iris`, published as `@marin/iris/testing`.
 */
export { LOCAL_CLUSTER_PRESETS, startManualTickController, startTestCluster } from '../local-cluster/local-cluster-presets.js';
export type { LocalClusterPreset } from '../local-cluster/local-cluster-presets.js';
