import type { JsonValue } from '@marin/fray';
import { createShuffleWriter } from '../../dataflow/shuffle-writer.js';
import type { ShuffleMapOutput, ShuffleWriter } from '../../dataflow/shuffle-writer.js';
import { dataflowTask } from '../../dataflow/dataflow-task.js';
import type { DataflowTaskArgs } from '../../dataflow/dataflow-task.js';
import { partitionOfHexId } from '../../dataflow/partition-of.js';
import { encodeFields } from '../../dataflow/record-codec.js';
import { PipelineError } from '../../errors.js';
import { describeKind, kindOfParquetColumn, kindOfValue } from '../../formats/column-kind.js';
import type { DatasetPart } from '../../formats/dataset-part.js';
import { openParquetFile } from '../../formats/parquet-file.js';
import type { ParquetFile } from '../../formats/parquet-file.js';
import { readParquetRowGroups } from '../../formats/parquet-records.js';
import { readParquetUtf8Columns } from '../../formats/parquet-utf8-column.js';
import { readPartBatches } from '../../formats/record-reader.js';
import { Utf8Arena, utf8ValueAt } from '../../formats/utf8-column.js';
import type { Utf8Column } from '../../formats/utf8-column.js';
import type { ParquetColumnSpec } from '../../formats/parquet-schema.js';
import { compactWhitespace, generateIdOfUtf8, hasLongSpaceRunUtf8, isBlank, isBlankUtf8 } from './normalize-record.js';
import { ColumnObserver } from './output-columns.js';
import type { ObservedColumn } from './output-columns.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Counter names, as Marin's datakit normalize records them. */
export const NORMALIZE_COUNTERS = {
  recordsIn: 'normalize/records_in',
  emptyTextFiltered: 'normalize/empty_text_filtered',
  compactedWhitespace: 'datakit_normalize_compacted_whitespace',
  uniqueRecordsOut: 'normalize/unique_records_out',
  duplicateRecordsOut: 'normalize/duplicate_records_out',
} as const;

/** The columns of normalize's shuffle files: the sort key, the text, and every other output field as tagged JSON. */
export const NORMALIZE_SHUFFLE_COLUMNS: ParquetColumnSpec[] = [
  { name: 'id', type: 'string', nullable: false, plain: true },
  { name: 'text', type: 'string', nullable: false, plain: true },
  { name: 'fields', type: 'string', nullable: false },
];

/** The JSON arguments of one normalize map task. */
export interface NormalizeMapArgs extends DataflowTaskArgs {
  parts: DatasetPart[];
  shuffle_dir: string;
  map_task: string;
  num_shards: number;
  text_field: string;
  id_field: string;
  max_whitespace_run_chars: number;
  bare: boolean;
  spill_bytes: number;
}

/** What a normalize map task records in its done marker. */
export interface NormalizeMapResult {
  [key: string]: JsonValue;
  shuffle: ShuffleMapOutput;
  counters: Record<string, number>;
  columns: ObservedColumn[];
}

/** Checks the text column of a parquet file and records the kinds of its output columns (once per file). */
function parquetKinds(file: ParquetFile, part: DatasetPart, args: NormalizeRecordArgs, observer: ColumnObserver, seen: Set<string>): void {
  if (seen.has(part.url)) return;
  seen.add(part.url);
  const text = file.schema.children.find((c) => c.element.name === args.text_field);
  if (text === undefined) {
    throw new PipelineError(
      'PIPELINE_SCHEMA_MISMATCH',
      `${part.url} has no text column ${JSON.stringify(args.text_field)} (its columns: ${file.columns.join(', ')}); set text_field`,
      { details: { path: part.url, column: args.text_field } },
    );
  }
  const textKind = kindOfParquetColumn(text);
  if (textKind.kind !== 'string') {
    throw new PipelineError(
      'PIPELINE_SCHEMA_MISMATCH',
      `text column ${JSON.stringify(args.text_field)} of ${part.url} is ${describeKind(textKind)}, not a string; set text_field to a string column`,
      { details: { path: part.url, column: args.text_field } },
    );
  }
  for (const child of file.schema.children) {
    const name = child.element.name;
    if (name === args.text_field) continue;
    if (name === args.id_field) observer.see('source_id', kindOfParquetColumn(child), part.url);
    else if (!args.bare && name !== 'id' && name !== 'text' && name !== 'source_id') observer.see(name, kindOfParquetColumn(child), part.url);
  }
}

