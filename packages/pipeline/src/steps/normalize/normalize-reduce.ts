import type { JsonValue } from '@marin/fray';
import { dataflowTask } from '../../dataflow/dataflow-task.js';
import type { DataflowTaskArgs } from '../../dataflow/dataflow-task.js';
import { decodeFields } from '../../dataflow/record-codec.js';
import { forEachShuffleRecord } from '../../dataflow/shuffle-reader.js';
import { createParquetPartWriter } from '../../formats/parquet-part-writer.js';
import type { ParquetPartWriter } from '../../formats/parquet-part-writer.js';
import type { ParquetColumnSpec } from '../../formats/parquet-schema.js';
import { NORMALIZE_COUNTERS } from './normalize-map.js';

/** The JSON arguments of one normalize reduce task: one output shard. */
export interface NormalizeReduceArgs extends DataflowTaskArgs {
  /** The shard's shuffle run files, from every map task. */
  files: string[];
  main_url: string;
  dups_url: string;
  /** The output columns, the same for every shard. */
  columns: ParquetColumnSpec[] & JsonValue;
  dedup_mode: 'exact' | 'none';
  row_group_bytes: number;
}

/** What a reduce task records: its counters. */
export interface NormalizeReduceResult {
  [key: string]: JsonValue;
  counters: Record<string, number>;
}

/**
 * Marks a record held in memory by a single task as flat: its fields beside `id` and `text`, written as
 * they are (a shuffle row instead holds them as JSON in `fields`, and an input column may be named `fields`).
 */
export const FLAT_RECORD: unique symbol = Symbol('normalize flat record');

/** A record marked {@link FLAT_RECORD}. */
export type FlatRecord = Record<string, unknown> & { [FLAT_RECORD]?: true };

/** The counters of one written shard. */
export type ShardCounters = Record<string, number>;

/** What receives a shard's records: its `visit` method, one call target for every shard. */
export interface ShardVisitor {
  visit(record: Record<string, unknown>): Promise<void> | undefined;
}

/**
 * Feeds a shard's records, sorted by `id`, to `visitor.visit` (awaiting a promise it returns): a shuffle
 * partition ({@link forEachShuffleRecord}) or records still in memory.
 */
export type ShardRecords = (visitor: ShardVisitor) => Promise<void>;

/** The {@link ShardRecords} of records in memory, sorted by `id`. */
export function shardRecordsOf(records: readonly Record<string, unknown>[]): ShardRecords {
  return async (visitor) => {
    for (let i = 0; i < records.length; i++) {
      const pending = visitor.visit(records[i] as Record<string, unknown>);
      if (pending !== undefined) await pending;
    }
  };
}

/**
 * Writes one output shard from its records sorted by `id` (shuffle rows, whose `fields` is the tagged
 * JSON of {@link encodeFields}, or records still in memory: {@link FLAT_RECORD}, their fields beside `id`
 * and `text`, or with a `fields` object; `text` a
 * string or its UTF-8 bytes): the first record of each id to the main part, the others to the dups
 * part (none when `dedup_mode` is `none`), both parquet (zstd) and sorted by `id`. Records are written
 * synchronously, awaiting only a row group being written out.
 */
export async function writeNormalizedShard(
  records: ShardRecords,
  args: Pick<NormalizeReduceArgs, 'main_url' | 'dups_url' | 'columns' | 'dedup_mode' | 'row_group_bytes'>,
): Promise<ShardCounters> {
  const options = { columns: args.columns, rowGroupBytes: args.row_group_bytes };
  await using main = await createParquetPartWriter(args.main_url, options);
  await using dups = await createParquetPartWriter(args.dups_url, options);
  const exact = args.dedup_mode === 'exact';
  const shard = new ShardSplitter(exact, main, dups);
  // the splitter itself is the visitor: the merge loop calls one method for every shard and task
  await records(shard);
  const { unique, duplicate } = shard;
  await main.close();
  await dups.close();
  return { [NORMALIZE_COUNTERS.uniqueRecordsOut]: unique, [NORMALIZE_COUNTERS.duplicateRecordsOut]: duplicate };
}

/** Sends the first record of each id to the main part and the others to the dups part, counting both. */
class ShardSplitter implements ShardVisitor {
  unique = 0;
  duplicate = 0;
  // a string from the start (no id is empty), so the comparison below only ever sees strings
  private prev = '';

  constructor(
    private readonly exact: boolean,
    private readonly main: ParquetPartWriter,
    private readonly dups: ParquetPartWriter,
  ) {}

  visit(r: Record<string, unknown>): Promise<void> | undefined {
    const id = r['id'] as string;
    // a record a single task buffered is flat (its fields beside id and text: one of them may be called
    // `fields`, so only the marker tells); a shuffle row's fields are JSON
    const raw = (r as FlatRecord)[FLAT_RECORD] === true ? undefined : r['fields'];
    const record = raw === undefined ? r : { id, text: r['text'], ...(typeof raw === 'string' ? decodeFields(raw) : (raw as Record<string, unknown>)) };
    const duplicate = this.exact && id === this.prev;
    this.prev = id;
    if (duplicate) this.duplicate += 1;
    else this.unique += 1;
    // one call site for both writers: it sees two closures of the same function, so the engine keys it
    // on that function rather than on this shard's writer (which would recompile it for every shard)
    return (duplicate ? this.dups : this.main).write(record);
  }
}

/**
 * A normalize reduce task: merges its shard's sorted runs by `id` and writes the shard's main part
 * (first record of each id) and dups part (the others; none when `dedup_mode` is `none`), both
 * parquet (zstd) and sorted by `id`. The `normalizeReduceTask` export.
 */
export const normalizeReduceTask = dataflowTask<NormalizeReduceArgs, NormalizeReduceResult>(async (args, signal) => {
  // texts stay UTF-8 bytes from the run files to the output (never decoded to strings)
  const counters = await writeNormalizedShard((visit) => forEachShuffleRecord({ files: args.files, sortKey: 'id', utf8Columns: ['text'], signal }, visit), args);
  return { counters };
});
