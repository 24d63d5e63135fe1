// Runs one curation stage in its own Node process and prints its peak resident set size, for the memory-bound
// test: `node --conditions=@marin/source --import tsx memory-child.ts '<json task>'`. The last stdout line is
// `{"baselineRssBytes", "peakRssBytes", "result"}`: the RSS once the stage's modules are loaded, and the
// process's peak (`process.resourceUsage().maxRSS`) after the stage ran.
import { computeFuzzyDups } from '../../src/curation/minhash/fuzzy-dups-stage.js';
import { computeMinhashAttrs } from '../../src/curation/minhash/minhash-attrs.js';
import { normalizeToParquet } from '../../src/steps/normalize/normalize.js';
import type { NormalizeOptions } from '../../src/steps/normalize/normalize.js';

/** What the child is asked to run. */
export type MemoryChildTask =
  | { stage: 'normalize'; options: NormalizeOptions }
  | { stage: 'minhash'; source: string; outputDir: string; dupsDir: string };

const task = JSON.parse(process.argv[2] ?? '{}') as MemoryChildTask;
const baselineRssBytes = process.memoryUsage().rss;
let result: unknown;
if (task.stage === 'normalize') {
  result = (await normalizeToParquet(task.options)).counters;
} else {
  await computeMinhashAttrs({ source: task.source, outputDir: task.outputDir, maxParallelism: 1 });
  result = await computeFuzzyDups({ inputs: [task.outputDir], outputDir: task.dupsDir, numPartitions: 4, maxParallelism: 1 });
}
process.stdout.write(`${JSON.stringify({ baselineRssBytes, peakRssBytes: process.resourceUsage().maxRSS * 1024, result })}\n`);
