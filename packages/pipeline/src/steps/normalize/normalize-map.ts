import type { JsonValue } from '@marin/fray';
import { createShuffleWriter } from '../../dataflow/shuffle-writer.js';
import type { ShuffleMapOutput } from '../../dataflow/shuffle-writer.js';
import { dataflowTask } from '../../dataflow/dataflow-task.js';
import type { DataflowTaskArgs } from '../../dataflow/dataflow-task.js';
import { partitionOfHexId } from '../../dataflow/partition-of.js';
import { encodeFields } from '../../dataflow/record-codec.js';
import { PipelineError } from '../../errors.js';
import { columnSpecOf, describeKind, kindOfParquetColumn, kindOfValue, mergeKinds } from '../../formats/column-kind.js';
import type { ColumnKind } from '../../formats/column-kind.js';
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

/** One output column as a map task saw it, with the file it was first seen in (for error messages). */
export interface ObservedColumn {
  [key: string]: JsonValue;
  name: string;
  kind: ColumnKind & JsonValue;
  file: string;
}

/** What a normalize map task records in its done marker. */
export interface NormalizeMapResult {
  [key: string]: JsonValue;
  shuffle: ShuffleMapOutput;
  counters: Record<string, number>;
  columns: ObservedColumn[];
}

/** The output columns every shard is written with: `id`, `text`, `source_id` when seen, then the rest in first-seen order. */
export function outputColumns(observed: readonly (readonly ObservedColumn[])[]): ParquetColumnSpec[] {
  const merged = new Map<string, { kind: ColumnKind; file: string }>();
  for (const columns of observed) {
    for (const c of columns) {
      const prev = merged.get(c.name);
      if (prev === undefined) {
        merged.set(c.name, { kind: c.kind, file: c.file });
        continue;
      }
      const kind = mergeKinds(prev.kind, c.kind);
      if (kind === null) throw driftError(c.name, prev.kind, prev.file, c.kind, c.file);
      prev.kind = kind;
    }
  }
  const columns: ParquetColumnSpec[] = [
    { name: 'id', type: 'string', nullable: false, plain: true },
    { name: 'text', type: 'string', nullable: false, plain: true },
  ];
  const sourceId = merged.get('source_id');
  if (sourceId !== undefined) columns.push(columnSpecOf('source_id', sourceId.kind));
  for (const [name, { kind }] of merged) if (name !== 'source_id') columns.push(columnSpecOf(name, kind));
  return columns;
}

/** The schema drift error: one column, two incompatible kinds, the files they came from. */
export function driftError(column: string, a: ColumnKind, aFile: string, b: ColumnKind, bFile: string): PipelineError {
  return new PipelineError(
    'PIPELINE_SCHEMA_MISMATCH',
    `column ${JSON.stringify(column)} is ${describeKind(a)} in ${aFile} but ${describeKind(b)} in ${bFile}; make the inputs agree or normalize them separately`,
    { details: { path: bFile, column, other: aFile } },
  );
}

/** The output columns a task has seen, with their kinds; refuses a column whose kind changes. */
export class ColumnObserver {
  readonly columns = new Map<string, ObservedColumn>();

