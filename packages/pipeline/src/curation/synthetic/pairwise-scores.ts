/** Pairwise precision, recall and F1 of a clustering against the true one. */
export interface PairwiseScores {
  /** Pairs put in one cluster by both. */
  correctPairs: number;
  /** Pairs in one predicted cluster. */
  predictedPairs: number;
  /** Pairs in one true cluster. */
  truePairs: number;
  /** correct / predicted (1 when nothing is predicted). */
  precision: number;
  /** correct / true (1 when there is nothing to find). */
  recall: number;
  f1: number;
}

/**
 * Scores a clustering by its pairs: every pair of documents in one predicted cluster is a predicted duplicate
 * pair, every pair in one true cluster a true one. `predicted[i]` and `truth[i]` are document `i`'s cluster
 * labels (any value; a document alone in its label is a singleton). Counts through the contingency table, so it
 * never enumerates pairs.
 */
export function pairwiseScores<TLabel>(predicted: readonly TLabel[], truth: readonly TLabel[]): PairwiseScores {
  if (predicted.length !== truth.length) throw new RangeError(`predicted has ${predicted.length} labels, truth ${truth.length}`);
  const pairs = (n: number): number => (n * (n - 1)) / 2;
  const predictedSizes = new Map<TLabel, number>();
  const trueSizes = new Map<TLabel, number>();
  const joint = new Map<TLabel, Map<TLabel, number>>();
  for (let i = 0; i < predicted.length; i++) {
    const p = predicted[i] as TLabel;
    const t = truth[i] as TLabel;
    predictedSizes.set(p, (predictedSizes.get(p) ?? 0) + 1);
    trueSizes.set(t, (trueSizes.get(t) ?? 0) + 1);
    let row = joint.get(p);
    if (row === undefined) joint.set(p, (row = new Map()));
    row.set(t, (row.get(t) ?? 0) + 1);
  }
  let correctPairs = 0;
  for (const row of joint.values()) for (const n of row.values()) correctPairs += pairs(n);
  let predictedPairs = 0;
  for (const n of predictedSizes.values()) predictedPairs += pairs(n);
  let truePairs = 0;
  for (const n of trueSizes.values()) truePairs += pairs(n);
  const precision = predictedPairs === 0 ? 1 : correctPairs / predictedPairs;
  const recall = truePairs === 0 ? 1 : correctPairs / truePairs;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { correctPairs, predictedPairs, truePairs, precision, recall, f1 };
}
