// The experiment of the remote-step benchmark: one step that writes a small file. Run as a script it
// is an ordinary executorMain entry (the benchmark's remote jobs re-enter it with --run-step);
// imported, it only exports its step (bench/remote.bench.ts builds the same step).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExecutorStep, executorMain, versioned } from '@marin/executor';

/** The benchmarked step (inline unless the runner sends it to Fray). */
export const benchStep = new ExecutorStep({
  name: 'bench/remote-step',
  config: { n: versioned(1) },
  fn: async function writeMarker(config, ctx) {
    await mkdir(ctx.outputPath, { recursive: true });
    await writeFile(join(ctx.outputPath, 'marker.json'), JSON.stringify(config));
  },
});

/** This file's path, the re-entry target. */
export const REMOTE_ENTRY = fileURLToPath(import.meta.url);

if (process.argv[1] === REMOTE_ENTRY) await executorMain({ steps: [benchStep] });
