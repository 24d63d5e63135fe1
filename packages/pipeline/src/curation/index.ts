// The curation stages' algorithms and storage-file stages: fuzzy dedup (MinHash + LSH + connected components),
// decontamination, fastText quality scores, and the seeded synthetic corpora with their ground truth and scorer.
export { curationLockPath, curationScriptPath, tinyQualityModelPath } from './curation-assets.js';
export { cleanText, cleanWords } from './minhash/clean-text.js';
export { fmix32, hashString32, shingleHashes, shingleSet, wordShingles } from './minhash/shingles.js';
export { MinHashParamsSchema, parseMinHashParams, requireSameMinHashParams, sameMinHashParams } from './minhash/minhash-params.js';
export type { MinHashParams, MinHashParamsInput } from './minhash/minhash-params.js';
export { createMinHasher, estimateJaccard, lshThreshold, truncateCodePoints } from './minhash/minhash.js';
export type { MinHasher } from './minhash/minhash.js';
export { ConnectedComponents } from './minhash/connected-components.js';
export { fuzzyDedupInMemory, fuzzyDupAttribute, idOfNodeKey, minhashBuckets, nodeKey } from './minhash/fuzzy-dedup.js';
export type { BucketRow, DedupRecord, FuzzyDupAttribute, InMemoryDedupResult, InMemoryPart, MinHashCounters, RecordOrigin } from './minhash/fuzzy-dedup.js';
export { MINHASH_ATTR_COLUMNS, MINHASH_MANIFEST, computeMinhashAttrs, minhashPartTask, readMinhashManifest } from './minhash/minhash-attrs.js';
export type { ComputeMinhashAttrsOptions, MinHashManifest, MinhashPartArgs } from './minhash/minhash-attrs.js';
export {
  FUZZY_DUPS_MANIFEST,
  FUZZY_DUP_COLUMNS,
  computeFuzzyDups,
  fuzzyDupsAttributesTask,
  fuzzyDupsBucketsTask,
  fuzzyDupsComponentsTask,
  fuzzyDupsMapTask,
} from './minhash/fuzzy-dups-stage.js';
export type { ComputeFuzzyDupsOptions, FuzzyAttributesArgs, FuzzyBucketsArgs, FuzzyComponentsArgs, FuzzyDupsManifest, FuzzyMapArgs } from './minhash/fuzzy-dups-stage.js';
export { MIN_SHORT_EXACT_TOKENS, NGramConfigSchema, documentFeatures, hasLetter, ngramFeatures, paragraphFeatures, shortExactFeature, splitTokens } from './decon/ngram-features.js';
export type { NGramConfig, NGramConfigInput } from './decon/ngram-features.js';
export { featureHash, featureHashFromBigInt, featureHashToBigInt } from './decon/feature-hash.js';
export type { FeatureHash } from './decon/feature-hash.js';
export { BloomFilter, EvalHashFilter, ExactHashSet, deserializeHashMembership } from './decon/hash-membership.js';
export type { EvalHashFilterOptions, HashMembership } from './decon/hash-membership.js';
export { addEvalRecord, scoreDocument } from './decon/decon-marker.js';
export type { DeconAttribute, EvalIndexRow } from './decon/decon-marker.js';
export { DECON_COLUMNS, EVAL_INDEX_COLUMNS, buildEvalFilter, computeDecon, deconMarkTask, evalFilterPaths } from './decon/decon-stage.js';
export type { BuildEvalFilterOptions, ComputeDeconOptions, DeconManifest, DeconMarkArgs } from './decon/decon-stage.js';
export { ensureCurationPython, runCurationScript, scoreWithFasttext } from './quality/fasttext-python.js';
export type { CurationScriptOptions, FasttextScoreOptions, ScoreInput } from './quality/fasttext-python.js';
export { TINY_QUALITY_FASTTEXT_ARGS, trainFasttextClassifier } from './quality/train-fasttext.js';
export type { FasttextDatasetSpec, TrainFasttextOptions, TrainFasttextResult } from './quality/train-fasttext.js';
export { generateQualityExamples } from './quality/quality-examples.js';
export type { LabelledExample } from './quality/quality-examples.js';
export { QUALITY_COLUMNS, computeQualityScores, qualityScoreTask } from './quality/quality-stage.js';
export type { ComputeQualityScoresOptions, QualityScoreArgs } from './quality/quality-stage.js';
export { fasttextActorEntry, startQualityPool } from './quality/quality-pool.js';
export type { QualityActorPoolOptions, QualityPool } from './quality/quality-pool.js';
export { SeededRandom } from './synthetic/seeded-random.js';
export { SyntheticCorpusOptionsSchema, generateSyntheticCorpus, syntheticDocuments } from './synthetic/synthetic-corpus.js';
export type { SyntheticCorpusOptions, SyntheticDocument } from './synthetic/synthetic-corpus.js';
export { exactJaccardPairs, jaccard, thresholdClusters } from './synthetic/ground-truth.js';
export type { JaccardPair } from './synthetic/ground-truth.js';
export { pairwiseScores } from './synthetic/pairwise-scores.js';
export type { PairwiseScores } from './synthetic/pairwise-scores.js';
export { generateContaminatedCorpus } from './synthetic/contaminated-corpus.js';
export type { ContaminatedCorpus } from './synthetic/contaminated-corpus.js';
