import { z } from 'zod';
import { PipelineError } from '../../errors.js';
import { SeededRandom } from './seeded-random.js';

/** Options of {@link generateSyntheticCorpus}; every field has a default. */
export const SyntheticCorpusOptionsSchema = z
  .object({
    /** Seed: equal options give byte-identical corpora. @default 1 */
    seed: z.number().int().default(1),
    /** Number of documents. @default 1000 */
    documents: z.number().int().nonnegative().default(1000),
    /** Fraction of documents that are byte-identical copies of an earlier one. @default 0.05 */
    exactDuplicateRate: z.number().min(0).max(1).default(0.05),
    /** Fraction of documents that are edited copies of an earlier one. @default 0.1 */
    nearDuplicateRate: z.number().min(0).max(1).default(0.1),
    /** Fraction of words a near duplicate substitutes, inserts or deletes, drawn uniformly from this range. @default [0.005, 0.1] */
    editRate: z.tuple([z.number().min(0).max(1), z.number().min(0).max(1)]).default([0.005, 0.1]),
    /** Words per original document, drawn uniformly from this range. @default [40, 400] */
    wordsPerDocument: z.tuple([z.number().int().positive(), z.number().int().positive()]).default([40, 400]),
    /** Distinct words, drawn with Zipf's law (exponent 1). @default 30000 */
    vocabularySize: z.number().int().min(10).default(30_000),
    /** Words per paragraph; paragraphs are joined by a blank line. @default 80 */
    wordsPerParagraph: z.number().int().positive().default(80),
    /**
     * How many of the most recent originals a planted duplicate may copy; `null` = any earlier original. A window
     * bounds the generator's memory, so {@link syntheticDocuments} can stream a corpus of any size. @default null
     */
    sourceWindow: z.number().int().positive().nullable().default(null),
  })
  .strict();

/** What callers pass. */
export type SyntheticCorpusOptions = z.input<typeof SyntheticCorpusOptionsSchema>;

/** One generated document and how it was planted. */
export interface SyntheticDocument {
  /** `doc-NNNNNNNN`, in generation order. */
  id: string;
  text: string;
  /** Index of the original document this one copies (its own index for an original). */
  family: number;
  kind: 'original' | 'exact' | 'near';
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'qua', 'bri', 'sto', 'pla', 'dre', 'fu', 'gen', 'hal', 'jor', 'wix', 'yen'];

/**
 * A seeded synthetic corpus with planted exact and near duplicates: sentences of Zipf-distributed pseudo-words with
 * capitals and punctuation, in blank-line-separated paragraphs. A planted duplicate copies a random earlier
 * original (exact) or edits a copy of it (near: a drawn fraction of words substituted, inserted or deleted).
 * No download, no file: the same options give the same documents everywhere.
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID for invalid options
 */
export function generateSyntheticCorpus(options: SyntheticCorpusOptions = {}): SyntheticDocument[] {
  return [...syntheticDocuments(options)];
}

/**
 * The documents of {@link generateSyntheticCorpus}, one at a time (the same documents for the same options). With
 * `sourceWindow` set it holds only that many originals, so a corpus of gigabytes streams in bounded memory.
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID for invalid options (at the first `next()`)
 */
export function* syntheticDocuments(options: SyntheticCorpusOptions = {}): Generator<SyntheticDocument> {
  const parsed = SyntheticCorpusOptionsSchema.safeParse(options);
  if (!parsed.success) {
    throw new PipelineError('PIPELINE_CONFIG_INVALID', 'invalid synthetic corpus options', { details: { issues: parsed.error.issues } });
  }
  const o = parsed.data;
  const rng = new SeededRandom(o.seed);
  const vocabulary = buildVocabulary(o.vocabularySize, rng);
  const cumulative = zipfCumulative(o.vocabularySize);
  const drawWord = (): string => vocabulary[lowerBound(cumulative, rng.next())] as string;

  // With a window, a ring of the latest originals (picked uniformly, so slot order does not matter).
  const originals: { index: number; words: string[]; text: string }[] = [];
  let originalCount = 0;
  for (let i = 0; i < o.documents; i++) {
    const id = `doc-${i.toString().padStart(8, '0')}`;
    const roll = rng.next();
    if (originals.length > 0 && roll < o.exactDuplicateRate) {
      const source = rng.pick(originals);
      yield { id, text: source.text, family: source.index, kind: 'exact' };
    } else if (originals.length > 0 && roll < o.exactDuplicateRate + o.nearDuplicateRate) {
      const source = rng.pick(originals);
      const rate = o.editRate[0] + rng.next() * (o.editRate[1] - o.editRate[0]);
      const words = editWords(source.words, rate, rng, drawWord);
      yield { id, text: render(words, o.wordsPerParagraph), family: source.index, kind: 'near' };
    } else {
      const count = rng.int(o.wordsPerDocument[0], Math.max(o.wordsPerDocument[0], o.wordsPerDocument[1]));
      const words = Array.from({ length: count }, drawWord);
      const text = render(words, o.wordsPerParagraph);
      const entry = { index: i, words, text };
      if (o.sourceWindow === null || originals.length < o.sourceWindow) originals.push(entry);
      else originals[originalCount % o.sourceWindow] = entry;
      originalCount += 1;
      yield { id, text, family: i, kind: 'original' };
    }
  }
}

function buildVocabulary(size: number, rng: SeededRandom): string[] {
  const seen = new Set<string>();
  const words: string[] = [];
  while (words.length < size) {
    const syllables = rng.int(1, 4);
    let w = '';
    for (let s = 0; s < syllables; s++) w += rng.pick(SYLLABLES);
    if (seen.has(w)) w += words.length.toString(36);
    if (seen.has(w)) continue;
    seen.add(w);
    words.push(w);
  }
  return words;
}

function zipfCumulative(size: number): Float64Array {
  const c = new Float64Array(size);
  let total = 0;
  for (let r = 0; r < size; r++) {
    total += 1 / (r + 1);
    c[r] = total;
  }
  for (let r = 0; r < size; r++) c[r] = (c[r] as number) / total;
  return c;
}

function lowerBound(sorted: Float64Array, x: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function editWords(words: readonly string[], rate: number, rng: SeededRandom, drawWord: () => string): string[] {
  const out: string[] = [];
  for (const w of words) {
    if (rng.next() >= rate) {
      out.push(w);
      continue;
    }
    const op = rng.int(0, 2);
    if (op === 0) out.push(drawWord());
    else if (op === 1) out.push(w, drawWord());
    // op 2 deletes the word
  }
  return out.length > 0 ? out : [drawWord()];
}

/** Sentences of 6–17 words, capitalised and ended with a period, comma-split now and then; paragraphs every `perParagraph` words. */
function render(words: readonly string[], perParagraph: number): string {
  let text = '';
  let sentenceStart = true;
  // The sentence lengths are a pure function of the word count, so an exact copy renders identically and a near
  // copy differs only around its edits.
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    const atParagraph = i > 0 && i % perParagraph === 0;
    if (i > 0) text += atParagraph ? '\n\n' : ' ';
    if (atParagraph) sentenceStart = true;
    text += sentenceStart ? w.charAt(0).toUpperCase() + w.slice(1) : w;
    sentenceStart = false;
    const h = (Math.imul(i + 1, 0x9e3779b1) >>> 0) % 12;
    if (h === 0 || i === words.length - 1) {
      text += '.';
      sentenceStart = true;
    } else if (h === 5) text += ',';
  }
  return text;
}
