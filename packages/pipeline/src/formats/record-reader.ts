import { readJsonlRecords } from './jsonl-records.js';
import type { JsonlRecord } from './jsonl-records.js';
import type { DatasetPart } from './dataset-part.js';
import { recordFileFormat } from './input-format.js';
import { readParquetRecords, readParquetRowGroups } from './parquet-records.js';

/** Options of {@link readPartRecords}. */
export interface ReadPartOptions {
  /** Parquet: read only these top-level columns. JSON lines are parsed whole either way. */
  columns?: readonly string[];
  /** Parquet: these string columns come as their UTF-8 bytes (`readParquetRecords`' `utf8Columns`); JSON lines give strings. */
  utf8Columns?: readonly string[];
  /** Checked between records. */
  signal?: AbortSignal;
}

/**
 * Streams the records of one part — a parquet row group or a JSON-lines file — in stored order, as
 * plain objects keyed by top-level field. Memory is bounded by one row group (parquet) or one line.
 *
 * @throws {PipelineError} PIPELINE_INPUT_INVALID naming the file (and row group or line) for corrupt
 *   input; PIPELINE_INPUT_NOT_FOUND for a missing file, row group or column
 */
export async function* readPartRecords(part: DatasetPart, options: ReadPartOptions = {}): AsyncGenerator<Record<string, unknown>> {
  if (part.format === 'parquet') {
    yield* readParquetRecords(part.url, {
      rowGroup: part.rowGroup ?? null,
      ...(options.columns === undefined ? {} : { columns: options.columns }),
      ...(options.utf8Columns === undefined ? {} : { utf8Columns: options.utf8Columns }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    return;
  }
  for await (const { record } of readJsonlRecords(part.url, options.signal === undefined ? {} : { signal: options.signal })) yield record;
}

/** Records per batch of a JSON-lines part in {@link readPartBatches}. */
const JSONL_BATCH = 1024;

/**
 * {@link readPartRecords} in batches: a parquet part's records as one array per row group, a JSON-lines
 * part's in arrays of up to 1,024 lines; the caller owns each array. For consumers that loop over records
 * synchronously, with one await per batch instead of one per record. Same order, values and errors.
 *
 * @throws {PipelineError} as {@link readPartRecords}
 */
export async function* readPartBatches(part: DatasetPart, options: ReadPartOptions = {}): AsyncGenerator<Record<string, unknown>[]> {
  if (part.format === 'parquet') {
    yield* readParquetRowGroups(part.url, {
      rowGroup: part.rowGroup ?? null,
      ...(options.columns === undefined ? {} : { columns: options.columns }),
      ...(options.utf8Columns === undefined ? {} : { utf8Columns: options.utf8Columns }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    return;
  }
  let batch: Record<string, unknown>[] = [];
  for await (const { record } of readJsonlRecords(part.url, options.signal === undefined ? {} : { signal: options.signal })) {
    batch.push(record);
    if (batch.length === JSONL_BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/**
 * Streams every record of a record file of any supported format (parquet, JSON lines plain / `.gz` /
 * `.zst`), with its 1-based line (JSON lines) or row number (parquet) for error messages.
 *
 * @throws {PipelineError} PIPELINE_UNSUPPORTED_FORMAT for another file ending; otherwise as {@link readPartRecords}
 */
export async function* readFileRecords(url: string, options: ReadPartOptions = {}): AsyncGenerator<JsonlRecord> {
  const { format } = recordFileFormat(url);
  if (format === 'jsonl') {
    yield* readJsonlRecords(url, options.signal === undefined ? {} : { signal: options.signal });
    return;
  }
  let line = 0;
  for await (const record of readParquetRecords(url, {
    ...(options.columns === undefined ? {} : { columns: options.columns }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  })) {
    line += 1;
    yield { record, line };
  }
}
