export { VersionGraph, MAX_INLINE_DEPTH } from './version-graph.js';
export type { VersionGraphOptions, VersionObject } from './version-graph.js';
export { collectDependenciesAndVersion } from './collect-dependencies.js';
export type { CollectedDependencies } from './collect-dependencies.js';
export { hash6 } from './hash6.js';
export { computeOutputPath } from './compute-output-path.js';
export type { ComputeOutputPathOptions } from './compute-output-path.js';
