import { access, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PipelineError } from '../../errors.js';
import { SeededRandom } from '../synthetic/seeded-random.js';
import { runCurationScript } from './fasttext-python.js';

/** One labelled source of training documents (Marin's `DatasetConfig`). */
export interface FasttextDatasetSpec {
  /** Read once. */
  records: () => AsyncIterable<{ text: unknown }> | Iterable<{ text: unknown }>;
  /** The label its documents get, e.g. `hq` or `lq`. */
  label: string;
  /** Fraction of documents kept, drawn with the seed. @default 1 */
  samplingRate?: number;
  /** At most this many documents, reservoir-sampled with the seed; wins over `samplingRate`. @default null */
  maxSampleSize?: number | null;
}

/** Options of {@link trainFasttextClassifier} (Marin's `TrainFasttextClassifierConfig`). */
export interface TrainFasttextOptions {
  datasets: readonly FasttextDatasetSpec[];
  /** A local directory: gets `examples.jsonl`, `data.train`, `data.val`, `model.bin`, `metrics.json`. */
  outputDir: string;
  /** The curation environment's interpreter (see `ensureCurationPython`). */
  python: string;
  /** @default 0 */
  seed?: number;
  /** Fraction of examples held out for validation. @default 0.1 */
  valFrac?: number;
  /** Arguments of fastText's `train_supervised` (`lr`, `dim`, `epoch`, `wordNgrams`, `bucket`, …). @default {} */
  fasttextArgs?: Record<string, string | number | boolean>;
  signal?: AbortSignal;
}

/** What a training run produced. */
export interface TrainFasttextResult {
  modelPath: string;
  skipped: boolean;
  metrics: Record<string, unknown> | null;
}

/**
 * The training process's environment. fastText 0.9.3 initializes only the first tenth of its input matrix when it
 * trains with one thread (`DenseMatrix::uniform` splits the matrix into ten blocks, one per thread) and allocates the
 * matrix without zeroing it, so the other rows start as whatever the allocator hands out: zeros when the block is
 * freshly mapped (fastText 0.9.2's matrix was zeroed), the heap's leftovers otherwise. Then the same examples train
 * another model or fail with "Encountered NaN", depending on the paths, the environment and what the process freed
 * before. glibc's perturb byte 255 fills every allocation with zeros (and freed memory with 0xff), so the matrix
 * starts as 0.9.2's did and training is reproducible (the shipped tiny model is what it trains).
 */
const FASTTEXT_TRAIN_ENV = { MALLOC_PERTURB_: '255' } as const;

/**
 * Trains a fastText classifier from labelled datasets as Marin's `train_fasttext` does: each dataset's documents are
 * sampled (reservoir or rate, seeded), labelled and merged; the shipped `fasttext_train.py` formats them as
 * `__label__<label> <text>`, holds out `valFrac`, shuffles and runs `train_supervised` with the official bindings. An
 * existing `model.bin` is kept (a rerun skips training).
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID without datasets or with a label that is not one token;
 *   PIPELINE_INPUT_INVALID for a non-string text; PIPELINE_JOB_FAILED when training fails
 */
export async function trainFasttextClassifier(options: TrainFasttextOptions): Promise<TrainFasttextResult> {
  const modelPath = join(options.outputDir, 'model.bin');
  if (await access(modelPath).then(() => true, () => false)) return { modelPath, skipped: true, metrics: null };
  if (options.datasets.length === 0) throw new PipelineError('PIPELINE_CONFIG_INVALID', 'fastText training needs at least one labelled dataset');
  for (const d of options.datasets) {
    if (!/^\S+$/.test(d.label)) throw new PipelineError('PIPELINE_CONFIG_INVALID', `fastText label "${d.label}" must be one token without spaces`, { details: { label: d.label } });
  }
  const seed = options.seed ?? 0;
  await mkdir(options.outputDir, { recursive: true });
  const lines: string[] = [];
  for (const [i, dataset] of options.datasets.entries()) {
    for (const text of await sample(dataset, seed + i)) lines.push(JSON.stringify({ text, label: dataset.label }));
  }
  const examples = join(options.outputDir, 'examples.jsonl');
  await writeFile(examples, lines.join('\n') + '\n');
  const stdout = await runCurationScript({
    python: options.python,
    script: 'fasttext_train.py',
    args: [examples, options.outputDir, String(seed), String(options.valFrac ?? 0.1), JSON.stringify(options.fasttextArgs ?? {})],
    env: FASTTEXT_TRAIN_ENV,
    ...(options.signal ? { signal: options.signal } : {}),
  }).catch(async (e: unknown) => {
    await rm(modelPath, { force: true });
    throw e;
  });
  const last = stdout.trim().split('\n').pop() ?? '{}';
  return { modelPath, skipped: false, metrics: JSON.parse(last) as Record<string, unknown> };
}

async function sample(dataset: FasttextDatasetSpec, seed: number): Promise<string[]> {
  const rng = new SeededRandom(seed);
  const max = dataset.maxSampleSize ?? null;
  const rate = dataset.samplingRate ?? 1;
  const kept: string[] = [];
  let seen = 0;
  for await (const r of dataset.records()) {
    const text = r.text ?? '';
    if (typeof text !== 'string') throw new PipelineError('PIPELINE_INPUT_INVALID', `a "${dataset.label}" training document has a ${typeof text} text`, { details: { label: dataset.label } });
    if (text === '') continue;
    if (max !== null) {
      if (kept.length < max) kept.push(text);
      else {
        const j = Math.floor(rng.next() * (seen + 1));
        if (j < max) kept[j] = text;
      }
      seen++;
    } else if (rate >= 1 || rng.next() < rate) kept.push(text);
  }
  return kept;
}

/** The fastText arguments of the shipped tiny model: small enough to commit (a few hundred KB), one thread, seeded. */
export const TINY_QUALITY_FASTTEXT_ARGS = { dim: 16, epoch: 10, lr: 0.5, wordNgrams: 2, bucket: 4096, minCount: 1, minn: 0, maxn: 0, thread: 1 } as const;
