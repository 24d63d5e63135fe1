import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The installed `@marin/pipeline` directory (source checkout or `dist` install alike). */
function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === '@marin/pipeline') return (root = dir);
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the @marin/pipeline package directory');
    dir = parent;
  }
}

/**
 * Absolute path of the curation stages' Python lock (pyarrow, datasketch, datatrove, the official fasttext bindings;
 * exact pins): the environment fastText training and scoring run in, built once per machine by `ensurePythonEnv`.
 */
export function curationLockPath(): string {
  return join(packageRoot(), 'python', 'curation.lock');
}

/** Absolute path of a shipped curation Python script (`fasttext_train.py`, `fasttext_score.py`). */
export function curationScriptPath(name: string): string {
  return join(packageRoot(), 'python', 'curation', name);
}

/**
 * Absolute path of the shipped tiny quality classifier (a fastText model with labels `hq` and `lq`, trained on the
 * seeded synthetic examples by `scripts/train-quality-model.ts`): for tests and the curation experiment, not for
 * real data.
 */
export function tinyQualityModelPath(): string {
  return join(packageRoot(), 'assets', 'quality', 'tiny-quality.bin');
}