/** The counters a map (or single) task starts with. */
export function initialMapCounters(): Record<string, number> {
  return {
    [NORMALIZE_COUNTERS.recordsIn]: 0,
    [NORMALIZE_COUNTERS.emptyTextFiltered]: 0,
    [NORMALIZE_COUNTERS.compactedWhitespace]: 0,
  };
}

/** What the normalize tasks need to turn input records into Marin's records. */
export type NormalizeRecordArgs = Pick<NormalizeMapArgs, 'parts' | 'text_field' | 'id_field' | 'max_whitespace_run_chars' | 'bare'>;

/**
 * Reads `args.parts` and calls `emit` with Marin's record of every non-blank text: `id` (xxh3-128 of
 * the whitespace-compacted text), the text as UTF-8 (encoded once, for the id and for the writers), and the other output fields (`source_id` from `id_field`,
 * the rest unless `bare`). Counts into `counters` and records the columns seen in `observer`.
 *
 * @throws {PipelineError} PIPELINE_SCHEMA_MISMATCH for a missing or non-string text column or a column whose
 *   type changes; PIPELINE_INPUT_INVALID for a non-string text value or corrupt input
 */
export async function forEachNormalizedRecord(
  args: NormalizeRecordArgs,
  signal: AbortSignal,
  counters: Record<string, number>,
  observer: ColumnObserver,
  sink: NormalizedRecordSink,
): Promise<void> {
  const parquetSeen = new Set<string>();
  // every text is kept (as a view) until the task sorts and writes or spills it: their bytes come from a
  // few large buffers rather than one per row group, which starts fewer major garbage collections
  const textArena = new Utf8Arena(textArenaChunkBytes(args.parts));
  const normalizer = new RecordNormalizer(args, observer, sink);
  // records are handled synchronously, a batch (row group) at a time; only a spilling sink is awaited
  for (const part of args.parts) {
    if (part.format !== 'parquet') {
      for await (const rows of readPartBatches(part, { signal })) {
        let next = 0;
        while (next < rows.length) {
          next = normalizer.runRecords(rows, next, part.url);
          await normalizer.settle();
        }
      }
      continue;
    }
    // Parquet texts come as one row group's UTF-8 bytes and offsets (no string or object per text): hashed
    // and written as they are, decoded only to compact a long run. The other flat string columns (ids,
    // urls: the common case) come the same way and are decoded straight into strings; only the rest
    // (numbers, timestamps, nested …) go through hyparquet's record assembly.
    await using file = await openParquetFile(part.url);
    parquetKinds(file, part, args, observer, parquetSeen);
    const stringNames: string[] = [];
    const stringColumns: string[] = [];
    const others: string[] = [];
    for (const child of file.schema.children) {
      const name = child.element.name;
      if (name === args.text_field || (args.bare && name !== args.id_field)) continue;
      const field = name === args.id_field ? 'source_id' : name === 'id' || name === 'text' || name === 'source_id' ? null : name;
      if (field === null) continue;
      if (kindOfParquetColumn(child).kind === 'string') {
        stringNames.push(field);
        stringColumns.push(name);
      } else {
        others.push(name);
      }
    }
    const rowGroup = part.rowGroup ?? null;
    const records = others.length === 0 ? null : readParquetRowGroups(file, { rowGroup, columns: others, signal });
    // the other string columns are decoded into strings before the next row group is read: one buffer each
    const stringReaders = stringColumns.map((c) => readParquetUtf8Columns(file, c, { rowGroup, signal, reuseBuffers: true }));
    try {
      for await (const { column } of readParquetUtf8Columns(file, args.text_field, { rowGroup, signal, arena: textArena })) {
        const corrupt = (n: number, what: string, name: string): PipelineError =>
          new PipelineError('PIPELINE_INPUT_INVALID', `a row group of ${part.url} has ${n} ${what} but ${column.length} texts: the file is corrupt`, {
            details: { path: part.url, column: name },
          });
        let rows: Record<string, unknown>[] | null = null;
        if (records !== null) {
          const next = await records.next();
          rows = next.done === true ? [] : next.value;
          if (rows.length !== column.length) throw corrupt(rows.length, 'records', args.text_field);
        }
        const values: (string | null)[][] = [];
        if (stringReaders.length > 0) {
          for (let c = 0; c < stringReaders.length; c++) {
            const next = await (stringReaders[c] as AsyncGenerator<{ column: Utf8Column }>).next();
            const read = next.done === true ? null : next.value.column;
            if (read?.length !== column.length) throw corrupt(read?.length ?? 0, 'values', stringColumns[c] as string);
            values.push(decodeStrings(read));
          }
        }
        const batch = new ParquetBatch(part.url, column, rows, stringNames, values);
        let next = 0;
        while (next < column.length) {
          next = normalizer.runParquet(batch, next);
          await normalizer.settle();
        }
      }
    } finally {
      await records?.return(undefined);
      for (const r of stringReaders) await r.return(undefined);
    }
  }
  counters[NORMALIZE_COUNTERS.recordsIn] = (counters[NORMALIZE_COUNTERS.recordsIn] ?? 0) + normalizer.recordsIn;
  counters[NORMALIZE_COUNTERS.emptyTextFiltered] = (counters[NORMALIZE_COUNTERS.emptyTextFiltered] ?? 0) + normalizer.empty;
  counters[NORMALIZE_COUNTERS.compactedWhitespace] = (counters[NORMALIZE_COUNTERS.compactedWhitespace] ?? 0) + normalizer.compacted;
}

