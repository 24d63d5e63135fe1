/**
 * Test helpers of `@marin/iris`, published as `@marin/iris/testing`.
 */
export { LOCAL_CLUSTER_PRESETS, startManualTickController, startTestCluster } from '../cluster/local-cluster-presets.js';
export type { LocalClusterPreset } from '../cluster/local-cluster-presets.js';
