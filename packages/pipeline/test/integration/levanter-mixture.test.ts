import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { readStatus } from '@marin/executor';
import type { ExecutorStep } from '@marin/executor';
import { createLocalClient } from '@marin/fray';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultTokenize } from '../../src/steps/tokenize/default-tokenize.js';
import { defaultTrain } from '../../src/steps/train/default-train.js';
import { llama_nano } from '../../src/steps/train/levanter-model-config.js';
import { mixture } from '../../src/steps/train/mixture.js';
import type { TrainSummary } from '../../src/steps/train/train-summary.js';
import { runLevanterPython } from '../helpers/levanter-python.js';
import { keepingLogger } from '../helpers/levanter-training.js';
import { openLevanterWorkspace } from '../helpers/levanter-workspace.js';
import type { LevanterWorkspace } from '../helpers/levanter-workspace.js';

const here = dirname(fileURLToPath(import.meta.url));
const SHARES_SCRIPT = resolve(here, '../python/mixture_shares.py');
const SEQ_LEN = 64;
const BATCH = 8;
/** Sequences sampled from Levanter's loader: one whole mixing block of 2,048 and part of the next. */
const SAMPLED = 3000;
/**
 * The largest difference allowed between a component's share and its weight. Levanter gives each block of
 * 2,048 sequences the exact share; the 952 sequences of the second block are a random part of it, whose
 * share's standard deviation is about 0.01 (hypergeometric), so over 3,000 the difference stays near 0.003.
 */
const TOLERANCE = 0.02;

let workspace: LevanterWorkspace;

/** `n` documents of one alphabet, so each component's tokens are disjoint from the other's. */
function documents(alphabet: string, n: number, seed: number): string {
  let x = seed;
  const lines: string[] = [];
  for (let d = 0; d < n; d += 1) {
    let text = '';
    for (let i = 0; i < 400; i += 1) {
      x = (x * 1103515245 + 12345) % 2147483648;
      text += alphabet[x % alphabet.length];
    }
    lines.push(JSON.stringify({ id: `${seed}-${d}`, text }));
  }
  return `${lines.join('\n')}\n`;
}

async function source(name: string, alphabet: string, seed: number): Promise<ExecutorStep> {
  const dir = join(workspace.dir, 'docs', name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'data-00000-of-00001.jsonl.gz'), gzipSync(documents(alphabet, 40, seed)));
  return defaultTokenize(name, dir, 'marin-tiny-bpe');
}

beforeAll(async () => {
  workspace = await openLevanterWorkspace('levanter-mixture');
}, 60_000);

afterAll(async () => {
  await workspace?.close();
});

describe('defaultTrain() on a mixture with real Levanter', () => {
  it('trains on two weighted components with the offline validation sets; Levanter\'s loader draws each component at its weight', async () => {
    const letters = await source('letters', 'abcdefghijklmnopqrstuvwxyz', 7);
    const digits = await source('digits', '0123456789', 11);
    const out = join(workspace.prefix, 'checkpoints', 'mix');
    const step = defaultTrain(
      'mix',
      mixture({ letters: [letters, 3], digits: [digits, 1] }),
      { ...llama_nano, max_seq_len: SEQ_LEN },
      { train_batch_size: BATCH, num_train_steps: 10, learning_rate: 3e-3, steps_per_eval: 5, max_eval_batches: 2, steps_per_hf_export: -1, mp: 'p=f32,c=f32' },
      { useDefaultValidation: 'offline', overrideOutputPath: out, compilationCacheDir: join(workspace.dir, 'jax-cache') },
    );
    await workspace.run([step], createLocalClient({ logger: keepingLogger() }));
    expect(await readStatus(out)).toBe('SUCCESS');

    const yaml = await readFile(join(out, 'levanter_config.yaml'), 'utf8');
    const data = (JSON.parse(yaml.split('\n').filter((l) => !l.startsWith('#')).join('\n')) as { data: Record<string, unknown> }).data;
    expect(data['train_weights']).toEqual({ letters: 3, digits: 1, 'offline/gazetteer': 0, 'offline/chronicle': 0 });
    expect(data).toMatchObject({ shuffle: true, permutation_type: 'feistel', auto_build_caches: false });
    expect(Object.keys(data['components'] as object).sort()).toEqual(['digits', 'letters', 'offline/chronicle', 'offline/gazetteer']);

    // Levanter evaluated every validation set, per tag, and the suite as a whole.
    const summary = JSON.parse(await readFile(join(out, 'train_summary.json'), 'utf8')) as TrainSummary;
    expect(summary.final_step).toBe(9);
    for (const tag of ['offline/gazetteer', 'offline/chronicle', 'offline']) {
      expect(summary.eval[`eval/${tag}/loss`]).toBeGreaterThan(0);
      expect(summary.eval[`eval/${tag}/bpb`]).toBeGreaterThan(0);
    }

    const script = await readFile(SHARES_SCRIPT, 'utf8');
    const measured = await runLevanterPython(script, [join(out, 'levanter_config.yaml'), String(SEQ_LEN), String(BATCH), String(SAMPLED)], { MARIN_PREFIX: workspace.marinPrefix });
    const result = JSON.parse(measured.stdout.trim().split('\n').pop() ?? '{}') as { counts: Record<string, number>; weights: Record<string, number>; unattributed: number };
    expect(result.unattributed).toBe(0);
    expect(result.weights).toEqual({ letters: 0.75, digits: 0.25 });
    const shares = { letters: (result.counts['letters'] ?? 0) / SAMPLED, digits: (result.counts['digits'] ?? 0) / SAMPLED };
    expect(Math.abs(shares.letters - 0.75)).toBeLessThanOrEqual(TOLERANCE);
    expect(Math.abs(shares.digits - 0.25)).toBeLessThanOrEqual(TOLERANCE);
    console.info(`mixture shares from Levanter's loader over ${SAMPLED} sequences: letters ${shares.letters.toFixed(4)} (weight 0.75), digits ${shares.digits.toFixed(4)} (weight 0.25)`);
  }, 900_000);
});