/**
 * The buffer size of a task's text arena: about its texts' size, guessed from its parts' compressed
 * bytes (zstd or snappy text expands 2-4x), so most tasks take one buffer and start one major garbage
 * collection for it. Untouched pages of a buffer cost no memory, so guessing high is cheap; at most
 * 512 MiB (a task's default spill threshold), at least 16 MiB.
 */
export function textArenaChunkBytes(parts: readonly DatasetPart[]): number {
  let compressed = 0;
  for (const p of parts) compressed += p.bytes;
  return Math.min(512 * 1024 * 1024, Math.max(16 * 1024 * 1024, Math.ceil(compressed * 4)));
}

/** Every value of a row group's string column as a string (or null), decoded once from the column's bytes. */
function decodeStrings(column: Utf8Column): (string | null)[] {
  const { bytes } = column;
  const out = new Array<string | null>(column.length);
  decodeStringsInto(out, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), column.offsets, column.valid);
  return out;
}

/**
 * The loop of {@link decodeStrings}, taking what it reads as arguments: its first call runs long before
 * V8 has allocated its feedback, and code compiled for property reads made before the loop then would
 * lack feedback and deoptimize on the next call.
 */
function decodeStringsInto(out: (string | null)[], buffer: Buffer, offsets: Int32Array, valid: Uint8Array | null): void {
  for (let i = 0; i < out.length; i++) out[i] = valid !== null && valid[i] === 0 ? null : buffer.toString('utf8', offsets[i] as number, offsets[i + 1] as number);
}

/**
 * Where {@link forEachNormalizedRecord} hands Marin's records: `add` returns a promise only when it must
 * be awaited before the next record (a spill). An object with a method rather than a callback: each
 * task makes its own sink, and a call through a prototype method stays one call target for the compiled
 * record loop, where a closure per task is a new target that deoptimizes it.
 */
export interface NormalizedRecordSink {
  add(id: string, text: Uint8Array, fields: Record<string, unknown>): Promise<void> | void;
}

/**
 * One parquet row group as {@link RecordNormalizer.runParquet} takes it: the texts, the other flat string
 * columns (output field names and, per field, one value or null per row; none when `names` is empty)
 * and the remaining fields as records (`null` when there are none). Always this one shape, so the
 * record loop sees one map.
 */
