/**
 * @packageDocumentation
 * `@marin/pipeline`: Marin's pipeline stages as executor steps — download a Hugging Face repository,
 * turn HTML documents into Markdown, tokenize them into caches in Levanter's own format, then train
 * and evaluate with Levanter. See README.md.
 */
export { PipelineError } from './errors.js';
export type { PipelineErrorCode } from './errors.js';
export { runParts } from './fanout/run-parts.js';
export type { PartSpec, RunPartsOptions } from './fanout/run-parts.js';
export { readJsonlRecords } from './formats/jsonl-records.js';
export type { JsonlRecord } from './formats/jsonl-records.js';
export { partLabel } from './formats/dataset-part.js';
export type { DatasetPart, JsonlCompression, PartFormat } from './formats/dataset-part.js';
export { RECORD_FILE_EXTENSIONS, recordFileFormat } from './formats/input-format.js';
export type { RecordFileFormat } from './formats/input-format.js';
export { listDatasetParts, listRecordFiles } from './formats/dataset-parts.js';
export { readPartBatches, readPartRecords } from './formats/record-reader.js';
export type { ReadPartOptions } from './formats/record-reader.js';
export { openParquetFile } from './formats/parquet-file.js';
export type { ParquetFile, ParquetRowGroupInfo } from './formats/parquet-file.js';
export { readParquetRecords, readParquetRowGroups } from './formats/parquet-records.js';
export type { ReadParquetOptions } from './formats/parquet-records.js';
export { readParquetUtf8Columns } from './formats/parquet-utf8-column.js';
export type { ReadUtf8ColumnOptions, Utf8ColumnGroup } from './formats/parquet-utf8-column.js';
export { Utf8Arena, utf8StringAt, utf8ValueAt } from './formats/utf8-column.js';
export type { Utf8Column } from './formats/utf8-column.js';
export { parquetSchemaOf, schemaElementsOf } from './formats/parquet-schema.js';
export type { ParquetColumnSpec, ParquetValueType } from './formats/parquet-schema.js';
export { createParquetPartWriter, writeParquetPart } from './formats/parquet-part-writer.js';
export type { ParquetPartResult, ParquetPartWriter, ParquetPartWriterOptions } from './formats/parquet-part-writer.js';
export { dataflowTask, readTaskResult } from './dataflow/dataflow-task.js';
export type { DataflowTask, DataflowTaskArgs, DataflowTaskBody } from './dataflow/dataflow-task.js';
export { runTasks, taskDoneUrl } from './dataflow/run-tasks.js';
export type { RunTasksOptions, TaskSpec } from './dataflow/run-tasks.js';
export { createShuffleWriter, shuffleFilesOf } from './dataflow/shuffle-writer.js';
export type { ShuffleMapOutput, ShuffleWriter, ShuffleWriterOptions } from './dataflow/shuffle-writer.js';
export { forEachShuffleRecord, readShufflePartition } from './dataflow/shuffle-reader.js';
export type { ReadShuffleOptions, VisitShuffleOptions } from './dataflow/shuffle-reader.js';
export { compareKeys, forEachMerged, mergeSorted } from './dataflow/sorted-merge.js';
export type { RecordVisitor, SortedBatchSource } from './dataflow/sorted-merge.js';
export { partitionOfHexId, partitionOfKey } from './dataflow/partition-of.js';
export { ID_COLUMN, checkCoPartitioned, listPartFiles, partFileName } from './attributes/attribute-dataset.js';
export { columnSpecOf, describeKind, kindOfParquetColumn, kindOfValue, mergeKinds } from './formats/column-kind.js';
export type { ColumnKind } from './formats/column-kind.js';
export { decodeFields, encodeFields } from './dataflow/record-codec.js';
export { DEFAULT_MAX_WHITESPACE_RUN_CHARS, compactWhitespace, generateId, isBlank } from './steps/normalize/normalize-record.js';
export { NORMALIZE_COUNTERS, normalizeMapTask } from './steps/normalize/normalize-map.js';
export type { NormalizeMapArgs, NormalizeMapResult } from './steps/normalize/normalize-map.js';
export type { ObservedColumn } from './steps/normalize/output-columns.js';
export { normalizeReduceTask } from './steps/normalize/normalize-reduce.js';
export { normalizeSingleTask } from './steps/normalize/normalize-single.js';
export type { NormalizeSingleArgs, NormalizeSingleResult } from './steps/normalize/normalize-single.js';
export type { NormalizeReduceArgs, NormalizeReduceResult } from './steps/normalize/normalize-reduce.js';
export { NORMALIZED_DATA_FILE, NormalizeConfigSchema, normalizeToParquet } from './steps/normalize/normalize.js';
export type { NormalizeConfig, NormalizeOptions, NormalizedData } from './steps/normalize/normalize.js';
export { defaultNormalize } from './steps/normalize/default-normalize.js';
export { FilterConfigSchema, filterValue, keepFractionThreshold, passes } from './steps/consolidate/consolidate-filter.js';
export type { FilterConfig, FilterOptions } from './steps/consolidate/consolidate-filter.js';
export { consolidatePartTask } from './steps/consolidate/consolidate-part.js';
export type { ConsolidatePartArgs, ConsolidatePartResult, FilterCounts } from './steps/consolidate/consolidate-part.js';
export { ConsolidateConfigSchema, consolidate } from './steps/consolidate/consolidate.js';
export type { ConsolidateConfig, ConsolidateOptions, ConsolidateResult } from './steps/consolidate/consolidate.js';
export { defaultConsolidate } from './steps/consolidate/default-consolidate.js';
export type { ConsolidateFilterInput, DefaultConsolidateConfig, DefaultConsolidateOptions } from './steps/consolidate/default-consolidate.js';
export type { DefaultNormalizeConfig, DefaultNormalizeOptions } from './steps/normalize/default-normalize.js';
export { SHIPPED_TOKENIZERS, evalSlicesPath, frayActorsPythonDir, levanterLockPath, offlineValidationDataPath, quickstartDataPath, servedLmScriptPath, tinyMcTaskPath, tokenizerLocation } from './assets.js';
export { defaultTransform } from './steps/transform/default-transform.js';
export type { DefaultTransformConfig, DefaultTransformOptions } from './steps/transform/default-transform.js';
export { MarkdownConfigSchema, createHtmlToMarkdown, parseMarkdownConfig } from './steps/transform/html-to-markdown.js';
export type { HtmlToMarkdown, MarkdownConfig, MarkdownOptions } from './steps/transform/html-to-markdown.js';
export { HtmlToMdConfigSchema, htmlToMd } from './steps/transform/transform.js';
export type { HtmlToMdConfig, HtmlToMdOptions } from './steps/transform/transform.js';
export { TransformShardsArgsSchema, transformShards } from './steps/transform/transform-shards.js';
export type { TransformShardsArgs } from './steps/transform/transform-shards.js';
export {
  DEFAULT_HUB_URL,
  DownloadConfigSchema,
  HUB_MAX_ATTEMPTS,
  defaultDownload,
  download,
  hubRetryDelayMs,
  parseDownloadConfig,
  parseRateLimitResetSeconds,
} from './steps/download/index.js';
export type {
  DefaultDownloadConfig,
  DefaultDownloadOptions,
  DownloadConfig,
  DownloadConfigInput,
  DownloadOptions,
  DownloadResult,
} from './steps/download/index.js';
export { CacheLedgerSchema, CacheWriterOptionsSchema, LEDGER_FILE, STATS_FILE, createCacheWriter, openTokenCache, writeShardedLedger } from './cache/index.js';
export type { CacheLedger, CacheWriteResult, CacheWriterConfig, CacheWriterOptions, TokenCache, TokenCacheWriter } from './cache/index.js';
export { defaultTokenize, resolveTokenizerSource } from './steps/tokenize/default-tokenize.js';
export type { DefaultTokenizeConfig, DefaultTokenizeOptions, DocumentSource, TokenizerSource } from './steps/tokenize/default-tokenize.js';
export { hubTokenizerDownload } from './steps/tokenize/hub-tokenizer-download.js';
export type { HubTokenizerDownloadConfig } from './steps/tokenize/hub-tokenizer-download.js';
export { checkPretokenized, downloadPretokenized, pretokenized } from './steps/tokenize/pretokenized.js';
export type { PretokenizedConfig, PretokenizedOptions, PretokenizedResult } from './steps/tokenize/pretokenized.js';
export { TOKENIZER_FILES, hubTokenizerName, isHubTokenizerRef, parseHubTokenizer } from './tokenizer/hub-tokenizer.js';
export type { HubTokenizerRef } from './tokenizer/hub-tokenizer.js';
export { checkTokenCache } from './cache/cache-check.js';
export type { TokenCacheCheck } from './cache/cache-check.js';
export { SPLITS, tokenize } from './steps/tokenize/tokenize.js';
export type { Split } from './steps/tokenize/tokenize.js';
export { TokenizeConfigSchema, parseTokenizeConfig } from './steps/tokenize/tokenize-config.js';
export type { TokenizeConfig, TokenizeConfigInput } from './steps/tokenize/tokenize-config.js';
export { tokenizePart } from './steps/tokenize/tokenize-part.js';
export type { TokenizePartArgs } from './steps/tokenize/tokenize-part.js';
export { LevanterTokenizerOptionsSchema, loadLevanterTokenizer } from './tokenizer/levanter-tokenizer.js';
export type { LevanterPreprocessorMetadata, LevanterTokenizer, LevanterTokenizerConfig, LevanterTokenizerOptions } from './tokenizer/levanter-tokenizer.js';
export { MAX_HOMOGENEOUS_RUN_CHARS, safeSplitForTokenizer } from './tokenizer/safe-split.js';
export { LONG_STRING_WORKAROUND, splitLongString } from './tokenizer/long-string-split.js';
export { defaultTrain } from './steps/train/default-train.js';
export type { DefaultTrainConfig, DefaultTrainOptions, TokenizedSource, TrainData } from './steps/train/default-train.js';
export { LmMixture, lmMixtureDataConfig, lmVaryingMixtureDataConfig, mixture } from './steps/train/mixture.js';
export type { BlockShuffle, LmMixtureDataConfigOptions, MixtureComponent, MixtureOptions, MixtureStages, MixtureWeights } from './steps/train/mixture.js';
export { LEVANTER_MIXTURE_BLOCK_SIZE, MixtureDataSchema } from './steps/train/mixture-data.js';
export type { MixtureData } from './steps/train/mixture-data.js';
export { trainLm } from './steps/train/train-lm.js';
export type { TrainLmArgs, TrainLmBudget, TrainLmInit, TrainLmOptimizer } from './steps/train/train-lm.js';
export { OFFLINE_VALIDATION, PALOMA, VALIDATION_SUITES, defaultValidationSets } from './steps/validation/validation-sets.js';
export type { DefaultValidationSetsOptions, ValidationSuite } from './steps/validation/validation-sets.js';
export { latestStepDir, trainLevanter } from './steps/train/train.js';
export { TrainBudgetSchema, TrainStepConfigSchema, parseTrainStepConfig } from './steps/train/train-step-config.js';
export type { TrainBudget, TrainStepConfig } from './steps/train/train-step-config.js';
export { FLOAT_HYPERPARAMETERS, SimpleTrainConfigSchema } from './steps/train/simple-train-config.js';
export type { ResolvedSimpleTrainConfig, SimpleTrainConfig, TrainHyperparameters } from './steps/train/simple-train-config.js';
export { LevanterModelConfigSchema, LlamaConfigSchema, llama_150m, llama_30m, llama_75m, llama_nano } from './steps/train/levanter-model-config.js';
export type { LevanterModelConfig, LlamaConfig } from './steps/train/levanter-model-config.js';
export { buildTrainLmConfig, trainLayout } from './steps/train/train-lm-config.js';
export type { TrainLayout, TrainLmContext } from './steps/train/train-lm-config.js';
export type { TrainSummary } from './steps/train/train-summary.js';
export { defaultEval } from './steps/eval/default-eval.js';
export type { DefaultEvalConfig, DefaultEvalOptions } from './steps/eval/default-eval.js';
export { assertShippedSlices, evalModelName, evaluateLevanter, resolveHfModel } from './steps/eval/eval.js';
export type { EvaluateOptions } from './steps/eval/eval.js';
export { CORE_TASKS, CORE_TASK_KEYS, coreTask } from './steps/eval/core-tasks.js';
export type { CoreTask } from './steps/eval/core-tasks.js';
export { evalSummaryRows, formatEvalSummary } from './steps/eval/eval-summary.js';
export type { EvalSummaryRow } from './steps/eval/eval-summary.js';
export { shippedSliceOf, shippedSliceTasks } from './steps/eval/shipped-slices.js';
export type { ShippedSlice } from './steps/eval/shipped-slices.js';
export { EvalStepConfigSchema, EvalTaskConfigSchema, parseEvalStepConfig } from './steps/eval/eval-step-config.js';
export type { EvalStepConfig, EvalTaskConfig } from './steps/eval/eval-step-config.js';
export { buildEvalResults } from './steps/eval/eval-results.js';
export { defaultServedEval } from './steps/eval/default-served-eval.js';
export type { DefaultServedEvalConfig, DefaultServedEvalOptions } from './steps/eval/default-served-eval.js';
export { evaluateServed } from './steps/eval/served-eval.js';
export type { EvaluateServedOptions, ServedEvalReport } from './steps/eval/served-eval.js';
export { ServedEvalStepConfigSchema, parseServedEvalStepConfig } from './steps/eval/served-eval-config.js';
export type { ServedEvalStepConfig } from './steps/eval/served-eval-config.js';
export { ServedLossAccumulator, decodeScoredBatch, encodeSequences } from './steps/eval/served-loss.js';
export type { ScoredBatch, ServedLossTotals } from './steps/eval/served-loss.js';
export { readyLineOf, startServedModel } from './steps/eval/served-model.js';
export type { ServedModel, ServedModelOptions } from './steps/eval/served-model.js';
export type { EvalResults, EvalResultsInput, HarnessOutput } from './steps/eval/eval-results.js';
export { levanterPythonEnv, levanterRuntime, levanterTokenizerPath } from './levanter/levanter-runtime.js';
export type { LevanterRuntime } from './levanter/levanter-runtime.js';
export { toLevanterYaml } from './levanter/levanter-yaml.js';
export type { LevanterConfigValue } from './levanter/levanter-yaml.js';

