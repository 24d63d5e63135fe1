// The tutorial experiment of Marin's executor: one step writes the numbers 0..99, a second reads
// them and writes their sum, min and max. The hashes match Python Marin (data-d50b06, stats-b5daf3),
// so a Python and a TypeScript executor sharing a prefix reuse each other's outputs.
//
//   node experiments/hello_world.js                        # after `nx run-many -t build`
//   node --conditions=@marin/source --import tsx experiments/hello_world.js   # from source
//   ... --prefix /tmp/my-prefix --dry-run
//   ... --remote-stats      # run the stats step as a Fray job (a child job inside an Iris task)
//
// `--remote-stats` only changes where the stats step runs: functions and resources never enter the
// version, so the output paths are the same as a local run.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ExecutorStep, executorMain, remote } from '@marin/executor';

const REMOTE_STATS_FLAG = '--remote-stats';
const remoteStats = process.argv.includes(REMOTE_STATS_FLAG);

/**
 * Writes `numbers.json` = [0, 1, …, 99] under the step's output path.
 * @param {Record<string, never>} _config
 * @param {import('@marin/executor').StepContext} ctx
 */
async function generateData(_config, ctx) {
  await mkdir(ctx.outputPath, { recursive: true });
  const numbers = Array.from({ length: 100 }, (_, i) => i);
  // Python json.dump layout (", " separators), byte-identical to Marin's tutorial output.
  await writeFile(join(ctx.outputPath, 'numbers.json'), `[${numbers.join(', ')}]`);
}

/**
 * Reads `numbers.json` from `input_path` and writes `stats.json` = {"sum", "min", "max"}.
 * @param {{ input_path: string }} config
 * @param {import('@marin/executor').StepContext} ctx
 */
async function computeStats(config, ctx) {
  /** @type {number[]} */
  const numbers = JSON.parse(await readFile(join(config.input_path, 'numbers.json'), 'utf8'));
  const stats = {
    sum: numbers.reduce((a, b) => a + b, 0),
    min: Math.min(...numbers),
    max: Math.max(...numbers),
  };
  await mkdir(ctx.outputPath, { recursive: true });
  await writeFile(join(ctx.outputPath, 'stats.json'), `{"sum": ${stats.sum}, "min": ${stats.min}, "max": ${stats.max}}`);
}

const dataStep = new ExecutorStep({ name: 'hello_world/data', fn: generateData, config: {} });

// `input_path` is the key Marin's reference experiment uses; any other key changes the hash.
const statsStep = new ExecutorStep({
  name: 'hello_world/stats',
  fn: remoteStats ? remote(computeStats) : computeStats,
  config: { input_path: dataStep },
});

await executorMain({
  steps: [statsStep],
  description: 'Hello world: numbers and their statistics.',
  // The flag is this script's own; re-entered workers see it again and rebuild the same DAG.
  argv: process.argv.slice(2).filter((a) => a !== REMOTE_STATS_FLAG),
});