  see(name: string, kind: ColumnKind, file: string): void {
    const prev = this.columns.get(name);
    if (prev === undefined) {
      this.columns.set(name, { name, kind: kind as ColumnKind & JsonValue, file });
      return;
    }
    if (prev.kind.kind === kind.kind && kind.kind !== 'parquet') return;
    const merged = mergeKinds(prev.kind, kind);
    if (merged === null) throw driftError(name, prev.kind, prev.file, kind, file);
    prev.kind = merged as ColumnKind & JsonValue;
  }
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
  emit: (id: string, text: Uint8Array, fields: Record<string, unknown>) => Promise<void> | void,
): Promise<void> {
  const parquetSeen = new Set<string>();
  // every text is kept (as a view) until the task sorts and writes or spills it: their bytes come from a
  // few large buffers rather than one per row group, which starts fewer major garbage collections
  const textArena = new Utf8Arena(textArenaChunkBytes(args.parts));
  const normalizer = new RecordNormalizer(args, observer, emit);
  // records are handled synchronously, a batch (row group) at a time; only a spilling emit is awaited
  const runBatch = async (rows: Record<string, unknown>[] | null, count: number, url: string, texts: Utf8Column | null, strings: StringFields | null): Promise<void> => {
    let next = 0;
    while (next < count) {
      next = normalizer.run(rows, count, next, url, texts, strings);
      if (normalizer.pending !== undefined) {
        await normalizer.pending;
        normalizer.pending = undefined;
      }
    }
  };
  for (const part of args.parts) {
    if (part.format !== 'parquet') {
      for await (const rows of readPartBatches(part, { signal })) await runBatch(rows, rows.length, part.url, null, null);
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
        let strings: StringFields | null = null;
        if (stringReaders.length > 0) {
          const values: (string | null)[][] = [];
          for (let c = 0; c < stringReaders.length; c++) {
            const next = await (stringReaders[c] as AsyncGenerator<{ column: Utf8Column }>).next();
            const read = next.done === true ? null : next.value.column;
            if (read?.length !== column.length) throw corrupt(read?.length ?? 0, 'values', stringColumns[c] as string);
            values.push(decodeStrings(read));
          }
          strings = { names: stringNames, values };
        }
        await runBatch(rows, column.length, part.url, column, strings);
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

/** A row group's other flat string columns: output field names and, per field, one value (or null) per row. */
interface StringFields {
  names: readonly string[];
  values: readonly (string | null)[][];
}

/** Every value of a row group's string column as a string (or null), decoded once from the column's bytes. */
function decodeStrings(column: Utf8Column): (string | null)[] {
  const { bytes, offsets, valid } = column;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Array<string | null>(column.length);
  for (let i = 0; i < column.length; i++) out[i] = valid !== null && valid[i] === 0 ? null : buffer.toString('utf8', offsets[i] as number, offsets[i + 1] as number);
  return out;
}

/** The synchronous part of {@link forEachNormalizedRecord}: Marin's record of each input record of a batch. */
class RecordNormalizer {
  recordsIn = 0;
  empty = 0;
  compacted = 0;
  /** Set when `emit` returned a promise (a spill): await it before the next {@link run}. */
  pending: Promise<void> | undefined = undefined;

  constructor(
    private readonly args: NormalizeRecordArgs,
    private readonly observer: ColumnObserver,
    private readonly emit: (id: string, text: Uint8Array, fields: Record<string, unknown>) => Promise<void> | void,
  ) {}

  /**
   * Handles records `from` to `count` (exclusive) until the end or until `emit` returns a promise (then
   * left in {@link pending}); returns the index of the next record to handle. A record is `rows[i]` (its
   * other fields; none when `rows` is null) plus, for parquet, its flat string fields from `strings` and
   * its text from `texts` (else from the record's text field). Handled rows are released from the array.
   */
  run(rows: Record<string, unknown>[] | null, count: number, from: number, url: string, texts: Utf8Column | null, strings: StringFields | null): number {
    const { args, observer } = this;
    const maxRun = args.max_whitespace_run_chars;
    const isParquet = texts !== null;
    for (let i = from; i < count; i++) {
      let record = RELEASED;
      if (rows !== null) {
        record = rows[i] as Record<string, unknown>;
        rows[i] = RELEASED;
      }
      this.recordsIn += 1;
      const raw = texts === null ? record[args.text_field] : texts.valid !== null && texts.valid[i] === 0 ? null : utf8ValueAt(texts, i);
      let utf8: Uint8Array;
      let id: string;
      if (raw instanceof Uint8Array) {
        if (isBlankUtf8(raw)) {
          this.empty += 1;
          continue;
        }
        // hashed first, then scanned for a long run while its bytes are still in the CPU's cache (the
        // scan probes one byte in maxRun + 1, a cache miss each on a cold text); a compacted text (rare)
        // is hashed again
        id = generateIdOfUtf8(raw);
        if (hasLongSpaceRunUtf8(raw, maxRun)) {
          utf8 = encoder.encode(compactWhitespace(decoder.decode(raw), maxRun));
          id = generateIdOfUtf8(utf8);
          this.compacted += 1;
        } else {
          utf8 = raw;
        }
      } else {
        if (raw === null || raw === undefined || (typeof raw === 'string' && isBlank(raw))) {
          this.empty += 1;
          continue;
        }
        if (typeof raw !== 'string') {
          throw new PipelineError(
            'PIPELINE_INPUT_INVALID',
            `${url}: text field ${JSON.stringify(args.text_field)} holds a ${typeof raw}, not a string; set text_field to a string field`,
            { details: { path: url, column: args.text_field } },
          );
        }
        const text = compactWhitespace(raw, maxRun);
        if (text !== raw) this.compacted += 1;
        utf8 = encoder.encode(text);
        id = generateIdOfUtf8(utf8);
      }
      const fields: Record<string, unknown> = {};
      const sourceId = record[args.id_field];
      if (sourceId !== null && sourceId !== undefined) {
        fields['source_id'] = sourceId;
        if (!isParquet) observer.see('source_id', kindOfValue(sourceId), url);
      }
      if (!args.bare) {
        for (const k in record) {
          if (k === args.id_field || k === args.text_field || k === 'id' || k === 'text' || k === 'source_id') continue;
          const v = record[k];
          fields[k] = v;
          if (!isParquet) observer.see(k, kindOfValue(v), url);
        }
      }
      if (strings !== null) {
        const { names, values } = strings;
        for (let c = 0; c < names.length; c++) {
          const column = values[c] as (string | null)[];
          const v = column[i] as string | null;
          column[i] = null;
          const name = names[c] as string;
          // a null id is no source_id, as for any other input
          if (name !== 'source_id' || v !== null) fields[name] = v;
        }
      }
      const pending = this.emit(id, utf8, fields);
      if (pending !== undefined) {
        this.pending = pending;
        return i + 1;
      }
    }
    return count;
  }
}

// Handled rows are replaced by this in their batch, so the batch does not hold them twice.
const RELEASED: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

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
  await forEachNormalizedRecord(args, signal, counters, observer, (id, text, fields) =>
    shuffle.add(partitionOfHexId(id, args.num_shards), { id, text, fields: encodeFields(fields) }),
  );
  return { shuffle: await shuffle.close(), counters, columns: [...observer.columns.values()] };
});
