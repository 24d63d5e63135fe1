// The folder layers of src/, read by the repository's eslint.config.mjs and scripts/folder-graph.mjs.

/**
 * The layers of `packages/iris/src`, lowest first: a folder imports only folders before it (files
 * directly in `src/` — `errors.ts` and the entry barrels — are outside the order). `controller/` is
 * three layers: its store (all SQL), its state machine (the folder's own files) and its gRPC services.
 * Unit tests beside the code are exempt.
 * `eslint.config.mjs` forbids the imports up this order; the repository's `scripts/folder-graph.mjs` checks
 * the same order over the whole import graph and counts the folder pairs importing each other.
 */
export const IRIS_LAYERS = [
  'internal',
  'core',
  'auth',
  'scheduler',
  'wire',
  'bundle',
  'client',
  'controller/store',
  'controller',
  'controller/services',
  'worker',
  'autoscaler',
  'dashboard',
  'cluster',
  'testing',
  'cli',
];
