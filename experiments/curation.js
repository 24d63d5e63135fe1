// Marin's data-curation path on a generated web-like corpus, end to end on one machine with no network:
// parquet → normalize (exact dedup) → fastText quality scores (the shipped tiny model) → MinHash fuzzy dedup →
// decontamination against the shipped tiny_mc eval task → consolidate (drop duplicates, contaminated and
// low-quality documents) → tokenize into a Levanter cache. With `--train`, the quickstart's tiny Llama then
// trains on the curated cache with real Levanter (needs the Levanter environment; see quickstart.js).
// Quality scoring runs fastText in the curation Python environment, built on first use
// (`node tools/python-env/python-env.mjs packages/pipeline/python/curation.lock`).
//
//   node experiments/curation.js                         # after `nx run-many -t build`
//   node --conditions=@marin/source --import tsx experiments/curation.js   # from source
//   ... --prefix /tmp/my-prefix --dry-run
//   ... --train                                          # and train on the curated tokens
//
// Outputs (under the prefix): raw/curation-synthetic-<hash>/data/*.parquet, normalized/curation-synthetic-<hash>/
// outputs/{main,dups}/, attributes/{quality,minhash,fuzzy-dups,decon}/curation-synthetic-<hash>/,
// filtered/curation-synthetic-<hash>/part-*.parquet and tokenized/curation-synthetic-<hash>/train/.
import { executorMain, outputPathOf } from '@marin/executor';
import {
  defaultConsolidate,
  defaultDecontaminate,
  defaultDownload,
  defaultFuzzyDedup,
  defaultMinhash,
  defaultNormalize,
  defaultQualityScore,
  defaultTokenize,
  defaultTrain,
  tinyMcTaskPath,
  tinyQualityModelPath,
} from '@marin/pipeline';
import { dirname } from 'node:path';
import { curationFixture } from './lib/curation-data.js';
import { quickstartModel, quickstartTrainConfig } from './lib/quickstart-train.js';

const TRAIN_FLAG = '--train';
const train = process.argv.includes(TRAIN_FLAG);
const NAME = 'curation-synthetic';

// The shipped eval task and quality model come in through download steps, as the quickstart's documents do:
// source_url_override is not versioned, so the machine-specific paths of the assets never enter a hash.
const evalTask = defaultDownload('raw/tiny-mc', 'marin-community/tiny-mc', { sourceUrlOverride: dirname(tinyMcTaskPath()) });
const qualityModel = defaultDownload('raw/tiny-quality-model', 'marin-community/tiny-quality-model', { sourceUrlOverride: dirname(tinyQualityModelPath()) });

const raw = curationFixture();
// A small partition target, so the corpus (about 0.4 MB of parquet) becomes several partitions, as a real one would.
const normalized = defaultNormalize(NAME, outputPathOf(raw, 'data'), { targetPartitionBytes: 128 * 1024 });
const docs = outputPathOf(normalized, 'outputs/main');
const quality = defaultQualityScore(NAME, docs, outputPathOf(qualityModel, 'tiny-quality.bin'));
const dups = defaultFuzzyDedup(NAME, [defaultMinhash(NAME, docs)], { numPartitions: 4 });
const decon = defaultDecontaminate(NAME, docs, evalTask, { evalTextField: 'query' });
const curated = defaultConsolidate(NAME, docs, [
  { type: 'classify', attribute_path: outputPathOf(quality, 'outputs/main'), name: 'quality_score', lower_threshold: 0.5 },
  { type: 'remove_docs', attribute_path: outputPathOf(dups, 'outputs/source_000'), name: 'fuzzy_duplicate' },
  { type: 'remove_docs', attribute_path: outputPathOf(decon, 'outputs/main'), name: 'contaminated' },
]);
const tokens = defaultTokenize(NAME, curated, 'marin-tiny-bpe');
const last = train ? defaultTrain(NAME, tokens, quickstartModel, quickstartTrainConfig) : tokens;

await executorMain({
  steps: [last],
  description: 'Data curation: parquet, normalize, quality, fuzzy dedup, decontamination, consolidate, tokenize.',
  // The flag is this script's own; re-entered workers see it again and rebuild the same DAG.
  argv: process.argv.slice(2).filter((a) => a !== TRAIN_FLAG),
});
