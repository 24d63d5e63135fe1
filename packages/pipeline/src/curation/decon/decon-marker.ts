import { PipelineError } from '../../errors.js';
import { featureHash, featureHashToBigInt } from './feature-hash.js';
import type { HashMembership } from './hash-membership.js';
import { documentFeatures, paragraphFeatureHashes, shortExactFeatureHash } from './ngram-features.js';
import type { NGramConfig } from './ngram-features.js';

/** One row of the eval-hash sidecar: a feature hash and the eval record it came from. */
export interface EvalIndexRow {
  hash: bigint;
  eval_id: string;
}

/**
 * Adds one eval record's features to the filter and returns its sidecar rows (each hash once per record).
 * @throws {PipelineError} PIPELINE_INPUT_INVALID for a text that is neither a string nor null
 */
export function addEvalRecord(filter: HashMembership, text: unknown, evalId: string, ngram: NGramConfig): EvalIndexRow[] {
  if (text === null || text === undefined || text === '') return [];
  if (typeof text !== 'string') {
    throw new PipelineError('PIPELINE_INPUT_INVALID', `eval record "${evalId}" has a ${typeof text} text; decontamination needs string texts`, { details: { id: evalId } });
  }
  const rows: EvalIndexRow[] = [];
  const seen = new Set<bigint>();
  for (const feature of documentFeatures(text, ngram)) {
    const h = featureHash(feature);
    filter.add(h);
    const v = featureHashToBigInt(h);
    if (seen.has(v)) continue;
    seen.add(v);
    rows.push({ hash: v, eval_id: evalId });
  }
  return rows;
}

/** The decontamination attribute of one training document. */
export interface DeconAttribute {
  id: string;
  /** True when the best paragraph's overlap is above zero and at least `overlap_threshold`. */
  contaminated: boolean;
  /** The highest fraction of a paragraph's features found in the eval filter, in [0, 1]. */
  max_overlap: number;
  /** The distinct eval-filter hits of the document; join them with the sidecar to name the eval records. */
  matched_hashes: bigint[];
}

/**
 * Scores one document as Marin's datakit decon does: each non-empty paragraph's overlap is the fraction of its
 * features (n-grams with a letter, or one exact feature for a short paragraph) in the filter; the document's
 * `max_overlap` is the best paragraph's; a document whose paragraphs have no features at all is matched on its whole
 * text's short exact feature (overlap 1 on a hit).
 */
export function scoreDocument(id: string, text: string, filter: HashMembership, ngram: NGramConfig): DeconAttribute {
  let max = 0;
  const matched = new Set<bigint>();
  let anyFeatures = false;
  for (const paragraph of text.split(ngram.paragraph_delimiter)) {
    if (paragraph === '') continue;
    const features = paragraphFeatureHashes(paragraph, ngram);
    if (features.length === 0) continue;
    anyFeatures = true;
    let hits = 0;
    for (const h of features) {
      if (filter.has(h)) {
        hits++;
        matched.add(featureHashToBigInt(h));
      }
    }
    const score = hits / features.length;
    if (score > max) max = score;
  }
  if (!anyFeatures) {
    const h = shortExactFeatureHash(text, ngram.ngram_length);
    if (h !== null && filter.has(h)) {
      max = 1;
      matched.add(featureHashToBigInt(h));
    }
  }
  return { id, contaminated: max > 0 && max >= ngram.overlap_threshold, max_overlap: max, matched_hashes: [...matched] };
}