class ParquetBatch {
  constructor(
    readonly url: string,
    readonly texts: Utf8Column,
    readonly rows: Record<string, unknown>[] | null,
    readonly stringNames: readonly string[],
    readonly stringValues: (string | null)[][],
  ) {}
}

/**
 * The synchronous part of {@link forEachNormalizedRecord}: Marin's record of each input record of a batch.
 * Parquet row groups and JSON-lines batches go through two loops, each called with one shape of
 * arguments, so neither is compiled for both and deoptimized when the other kind shows up.
 */
class RecordNormalizer {
  recordsIn = 0;
  empty = 0;
  compacted = 0;
  /** Set when the sink returned a promise (a spill): {@link settle} awaits it before the next run. */
  private pending: Promise<void> | undefined = undefined;
  private readonly textField: string;
  private readonly idField: string;
  private readonly maxRun: number;
  private readonly bare: boolean;

  constructor(
    args: NormalizeRecordArgs,
    private readonly observer: ColumnObserver,
    private readonly sink: NormalizedRecordSink,
  ) {
    this.textField = args.text_field;
    this.idField = args.id_field;
    this.maxRun = args.max_whitespace_run_chars;
    this.bare = args.bare;
  }

  /** Awaits the sink's pending spill, if any. */
  async settle(): Promise<void> {
    if (this.pending === undefined) return;
    const pending = this.pending;
    this.pending = undefined;
    await pending;
  }

  /**
   * Handles the records of a parquet row group from `from` until the end or until the sink returns a
   * promise (then left pending); returns the index of the next record to handle. Handled rows and string
   * values are released from the batch.
   *
   * The loop reads nothing before it starts and does the work in {@link parquetRecord}: V8 allocates a
   * function's feedback only after it has run for a while, so what the first (long) call reads before
   * its loop has no feedback, and code compiled from that deoptimizes on the next call.
   */
  runParquet(batch: ParquetBatch, from: number): number {
    let i = from;
    while (i < batch.texts.length) {
      const pending = this.parquetRecord(batch, i);
      i += 1;
      if (pending !== undefined) {
        this.pending = pending;
        break;
      }
    }
    return i;
  }

  /** Marin's record of row `i` of a parquet row group, handed to the sink (nothing for a blank text). */
  private parquetRecord(batch: ParquetBatch, i: number): Promise<void> | undefined {
    const texts = batch.texts;
    this.recordsIn += 1;
    if (texts.valid !== null && texts.valid[i] === 0) {
      this.empty += 1;
      return undefined;
    }
    const raw = utf8ValueAt(texts, i);
    if (isBlankUtf8(raw)) {
      this.empty += 1;
      return undefined;
    }
    // hashed first, then scanned for a long run while its bytes are still in the CPU's cache (the
    // scan probes one byte in maxRun + 1, a cache miss each on a cold text); a compacted text (rare)
    // is hashed again
    let id = generateIdOfUtf8(raw);
    let utf8 = raw;
    if (hasLongSpaceRunUtf8(raw, this.maxRun)) {
      utf8 = encoder.encode(compactWhitespace(decoder.decode(raw), this.maxRun));
      id = generateIdOfUtf8(utf8);
      this.compacted += 1;
    }
    const fields: Record<string, unknown> = {};
    const rows = batch.rows;
    if (rows !== null) {
      const record = rows[i] as Record<string, unknown>;
      rows[i] = RELEASED;
      this.copyFields(record, fields);
    }
    const { stringNames, stringValues } = batch;
    for (let c = 0; c < stringNames.length; c++) {
      const column = stringValues[c] as (string | null)[];
      const v = column[i] as string | null;
      column[i] = null;
      const name = stringNames[c] as string;
      // a null id is no source_id, as for any other input
      if (name !== 'source_id' || v !== null) fields[name] = v;
    }
    return this.sink.add(id, utf8, fields) ?? undefined;
  }

