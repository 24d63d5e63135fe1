import { CodedError, hasBrand } from '@marin/rigging';
import type { CodedErrorOptions } from '@marin/rigging';

/** Every error code of `@marin/pipeline`; callers branch on these, never on message text. */
export type PipelineErrorCode =
  /** A step config failed validation (zod issues in `details.issues`). */
  | 'PIPELINE_CONFIG_INVALID'
  /** An input path, glob or directory matched no files. */
  | 'PIPELINE_INPUT_NOT_FOUND'
  /** An input file is malformed: truncated gzip, a line that is not JSON, a record without the text key. */
  | 'PIPELINE_INPUT_INVALID'
  /** An input format this package cannot read (a file ending it does not know). */
  | 'PIPELINE_UNSUPPORTED_FORMAT'
  /**
   * Inputs that do not fit together: a column typed differently across files, a missing text column,
   * attribute datasets whose partitions do not match their source (`details.path`, `details.column`).
   */
  | 'PIPELINE_SCHEMA_MISMATCH'
  /** A stage's input holds no usable records (every text blank or missing). */
  | 'PIPELINE_EMPTY_DATASET'
  /** A tokenizer directory without a parseable `tokenizer.json`. */
  | 'PIPELINE_TOKENIZER_INVALID'
  /** The output location cannot be written (checked before any work starts). */
  | 'PIPELINE_OUTPUT_NOT_WRITABLE'
  /** The hub refused the credentials (401/403): set `HF_TOKEN` to a token with access. */
  | 'PIPELINE_HUB_UNAUTHORIZED'
  /** The hub has no such repository, revision or file (404). */
  | 'PIPELINE_HUB_NOT_FOUND'
  /** The hub kept failing (5xx, 429, network) after every retry. */
  | 'PIPELINE_HUB_UNAVAILABLE'
  /** A downloaded file's byte count differs from the listing. */
  | 'PIPELINE_SIZE_MISMATCH'
  /** A listed file path would land outside the output or on its bookkeeping (`..`, absolute, `.executor_*`, …), or an override symlink points out of its directory. */
  | 'PIPELINE_UNSAFE_PATH'
  /** The hub's tree listing is malformed or unbounded: not an array, an entry without a size, a looping, foreign or endless `Link`, an oversized page. */
  | 'PIPELINE_HUB_LISTING_INVALID'
  /** A token cache on disk is missing, unfinished or malformed, or stored in a layout this package does not read. */
  | 'PIPELINE_CACHE_INVALID'
  /** A token cache writer used after `finish()` or `abort()` (`details.path`, `details.state`). */
  | 'PIPELINE_WRITER_CLOSED'
  /** A Python environment or Levanter job could not start or failed. */
  | 'PIPELINE_JOB_FAILED'
  /**
   * A data mixture that cannot train: a negative, non-finite or all-zero weight, a weight naming no
   * component, badly ordered weight stages, components with different tokenizers or `seq_len`s
   * (`details.field`, `details.component`).
   */
  | 'PIPELINE_MIXTURE_INVALID'
  /** `init_from` names a checkpoint or Hugging Face export of another model shape (`details.mismatches`). */
  | 'PIPELINE_CHECKPOINT_MISMATCH';

const RETRYABLE: ReadonlySet<PipelineErrorCode> = new Set<PipelineErrorCode>(['PIPELINE_HUB_UNAVAILABLE']);
const BRAND = Symbol.for('@marin/pipeline/PipelineError');

/** The one error class of `@marin/pipeline`: a closed `code`, a `retryable` flag and a `cause` chain. */
export class PipelineError extends CodedError<PipelineErrorCode> {
  override readonly name = 'PipelineError';
  readonly [BRAND] = true;

  constructor(code: PipelineErrorCode, message: string, opts: CodedErrorOptions = {}) {
    super(code, message, opts, RETRYABLE);
  }

  /** Brand check that still works when two copies of the module are loaded. */
  static is(e: unknown): e is PipelineError {
    return hasBrand(e, BRAND);
  }

  /** True when `e` is a PipelineError carrying `code`. */
  static hasCode(e: unknown, code: PipelineErrorCode): e is PipelineError {
    return PipelineError.is(e) && e.code === code;
  }
}
