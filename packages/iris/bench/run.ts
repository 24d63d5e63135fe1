/**
 * `npm run bench` for @marin/iris: placement kernel, cluster end to end, then the worker figures.
 * Prints figures only.
 */
import { availableParallelism } from 'node:os';
import { formatClusterBench, runClusterBench } from './cluster.bench.js';
import { formatPlacementBench, runPlacementBench } from './placement.bench.js';

console.log(`nproc ${availableParallelism()}`);
console.log('\n## placement');
console.log(formatPlacementBench(runPlacementBench()));
console.log(formatPlacementBench(runPlacementBench({ bands: true })));
console.log('\n## cluster');
console.log(formatClusterBench(await runClusterBench()));
console.log('\n## worker');
await import('./worker.bench.js');
console.log('\n## dashboard');
const { formatDashboardExperimentBench, runDashboardExperimentBench } = await import('./dashboard-experiment.bench.js');
console.log(formatDashboardExperimentBench(await runDashboardExperimentBench()));
