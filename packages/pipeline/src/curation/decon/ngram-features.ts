import { z } from 'zod';
import { combineTokenHashes, tokenHashes } from './feature-hash.js';
import type { FeatureHash } from './feature-hash.js';

/**
 * Word n-gram matching parameters, with Marin's defaults (`NGramConfig` in datakit's decon): 13-word n-grams at every
 * position, a paragraph is contaminated when at least half its n-grams are eval n-grams, paragraphs are blank-line
 * blocks.
 */
export const NGramConfigSchema = z
  .object({
    /** Words per n-gram (whitespace-split tokens). @default 13 */
    ngram_length: z.number().int().positive().default(13),
    /** Positions skipped between n-grams; 0 takes every position. @default 0 */
    stride: z.number().int().nonnegative().default(0),
    /** Fraction of a paragraph's n-grams that must be eval n-grams for the paragraph to count. @default 0.5 */
    overlap_threshold: z.number().min(0).max(1).default(0.5),
    /** What paragraphs are split on. @default "\n\n" */
    paragraph_delimiter: z.string().min(1).default('\n\n'),
  })
  .strict();

/** What callers pass. */
export type NGramConfigInput = z.input<typeof NGramConfigSchema>;
/** Resolved n-gram config. */
export type NGramConfig = z.output<typeof NGramConfigSchema>;

/**
 * Marin's evidence floor for short paragraphs: a paragraph of at least this many tokens (and fewer than
 * `ngram_length`) that has a letter is matched as one exact feature, so short eval records stay matchable while
 * one-token labels and punctuation ("A.", "...") never match.
 */
export const MIN_SHORT_EXACT_TOKENS = 3;

// Python's str.split() separators: Unicode whitespace plus \x1c-\x1f and \x85.
const WHITESPACE = /[\s\x1c-\x1f\x85]+/;
const LETTER = /\p{L}/u;

/** Whitespace-split tokens, as Python's `str.split()` without arguments. */
export function splitTokens(text: string): string[] {
  const tokens = text.split(WHITESPACE);
  if (tokens[0] === '') tokens.shift();
  if (tokens.length > 0 && tokens[tokens.length - 1] === '') tokens.pop();
  return tokens;
}

/** True when `s` has at least one letter: n-grams without one (number lists, punctuation runs) are never features. */
export function hasLetter(s: string): boolean {
  return LETTER.test(s);
}

/** The one exact feature of a short paragraph (3 to `n - 1` tokens with a letter), or `null`. */
export function shortExactFeature(text: string, n: number): string | null {
  const tokens = splitTokens(text);
  return tokens.length >= MIN_SHORT_EXACT_TOKENS && tokens.length < n && hasLetter(text) ? tokens.join(' ') : null;
}

/** The n-grams of a paragraph that have a letter, every `stride + 1` positions. */
export function ngramFeatures(text: string, n: number, stride: number): string[] {
  const tokens = splitTokens(text);
  const out: string[] = [];
  for (let i = 0; i + n <= tokens.length; i += stride + 1) {
    const ngram = tokens.slice(i, i + n).join(' ');
    if (hasLetter(ngram)) out.push(ngram);
  }
  return out;
}

/** A paragraph's features: its one short exact feature when it has one, else its n-grams. */
export function paragraphFeatures(paragraph: string, ngram: NGramConfig): string[] {
  const short = shortExactFeature(paragraph, ngram.ngram_length);
  return short !== null ? [short] : ngramFeatures(paragraph, ngram.ngram_length, ngram.stride);
}

/**
 * Every feature of a text (what an eval record contributes to the filter): the features of each non-empty paragraph;
 * when no paragraph has any, the whole text's short exact feature if it has one.
 */
export function documentFeatures(text: string, ngram: NGramConfig): string[] {
  const out: string[] = [];
  for (const paragraph of text.split(ngram.paragraph_delimiter)) {
    if (paragraph === '') continue;
    out.push(...paragraphFeatures(paragraph, ngram));
  }
  if (out.length === 0) {
    const short = shortExactFeature(text, ngram.ngram_length);
    if (short !== null) out.push(short);
  }
  return out;
}

/**
 * The hashes of {@link paragraphFeatures} without building the feature strings: equal, feature for feature, to
 * `paragraphFeatures(p).map(featureHash)` (tested). A window has a letter exactly when one of its tokens has.
 */
export function paragraphFeatureHashes(paragraph: string, ngram: NGramConfig): FeatureHash[] {
  return tokenFeatureHashes(splitTokens(paragraph), ngram);
}

function tokenFeatureHashes(tokens: readonly string[], ngram: NGramConfig): FeatureHash[] {
  const n = ngram.ngram_length;
  const letters = new Int32Array(tokens.length + 1);
  for (let i = 0; i < tokens.length; i++) letters[i + 1] = (letters[i] as number) + (LETTER.test(tokens[i] as string) ? 1 : 0);
  const hashes = tokenHashes(tokens);
  if (tokens.length >= MIN_SHORT_EXACT_TOKENS && tokens.length < n) {
    return (letters[tokens.length] as number) > 0 ? [combineTokenHashes(hashes, 0, tokens.length)] : [];
  }
  const out: FeatureHash[] = [];
  for (let i = 0; i + n <= tokens.length; i += ngram.stride + 1) {
    if ((letters[i + n] as number) - (letters[i] as number) > 0) out.push(combineTokenHashes(hashes, i, n));
  }
  return out;
}

/** The hash of a whole text's short exact feature, or `null` (see {@link shortExactFeature}). */
export function shortExactFeatureHash(text: string, n: number): FeatureHash | null {
  const tokens = splitTokens(text);
  if (tokens.length < MIN_SHORT_EXACT_TOKENS || tokens.length >= n || !tokens.some((t) => LETTER.test(t))) return null;
  return combineTokenHashes(tokenHashes(tokens), 0, tokens.length);
}