  /**
   * Handles JSON-lines (or other row-wise) records `rows[from..]` as {@link runParquet} does, taking the
   * text from each record's text field and recording the kinds of the fields it sees.
   */
  runRecords(rows: Record<string, unknown>[], from: number, url: string): number {
    const maxRun = this.maxRun;
    const count = rows.length;
    for (let i = from; i < count; i++) {
      const record = rows[i] as Record<string, unknown>;
      rows[i] = RELEASED;
      this.recordsIn += 1;
      const raw = record[this.textField];
      if (raw === null || raw === undefined || (typeof raw === 'string' && isBlank(raw))) {
        this.empty += 1;
        continue;
      }
      if (typeof raw !== 'string') {
        throw new PipelineError(
          'PIPELINE_INPUT_INVALID',
          `${url}: text field ${JSON.stringify(this.textField)} holds a ${typeof raw}, not a string; set text_field to a string field`,
          { details: { path: url, column: this.textField } },
        );
      }
      const text = compactWhitespace(raw, maxRun);
      if (text !== raw) this.compacted += 1;
      const utf8 = encoder.encode(text);
      const id = generateIdOfUtf8(utf8);
      const fields: Record<string, unknown> = {};
      this.copyFields(record, fields);
      this.observeFields(fields, url);
      const pending = this.sink.add(id, utf8, fields);
      if (pending !== undefined) {
        this.pending = pending;
        return i + 1;
      }
    }
    return count;
  }

  /** Copies a record's output fields: `source_id` from the id field, then the others unless `bare`. */
  private copyFields(record: Record<string, unknown>, fields: Record<string, unknown>): void {
    const sourceId = record[this.idField];
    if (sourceId !== null && sourceId !== undefined) fields['source_id'] = sourceId;
    if (this.bare) return;
    for (const k in record) {
      if (k === this.idField || k === this.textField || k === 'id' || k === 'text' || k === 'source_id') continue;
      fields[k] = record[k];
    }
  }

  /** Records the kinds of a row-wise record's output fields (a parquet file's come from its schema). */
  private observeFields(fields: Record<string, unknown>, url: string): void {
    for (const k in fields) this.observer.see(k, kindOfValue(fields[k]), url);
  }
}

// Handled rows are replaced by this in their batch, so the batch does not hold them twice.
const RELEASED: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/** A map task's sink: each record goes to its `id`'s partition of the shuffle, its other fields encoded. */
class ShuffleRecordSink implements NormalizedRecordSink {
  constructor(
    private readonly shuffle: ShuffleWriter,
    private readonly numShards: number,
  ) {}

  add(id: string, text: Uint8Array, fields: Record<string, unknown>): Promise<void> | void {
    return this.shuffle.add(partitionOfHexId(id, this.numShards), { id, text, fields: encodeFields(fields) });
  }
}

/**
 * A normalize map task: reads its parts, drops blank texts, builds Marin's record (`id` = xxh3-128 of the
 * whitespace-compacted text, `text`, `source_id` from `id_field`, other fields unless `bare`) and routes
 * it by `id` to one of `num_shards` shuffle partitions, sorted by `id`. The `normalizeMapTask` export.
 *
 * @throws {PipelineError} PIPELINE_SCHEMA_MISMATCH for a missing or non-string text column or a column whose
 *   type changes; PIPELINE_INPUT_INVALID for a non-string text value or corrupt input
 */
export const normalizeMapTask = dataflowTask<NormalizeMapArgs, NormalizeMapResult>(async (args, signal) => {
  const counters = initialMapCounters();
  const observer = new ColumnObserver();
  const shuffle = createShuffleWriter({
    dir: args.shuffle_dir,
    mapTask: args.map_task,
    numPartitions: args.num_shards,
    columns: NORMALIZE_SHUFFLE_COLUMNS,
    sortKey: 'id',
    spillBytes: args.spill_bytes,
  });
  await forEachNormalizedRecord(args, signal, counters, observer, new ShuffleRecordSink(shuffle, args.num_shards));
  return { shuffle: await shuffle.close(), counters, columns: [...observer.columns.values()] };
});
