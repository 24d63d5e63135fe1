import { PipelineError } from '../errors.js';
import type { JsonlCompression, PartFormat } from './dataset-part.js';

/** File name endings of the record files this package reads (directories expand to these). */
export const RECORD_FILE_EXTENSIONS = [
  'parquet',
  'jsonl',
  'jsonl.gz',
  'jsonl.zst',
  'jsonl.zstd',
  'json.gz',
  'json.zst',
  'json.zstd',
] as const;

/** The storage format of a record file, from its name. */
export interface RecordFileFormat {
  format: PartFormat;
  /** For JSON lines: the stream's compression. */
  compression: JsonlCompression;
}

/**
 * The format of a record file from its name: `.parquet`, or JSON lines `.jsonl` / `.jsonl.gz` /
 * `.json.gz` / `.jsonl.zst` / `.json.zst` (`.zstd` too).
 *
 * @throws {PipelineError} PIPELINE_UNSUPPORTED_FORMAT for any other ending, naming the file
 */
export function recordFileFormat(url: string): RecordFileFormat {
  if (url.endsWith('.parquet')) return { format: 'parquet', compression: 'none' };
  if (url.endsWith('.jsonl')) return { format: 'jsonl', compression: 'none' };
  if (/\.jsonl?\.gz$/.test(url)) return { format: 'jsonl', compression: 'gzip' };
  if (/\.jsonl?\.zstd?$/.test(url)) return { format: 'jsonl', compression: 'zstd' };
  throw new PipelineError(
    'PIPELINE_UNSUPPORTED_FORMAT',
    `cannot read ${url}: expected .parquet, .jsonl, .jsonl.gz, .json.gz, .jsonl.zst or .json.zst`,
    { details: { path: url } },
  );
}