// Curation: fuzzy dedup, decontamination, fastText quality scores, synthetic corpora (see src/curation/DESIGN.md).
export {
  curationLockPath,
  curationScriptPath,
  tinyQualityModelPath,
  cleanText,
  cleanWords,
  fmix32,
  hashString32,
  shingleHashes,
  shingleSet,
  wordShingles,
  MinHashParamsSchema,
  parseMinHashParams,
  requireSameMinHashParams,
  sameMinHashParams,
  createMinHasher,
  estimateJaccard,
  lshThreshold,
  truncateCodePoints,
  ConnectedComponents,
  fuzzyDedupInMemory,
  fuzzyDupAttribute,
  idOfNodeKey,
  minhashBuckets,
  nodeKey,
  MINHASH_ATTR_COLUMNS,
  MINHASH_MANIFEST,
  computeMinhashAttrs,
  minhashPartTask,
  readMinhashManifest,
  FUZZY_DUPS_MANIFEST,
  FUZZY_DUP_COLUMNS,
  computeFuzzyDups,
  fuzzyDupsAttributesTask,
  fuzzyDupsBucketsTask,
  fuzzyDupsComponentsTask,
  fuzzyDupsMapTask,
  MIN_SHORT_EXACT_TOKENS,
  NGramConfigSchema,
  documentFeatures,
  hasLetter,
  ngramFeatures,
  paragraphFeatures,
  shortExactFeature,
  splitTokens,
  featureHash,
  featureHashFromBigInt,
  featureHashToBigInt,
  BloomFilter,
  EvalHashFilter,
  ExactHashSet,
  deserializeHashMembership,
  addEvalRecord,
  scoreDocument,
  DECON_COLUMNS,
  EVAL_INDEX_COLUMNS,
  buildEvalFilter,
  computeDecon,
  deconMarkTask,
  evalFilterPaths,
  ensureCurationPython,
  runCurationScript,
  scoreWithFasttext,
  TINY_QUALITY_FASTTEXT_ARGS,
  trainFasttextClassifier,
  generateQualityExamples,
  QUALITY_COLUMNS,
  computeQualityScores,
  qualityScoreTask,
  fasttextActorEntry,
  startQualityPool,
  SeededRandom,
  SyntheticCorpusOptionsSchema,
  generateSyntheticCorpus,
  syntheticDocuments,
  exactJaccardPairs,
  jaccard,
  thresholdClusters,
  pairwiseScores,
  generateContaminatedCorpus,
} from './curation/index.js';
export type {
  MinHashParams,
  MinHashParamsInput,
  MinHasher,
  BucketRow,
  DedupRecord,
  FuzzyDupAttribute,
  InMemoryDedupResult,
  InMemoryPart,
  MinHashCounters,
  RecordOrigin,
  ComputeMinhashAttrsOptions,
  MinHashManifest,
  MinhashPartArgs,
  ComputeFuzzyDupsOptions,
  FuzzyAttributesArgs,
  FuzzyBucketsArgs,
  FuzzyComponentsArgs,
  FuzzyDupsManifest,
  FuzzyMapArgs,
  NGramConfig,
  NGramConfigInput,
  FeatureHash,
  EvalHashFilterOptions,
  HashMembership,
  DeconAttribute,
  EvalIndexRow,
  BuildEvalFilterOptions,
  ComputeDeconOptions,
  DeconManifest,
  DeconMarkArgs,
  CurationScriptOptions,
  FasttextScoreOptions,
  ScoreInput,
  FasttextDatasetSpec,
  TrainFasttextOptions,
  TrainFasttextResult,
  LabelledExample,
  ComputeQualityScoresOptions,
  QualityScoreArgs,
  QualityActorPoolOptions,
  QualityPool,
  SyntheticCorpusOptions,
  SyntheticDocument,
  JaccardPair,
  PairwiseScores,
  ContaminatedCorpus,
} from './curation/index.js';
export {
  decontaminateStep,
  defaultDecontaminate,
  defaultFuzzyDedup,
  defaultMinhash,
  defaultQualityScore,
  defaultTrainQualityClassifier,
  fuzzyDedupStep,
  minhashStep,
  qualityScoreStep,
  trainQualityStep,
} from './steps/curation/curation-steps.js';
export type {
  CurationRunOptions,
  CurationSource,
  DecontaminateStepConfig,
  FuzzyDedupStepConfig,
  MinhashStepConfig,
  QualityScoreStepConfig,
  QualityStepActorPool,
  QualityTrainingSource,
  TrainQualityStepConfig,
} from './steps/curation/curation-steps.js';
