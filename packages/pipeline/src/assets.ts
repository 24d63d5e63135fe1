import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PipelineError } from './errors.js';

const PACKAGE_NAME = '@marin/pipeline';

let root: string | undefined;

/**
 * The root directory of this package, found by walking up from this module to the `package.json`
 * named `@marin/pipeline`, so the answer is the same from `src/` (source) and from `dist/` (built).
 */
function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === PACKAGE_NAME) {
      root = dir;
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) {
      throw new PipelineError('PIPELINE_INPUT_NOT_FOUND', `cannot find the package root of "${PACKAGE_NAME}" above "${fileURLToPath(import.meta.url)}"`);
    }
    dir = parent;
  }
}

/**
 * Absolute path of the shipped quickstart data: `train/` (48 synthetic HTML pages in two
 * `.jsonl.gz` shards) and `validation/` (12 pages in one), Dolma records with `metadata.fineweb_metadata.url`.
 *
 * @example
 * const raw = defaultDownload('raw/quickstart', 'marin-community/quickstart', { sourceUrlOverride: quickstartDataPath() });
 */
export function quickstartDataPath(): string {
  return join(packageRoot(), 'assets', 'quickstart');
}

/**
 * Absolute path of the shipped offline validation suite, laid out as Paloma is on the hub
 * (`<set>/val/val.jsonl.gz`, plain-text records): `gazetteer/` and `chronicle/`, 6 quickstart-style pages each.
 */
export function offlineValidationDataPath(): string {
  return join(packageRoot(), 'assets', 'validation', 'offline');
}

/** Names of the tokenizers shipped in `assets/tokenizers/`, usable wherever a tokenizer location is expected. */
export const SHIPPED_TOKENIZERS = ['marin-tiny-bpe'] as const;

/**
 * The directory of a tokenizer: a shipped tokenizer's name (`"marin-tiny-bpe"`, a 1,024-id byte-level BPE for
 * tests and the quickstart) becomes its absolute path in this package; anything else is a location and is
 * returned unchanged.
 */
export function tokenizerLocation(nameOrLocation: string): string {
  return (SHIPPED_TOKENIZERS as readonly string[]).includes(nameOrLocation)
    ? join(packageRoot(), 'assets', 'tokenizers', nameOrLocation)
    : nameOrLocation;
}

/** Absolute path of the shipped multiple-choice eval task (`{ query, choices, gold }` lines about the quickstart towns). */
export function tinyMcTaskPath(): string {
  return join(packageRoot(), 'assets', 'eval', 'tiny_mc.jsonl');
}

/**
 * Absolute path of the script every Levanter job runs through (`python levanter_job.py --output-log … -- -m …`):
 * it sends the job's output to a log file and writes the tracker's metrics to a JSON-lines file.
 */
export function levanterJobScriptPath(): string {
  return join(packageRoot(), 'python', 'levanter_job.py');
}

/**
 * Absolute path of the shipped eval slices: `<task>/<split>.jsonl` for a few of Marin's core lm-eval tasks
 * (`arc_easy`, `piqa`, `boolq`, `lambada_openai`), each in the schema of the task's hub dataset, so lm-eval's
 * registered definition of the task runs on them offline.
 */
export function evalSlicesPath(): string {
  return join(packageRoot(), 'assets', 'eval', 'slices');
}

/**
 * Absolute path of the pipeline's Python requirements lock (Levanter with JAX on CPU, lm-eval, exact pins): the
 * environment train and eval jobs run in, built once per machine by `ensurePythonEnv` from `@marin/rigging`.
 */
export function levanterLockPath(): string {
  return join(packageRoot(), 'python', 'levanter.lock');
}

/**
 * Absolute path of the served-model actor (`python served_lm.py --config_path … --output-log …`): it loads a
 * Hugging Face export with Levanter and serves `loglikelihood` and `health` as a Fray actor (see DESIGN.md).
 */
export function servedLmScriptPath(): string {
  return join(packageRoot(), 'python', 'served_lm.py');
}

/** Absolute path of `@marin/fray`'s Python actor package (`fray_actors/`: `client.py`, `host.py`). */
export function frayActorsPythonDir(): string {
  const manifest = createRequire(import.meta.url).resolve('@marin/fray/package.json');
  return join(dirname(manifest), 'python', 'fray_actors');
}
