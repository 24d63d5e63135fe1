import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyQualityModelPath } from '../../src/curation/curation-assets.js';
import { scoreWithFasttext } from '../../src/curation/quality/fasttext-python.js';
import { generateQualityExamples } from '../../src/curation/quality/quality-examples.js';
import { TINY_QUALITY_FASTTEXT_ARGS, trainFasttextClassifier } from '../../src/curation/quality/train-fasttext.js';
import { curationPython, runCurationPython } from '../helpers/curation-python.js';

let python: string;
let dir: string;

beforeAll(async () => {
  python = await curationPython();
  dir = await mkdtemp(join(tmpdir(), 'quality-fasttext-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('trainFasttextClassifier()', () => {
  it('trains from labelled datasets as Marin does, reproduces the shipped model from the same examples, and a rerun skips', async () => {
    const examples = generateQualityExamples({ seed: 1, count: 2000 });
    const datasets = ['hq', 'lq'].map((label) => ({ label, records: () => examples.filter((e) => e.label === label) }));
    const out = join(dir, 'model');
    const result = await trainFasttextClassifier({ datasets, outputDir: out, python, seed: 0, fasttextArgs: TINY_QUALITY_FASTTEXT_ARGS });
    expect(result.skipped).toBe(false);
    expect(result.metrics).toMatchObject({ val_precision_at_1: expect.any(Number) });
    expect(result.metrics?.['val_precision_at_1']).toBeGreaterThan(0.95);
    expect(await readFile(result.modelPath)).toEqual(await readFile(tinyQualityModelPath()));
    const again = await trainFasttextClassifier({ datasets, outputDir: out, python });
    expect(again.skipped).toBe(true);
  }, 120_000);

  it('trains the same model whatever the output path (fastText leaves most of its input matrix to the allocator)', async () => {
    // paths, environment and what the process freed before decide what a heap block holds; before training had
    // its allocations zero-filled, several of these directories gave "Encountered NaN" or another model
    const examples = generateQualityExamples({ seed: 1, count: 2000 });
    const datasets = ['hq', 'lq'].map((label) => ({ label, records: () => examples.filter((e) => e.label === label) }));
    const shipped = await readFile(tinyQualityModelPath());
    for (let n = 1; n <= 8; n++) {
      const out = join(dir, 'paths', 'p'.repeat(n));
      const result = await trainFasttextClassifier({ datasets, outputDir: out, python, seed: 0, fasttextArgs: TINY_QUALITY_FASTTEXT_ARGS });
      expect(await readFile(result.modelPath)).toEqual(shipped);
    }
  }, 120_000);

  it('samples each dataset with maxSampleSize and refuses a label with a space', async () => {
    const examples = generateQualityExamples({ seed: 4, count: 400 });
    const out = join(dir, 'sampled');
    const result = await trainFasttextClassifier({
      datasets: [
        { label: 'hq', records: () => examples.filter((e) => e.label === 'hq'), maxSampleSize: 50 },
        { label: 'lq', records: () => examples.filter((e) => e.label === 'lq'), samplingRate: 0.5 },
      ],
      outputDir: out,
      python,
      fasttextArgs: TINY_QUALITY_FASTTEXT_ARGS,
    });
    const lines = (await readFile(join(out, 'examples.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { label: string });
    expect(lines.filter((l) => l.label === 'hq')).toHaveLength(50);
    expect(lines.filter((l) => l.label === 'lq').length).toBeGreaterThan(60);
    expect(lines.filter((l) => l.label === 'lq').length).toBeLessThan(140);
    expect(result.metrics?.['train_examples']).toBeGreaterThan(0);
    await expect(trainFasttextClassifier({ datasets: [{ label: 'high quality', records: () => [] }], outputDir: join(dir, 'bad'), python })).rejects.toMatchObject({ code: 'PIPELINE_CONFIG_INVALID' });
  }, 120_000);
});

describe('scoreWithFasttext()', () => {
  it('scores held-out documents by quality and equals an independent computation from the same model', async () => {
    const docs = generateQualityExamples({ seed: 9, count: 300 }).map((e, i) => ({ id: `d${i}`, text: e.text, label: e.label }));
    const ours = await collect(scoreWithFasttext(docs, { python, modelPath: tinyQualityModelPath(), label: 'hq' }));
    expect(ours.map((r) => r.id)).toEqual(docs.map((d) => d.id));
    // Held out (another seed, so another vocabulary): the spam markers still separate the classes.
    const correct = docs.filter((d, i) => ((ours[i]?.quality_score ?? 0) > 0.5) === (d.label === 'hq')).length;
    expect(correct / docs.length).toBeGreaterThan(0.95);
    const oracle = (await runCurationPython('fasttext_oracle.py', [tinyQualityModelPath(), 'hq'], docs.map((d) => JSON.stringify({ id: d.id, text: d.text })).join('\n')))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; quality_score: number });
    expect(oracle.map((r) => r.id)).toEqual(ours.map((r) => r.id));
    for (const [i, r] of ours.entries()) expect(Math.abs(r.quality_score - (oracle[i]?.quality_score ?? NaN))).toBeLessThan(1e-5);
  }, 60_000);

  it('refuses a non-string text and reports a scorer that cannot load its model', async () => {
    await expect(collect(scoreWithFasttext([{ id: 'x', text: 3 }], { python, modelPath: tinyQualityModelPath(), label: 'hq' }))).rejects.toMatchObject({ code: 'PIPELINE_INPUT_INVALID' });
    await expect(collect(scoreWithFasttext([{ id: 'x', text: 'a' }], { python, modelPath: join(dir, 'missing.bin'), label: 'hq' }))).rejects.toMatchObject({ code: 'PIPELINE_JOB_FAILED' });
  }, 60_000);
});
