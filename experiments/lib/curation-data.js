// The curation experiment's input: a small web-like corpus generated from the seeded synthetic generators and
// written as parquet, so nothing is downloaded and nothing binary is committed. Every document carries how it
// was planted (`planted`, `family`), which the experiment's test checks each stage against:
//
//   original      prose in the vocabulary the shipped quality model was trained on
//   exact         a byte-identical copy of an earlier original (normalize's exact dedup drops it)
//   near          an edited copy (1–2 % of words) of an earlier original (fuzzy dedup keeps one per family)
//   contaminated  an original with a question of the shipped tiny_mc eval task as a paragraph (decon drops it)
//   spam          the quality model's `lq` kind: spam tokens and shouting (the quality filter drops it)
//   blank         a null or whitespace-only text (normalize drops it)
import { readFile } from 'node:fs/promises';
import { ExecutorStep, THIS_OUTPUT_PATH, versioned } from '@marin/executor';
import { SeededRandom, generateQualityExamples, generateSyntheticCorpus, tinyMcTaskPath, writeParquetPart } from '@marin/pipeline';

/** The vocabulary seed and size the shipped tiny quality model was trained on (`scripts/train-quality-model.ts`). */
const QUALITY_VOCABULARY = { seed: 1, vocabularySize: 2000 };
/** `generateQualityExamples` examples past the 2,000 the shipped model was trained on. */
const QUALITY_TRAINING_EXAMPLES = 2000;

const COLUMNS = /** @type {const} */ ([
  { name: 'id', type: 'string', nullable: false },
  { name: 'text', type: 'string', nullable: true },
  { name: 'url', type: 'string', nullable: false },
  { name: 'planted', type: 'string', nullable: false },
  { name: 'family', type: 'int32', nullable: false },
]);

/**
 * @typedef {{ id: string, text: string | null, url: string, planted: string, family: number }} FixtureRecord
 * @typedef {{ documents: number, spam: number, contaminated: number, seed: number }} FixtureOptions
 */

/**
 * The fixture's records, in order. The prose is always the generator's seed 1 (the quality model's vocabulary);
 * `seed` places the eval questions. Near copies and contaminated documents never share a family, so each
 * planted kind is dropped by exactly one stage.
 * @param {FixtureOptions} options
 * @param {string[]} evalQueries the eval task's questions, planted verbatim as paragraphs
 * @returns {FixtureRecord[]}
 */
export function curationFixtureRecords(options, evalQueries) {
  const rng = new SeededRandom(options.seed);
  const prose = generateSyntheticCorpus({
    ...QUALITY_VOCABULARY,
    documents: options.documents,
    exactDuplicateRate: 0.06,
    nearDuplicateRate: 0.08,
    editRate: [0.01, 0.02],
    wordsPerDocument: [150, 300],
  });
  const copied = new Set(prose.filter((d) => d.kind !== 'original').map((d) => d.family));
  const candidates = prose.filter((d) => d.kind === 'original' && !copied.has(d.family));
  /** @type {Map<string, string>} */
  const contaminated = new Map();
  while (contaminated.size < Math.min(options.contaminated, evalQueries.length, candidates.length)) {
    const doc = rng.pick(candidates);
    if (contaminated.has(doc.id)) continue;
    const paragraphs = doc.text.split('\n\n');
    paragraphs.splice(rng.int(0, paragraphs.length), 0, /** @type {string} */ (evalQueries[contaminated.size]));
    contaminated.set(doc.id, paragraphs.join('\n\n'));
  }
  const spam = generateQualityExamples({ ...QUALITY_VOCABULARY, count: QUALITY_TRAINING_EXAMPLES + 2 * options.spam })
    .slice(QUALITY_TRAINING_EXAMPLES)
    .filter((e) => e.label === 'lq');

  /** @type {FixtureRecord[]} */
  const records = [];
  const add = (/** @type {string | null} */ text, /** @type {string} */ planted, /** @type {number} */ family) => {
    const n = records.length;
    records.push({ id: `web-${String(n).padStart(6, '0')}`, text, url: `https://example.org/page/${n}`, planted, family });
  };
  const spamEvery = Math.max(1, Math.floor(prose.length / Math.max(1, spam.length)));
  const seen = new Set();
  prose.forEach((d, i) => {
    const planted = contaminated.get(d.id);
    // An edited copy whose edits all missed (or that equals another copy) is an exact copy.
    const kind = d.kind === 'near' && seen.has(d.text) ? 'exact' : d.kind;
    seen.add(d.text);
    add(planted ?? d.text, planted === undefined ? kind : 'contaminated', d.family);
    const s = i % spamEvery === spamEvery - 1 ? spam[Math.floor(i / spamEvery)] : undefined;
    if (s !== undefined) add(s.text, 'spam', -1);
  });
  add(null, 'blank', -1);
  add(' \n\t ', 'blank', -1);
  return records;
}

/**
 * Writes the fixture as `files` parquet files (`data/train-0000i-of-0000N.parquet`, row groups of 64 records, zstd).
 * @param {FixtureOptions & { files: number, output_path: string }} config
 */
async function writeCurationFixture(config) {
  const queries = (await readFile(tinyMcTaskPath(), 'utf8'))
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => /** @type {{ query: string }} */ (JSON.parse(l)).query);
  const records = curationFixtureRecords(config, queries);
  const perFile = Math.ceil(records.length / config.files);
  for (let f = 0; f < config.files; f++) {
    const name = `train-${String(f).padStart(5, '0')}-of-${String(config.files).padStart(5, '0')}.parquet`;
    await writeParquetPart(`${config.output_path}/data/${name}`, records.slice(f * perFile, (f + 1) * perFile), { columns: [...COLUMNS], rowGroupRows: 64 });
  }
}

/**
 * The step `raw/curation-synthetic` writing the fixture (its seed, sizes and file count are versioned).
 * @param {Partial<FixtureOptions & { files: number }>} [options]
 */
export function curationFixture(options = {}) {
  return new ExecutorStep({
    name: 'raw/curation-synthetic',
    fn: (/** @type {Record<string, unknown>} */ config) => writeCurationFixture(/** @type {FixtureOptions & { files: number, output_path: string }} */ (config)),
    config: {
      output_path: THIS_OUTPUT_PATH,
      seed: versioned(options.seed ?? 7),
      documents: versioned(options.documents ?? 600),
      spam: versioned(options.spam ?? 60),
      contaminated: versioned(options.contaminated ?? 12),
      files: versioned(options.files ?? 3),
    },
  });
}
