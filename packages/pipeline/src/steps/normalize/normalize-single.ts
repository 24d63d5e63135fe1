import type { JsonValue } from '@marin/fray';
import { prefixJoin } from '@marin/rigging';
import { partFileName } from '../../attributes/attribute-dataset.js';
import { dataflowTask } from '../../dataflow/dataflow-task.js';
import { partitionOfHexId } from '../../dataflow/partition-of.js';
import { encodeFields } from '../../dataflow/record-codec.js';
import { forEachShuffleRecord } from '../../dataflow/shuffle-reader.js';
import { createShuffleWriter } from '../../dataflow/shuffle-writer.js';
import type { ShuffleWriter } from '../../dataflow/shuffle-writer.js';
import { PipelineError } from '../../errors.js';
import { NORMALIZE_COUNTERS, NORMALIZE_SHUFFLE_COLUMNS, forEachNormalizedRecord, initialMapCounters } from './normalize-map.js';
import { ColumnObserver, outputColumns } from './output-columns.js';
import type { NormalizeMapArgs, NormalizedRecordSink } from './normalize-map.js';
import type { FlatRecord, NormalizeReduceArgs } from './normalize-reduce.js';
import { FLAT_RECORD, shardRecordsOf, writeNormalizedShard } from './normalize-reduce.js';

/** The JSON arguments of a normalize single task: a map task's, plus where the shards go. */
export interface NormalizeSingleArgs extends NormalizeMapArgs {
  /** The step's input, for the error of an empty dataset. */
  input_path: string;
  main_dir: string;
  dups_dir: string;
  dedup_mode: NormalizeReduceArgs['dedup_mode'];
  row_group_bytes: number;
}

/** What a single task records: every counter of the step. */
export interface NormalizeSingleResult {
  [key: string]: JsonValue;
  counters: Record<string, number>;
}

/**
 * A single task's sink: the buffered record is its fields object with the id and the text added (no
 * field is named either), one object per record held until the sort and none to build when it is written.
 */
class FlatRecordSink implements NormalizedRecordSink {
  constructor(
    private readonly shuffle: ShuffleWriter,
    private readonly numShards: number,
  ) {}

  add(id: string, text: Uint8Array, fields: Record<string, unknown>): Promise<void> | undefined {
    fields['id'] = id;
    fields['text'] = text;
    (fields as FlatRecord)[FLAT_RECORD] = true;
    return this.shuffle.add(this.numShards === 1 ? 0 : partitionOfHexId(id, this.numShards), fields);
  }
}

/**
 * Normalize in one task, for inputs that fit one map task: reads every part, buffers Marin's records
 * per shard in memory (flat objects: `id`, `text` and the other fields, never encoded), sorts each shard by `id` and writes the
 * shards directly, with no shuffle files. Memory stays bounded as in a map task: past `spill_bytes` the
 * largest shard is spilled as a sorted run under `shuffle_dir`, and each shard merges its runs with what
 * is still in memory (records added later come later, so the kept duplicate is the first seen, as with
 * the shuffle). Writes the same outputs as the map and reduce tasks. The `normalizeSingleTask` export.
 *
 * @throws {PipelineError} as the map task; PIPELINE_EMPTY_DATASET when no record has text
 */
export const normalizeSingleTask = dataflowTask<NormalizeSingleArgs, NormalizeSingleResult>(async (args, signal) => {
  const counters = initialMapCounters();
  const observer = new ColumnObserver();
  const shuffle = createShuffleWriter({
    dir: args.shuffle_dir,
    mapTask: args.map_task,
    numPartitions: args.num_shards,
    columns: NORMALIZE_SHUFFLE_COLUMNS,
    sortKey: 'id',
    spillBytes: args.spill_bytes,
    toRow: (r) => {
      const { id, text, [FLAT_RECORD]: _flat, ...fields } = r as FlatRecord;
      return { id, text, fields: encodeFields(fields) };
    },
  });
  await forEachNormalizedRecord(args, signal, counters, observer, new FlatRecordSink(shuffle, args.num_shards));
  const { output, buffered } = shuffle.closeInMemory();
  if (output.records === 0) {
    throw new PipelineError(
      'PIPELINE_EMPTY_DATASET',
      `no record under ${args.input_path} has text in field ${JSON.stringify(args.text_field)} (${counters[NORMALIZE_COUNTERS.recordsIn] ?? 0} records read); check text_field`,
      { details: { path: args.input_path, column: args.text_field } },
    );
  }
  // SchemaElement values are JSON (names, enums, numbers), though not typed as such
  const columns = outputColumns([[...observer.columns.values()]]) as NormalizeReduceArgs['columns'];
  for (let shard = 0; shard < args.num_shards; shard++) {
    const files = output.files[shard] ?? [];
    const inMemory = buffered[shard] ?? [];
    buffered[shard] = [];
    // a shard that never spilled is written straight from its sorted array; one that did merges its runs
    // (texts read as UTF-8 bytes) with what is still in memory
    const records =
      files.length === 0 ? shardRecordsOf(inMemory) : (visit: Parameters<typeof forEachShuffleRecord>[1]) => forEachShuffleRecord({ files, sortKey: 'id', buffered: inMemory, utf8Columns: ['text'], signal }, visit);
    const shardCounters = await writeNormalizedShard(records, {
      main_url: prefixJoin(args.main_dir, partFileName(shard, args.num_shards)),
      dups_url: prefixJoin(args.dups_dir, partFileName(shard, args.num_shards)),
      columns,
      dedup_mode: args.dedup_mode,
      row_group_bytes: args.row_group_bytes,
    });
    for (const [k, v] of Object.entries(shardCounters)) counters[k] = (counters[k] ?? 0) + v;
  }
  return { counters };
});
