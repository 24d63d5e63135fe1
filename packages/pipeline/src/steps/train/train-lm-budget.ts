import { exists, ls, prefixJoin, readText } from '@marin/rigging';
import { PipelineError } from '../../errors.js';
import type { ComponentCache } from './mixture-data.js';
import type { TrainStepConfig } from './train-step-config.js';

/**
 * The steps a run trains: `train.num_train_steps`, or its budget over the tokens a step consumes
 * (`train_batch_size × seq_len`), rounded up. An epoch is every token of the training components' train
 * splits once (whatever their weights).
 * @throws {PipelineError} PIPELINE_CACHE_INVALID for an epoch budget over caches that hold no tokens
 */
export function resolveNumTrainSteps(config: TrainStepConfig, caches: Record<string, ComponentCache>): number {
  const t = config.train;
  if (t.num_train_steps !== null) return t.num_train_steps;
  const budget = config.budget;
  if (budget === null) throw new PipelineError('PIPELINE_CONFIG_INVALID', 'a train config needs train.num_train_steps or budget', { details: { field: 'budget' } });
  const tokensPerStep = t.train_batch_size * (t.train_seq_len ?? config.model.max_seq_len);
  let tokens: number;
  if ('tokens' in budget) {
    tokens = budget.tokens;
  } else {
    const cacheTokens = Object.values(caches).reduce((sum, c) => sum + c.trainTokens, 0);
    if (cacheTokens === 0) throw new PipelineError('PIPELINE_CACHE_INVALID', 'an epoch budget needs training caches that hold tokens; every train split is empty', { details: { field: 'budget' } });
    tokens = budget.epochs * cacheTokens;
  }
  return Math.max(1, Math.ceil(tokens / tokensPerStep));
}

/** The model fields two checkpoints must agree on to share weights, in Levanter's names. */
const SHAPE_FIELDS = ['hidden_dim', 'intermediate_dim', 'num_layers', 'num_heads', 'num_kv_heads', 'head_dim', 'tie_word_embeddings'] as const;
/** The same fields in a Hugging Face `config.json` of a Llama. */
const HF_NAMES: Record<(typeof SHAPE_FIELDS)[number], string> = {
  hidden_dim: 'hidden_size',
  intermediate_dim: 'intermediate_size',
  num_layers: 'num_hidden_layers',
  num_heads: 'num_attention_heads',
  num_kv_heads: 'num_key_value_heads',
  head_dim: 'head_dim',
  tie_word_embeddings: 'tie_word_embeddings',
};

/**
 * Resolves `initialize_from_hf` (a directory of `step-N` exports becomes its newest) and fails before any
 * job on an `init_from` whose model has another shape: a Levanter checkpoint written by a
 * train step (its `levanter_config.yaml` two levels up) or a Hugging Face export (its `config.json`). A
 * checkpoint without either file, or a hub id, is left for Levanter to load.
 * @throws {PipelineError} PIPELINE_INPUT_NOT_FOUND when a local `init_from` path does not exist;
 *   PIPELINE_CHECKPOINT_MISMATCH naming each field that differs (`details.mismatches`)
 */
export async function checkInitFrom(config: TrainStepConfig): Promise<string | null> {
  const model = config.model as Record<string, unknown>;
  const expected = Object.fromEntries(SHAPE_FIELDS.map((f) => [f, model[f] ?? (f === 'num_kv_heads' ? model['num_heads'] : undefined)]));
  const checkpoint = config.train.initialize_from_checkpoint_path;
  if (checkpoint !== null) {
    if (isPath(checkpoint) && !(await exists(checkpoint))) {
      throw new PipelineError('PIPELINE_INPUT_NOT_FOUND', `init_from checkpoint "${checkpoint}" does not exist`, { details: { field: 'initialize_from_checkpoint_path', path: checkpoint } });
    }
    const trained = await trainedModelOf(checkpoint);
    if (trained !== null) compareShapes(expected, trained, checkpoint);
  }
  let hf = config.initialize_from_hf;
  if (hf !== null && isPath(hf)) {
    // A train step's `hf/` directory holds one export per `step-N`: start from the newest.
    if (!(await exists(prefixJoin(hf, 'config.json')))) hf = (await latestStepDir(hf)) ?? hf;
    const file = prefixJoin(hf, 'config.json');
    if (!(await exists(file))) {
      throw new PipelineError('PIPELINE_INPUT_NOT_FOUND', `init_from Hugging Face export "${hf}" has no config.json`, { details: { field: 'initialize_from_hf', path: file } });
    }
    const hfConfig = JSON.parse(await readText(file)) as Record<string, unknown>;
    const found = Object.fromEntries(SHAPE_FIELDS.map((f) => [f, hfConfig[HF_NAMES[f]]]));
    compareShapes(expected, found, hf);
  }
  return hf;
}

/** `<dir>/step-N` with the largest N, or `null` when there is none. */
export async function latestStepDir(dir: string): Promise<string | null> {
  if (!(await exists(dir))) return null;
  let best: { step: number; url: string } | null = null;
  for (const entry of await ls(dir)) {
    const m = /(?:^|\/)step-(\d+)\/?$/.exec(entry.url);
    if (m === null || entry.type !== 'directory') continue;
    const step = Number(m[1]);
    if (best === null || step > best.step) best = { step, url: prefixJoin(dir, `step-${step}`) };
  }
  return best?.url ?? null;
}

function isPath(ref: string): boolean {
  return ref.startsWith('/') || ref.startsWith('./') || /^[a-z][a-z0-9+.-]*:\/\//.test(ref);
}

/** The model section of the train step that wrote `checkpoint` (`<out>/checkpoints[/step-N]`), or `null`. */
async function trainedModelOf(checkpoint: string): Promise<Record<string, unknown> | null> {
  const trimmed = checkpoint.replace(/\/+$/, '');
  const outDir = /\/step-\d+$/.test(trimmed) ? trimmed.replace(/\/[^/]+\/step-\d+$/, '') : trimmed.replace(/\/[^/]+$/, '');
  const file = prefixJoin(outDir, 'levanter_config.yaml');
  if (!(await exists(file))) return null;
  // The train step writes its YAML as JSON after '#' comment lines.
  const text = (await readText(file)).split('\n').filter((line) => !line.startsWith('#')).join('\n');
  try {
    const model = (JSON.parse(text) as { model?: Record<string, unknown> }).model;
    if (model === undefined) return null;
    return Object.fromEntries(SHAPE_FIELDS.map((f) => [f, model[f] ?? (f === 'num_kv_heads' ? model['num_heads'] : undefined)]));
  } catch {
    return null;
  }
}

function compareShapes(expected: Record<string, unknown>, found: Record<string, unknown>, source: string): void {
  const mismatches: Record<string, { model: unknown; init_from: unknown }> = {};
  for (const field of SHAPE_FIELDS) {
    const [want, got] = [expected[field], found[field]];
    // A field one side leaves to its default is not compared (head_dim, tie_word_embeddings).
    if (want === undefined || want === null || got === undefined || got === null) continue;
    if (want !== got) mismatches[field] = { model: want, init_from: got };
  }
  const fields = Object.keys(mismatches);
  if (fields.length === 0) return;
  const list = fields.map((f) => `${f} ${String(mismatches[f]?.model)} vs ${String(mismatches[f]?.init_from)}`).join(', ');
  throw new PipelineError('PIPELINE_CHECKPOINT_MISMATCH', `init_from "${source}" holds a model of another shape (${list}); train the same shape or start from scratch`, {
    details: { field: 'init_from', path: source, mismatches },
  });
}
