import type { JsonValue } from '@marin/fray';
import { createShuffleWriter } from '../../dataflow/shuffle-writer.js';
import type { ShuffleMapOutput } from '../../dataflow/shuffle-writer.js';
import { dataflowTask } from '../../dataflow/dataflow-task.js';
import type { DataflowTaskArgs } from '../../dataflow/dataflow-task.js';
import { partitionOfHexId } from '../../dataflow/partition-of.js';
import { encodeFields } from '../../dataflow/record-codec.js';
import { PipelineError } from '../../errors.js';
import { describeKind, kindOfParquetColumn, kindOfValue, mergeKinds } from '../../formats/column-kind.js';
import type { ColumnKind } from '../../formats/column-kind.js';
import type { DatasetPart } from '../../formats/dataset-part.js';
import { openParquetFile } from '../../formats/parquet-file.js';
import { readPartRecords } from '../../formats/record-reader.js';
import type { ParquetColumnSpec } from '../../formats/parquet-schema.js';
import { compactWhitespace, generateId, isBlank } from './normalize-record.js';

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
  { name: 'id', type: 'string', nullable: false },
  { name: 'text', type: 'string', nullable: false },
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

/** The schema drift error: one column, two incompatible kinds, the files they came from. */
export function driftError(column: string, a: ColumnKind, aFile: string, b: ColumnKind, bFile: string): PipelineError {
  return new PipelineError(
    'PIPELINE_SCHEMA_MISMATCH',
    `column ${JSON.stringify(column)} is ${describeKind(a)} in ${aFile} but ${describeKind(b)} in ${bFile}; make the inputs agree or normalize them separately`,
    { details: { path: bFile, column, other: aFile } },
  );
}

class ColumnObserver {
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

async function parquetKinds(
  part: DatasetPart,
  args: NormalizeMapArgs,
  observer: ColumnObserver,
  seen: Set<string>,
): Promise<void> {
  if (seen.has(part.url)) return;
  seen.add(part.url);
  await using file = await openParquetFile(part.url);
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

/**
 * A normalize map task: reads its parts, drops blank texts, builds Marin's record (`id` = xxh3-128 of the
 * whitespace-compacted text, `text`, `source_id` from `id_field`, other fields unless `bare`) and routes
 * it by `id` to one of `num_shards` shuffle partitions, sorted by `id`. The `normalizeMapTask` export.
 *
 * @throws {PipelineError} PIPELINE_SCHEMA_MISMATCH for a missing or non-string text column or a column whose
 *   type changes; PIPELINE_INPUT_INVALID for a non-string text value or corrupt input
 */
export const normalizeMapTask = dataflowTask<NormalizeMapArgs, NormalizeMapResult>(async (args, signal) => {
  const counters: Record<string, number> = {
    [NORMALIZE_COUNTERS.recordsIn]: 0,
    [NORMALIZE_COUNTERS.emptyTextFiltered]: 0,
    [NORMALIZE_COUNTERS.compactedWhitespace]: 0,
  };
  const observer = new ColumnObserver();
  const parquetSeen = new Set<string>();
  const shuffle = createShuffleWriter({
    dir: args.shuffle_dir,
    mapTask: args.map_task,
    numPartitions: args.num_shards,
    columns: NORMALIZE_SHUFFLE_COLUMNS,
    sortKey: 'id',
    spillBytes: args.spill_bytes,
  });
  const maxRun = args.max_whitespace_run_chars;
  for (const part of args.parts) {
    const isParquet = part.format === 'parquet';
    if (isParquet) await parquetKinds(part, args, observer, parquetSeen);
    for await (const record of readPartRecords(part, { signal })) {
      counters[NORMALIZE_COUNTERS.recordsIn] = (counters[NORMALIZE_COUNTERS.recordsIn] ?? 0) + 1;
      const raw = record[args.text_field];
      if (raw === null || raw === undefined || (typeof raw === 'string' && isBlank(raw))) {
        counters[NORMALIZE_COUNTERS.emptyTextFiltered] = (counters[NORMALIZE_COUNTERS.emptyTextFiltered] ?? 0) + 1;
        continue;
      }
      if (typeof raw !== 'string') {
        throw new PipelineError(
          'PIPELINE_INPUT_INVALID',
          `${part.url}: text field ${JSON.stringify(args.text_field)} holds a ${typeof raw}, not a string; set text_field to a string field`,
          { details: { path: part.url, column: args.text_field } },
        );
      }
      const text = compactWhitespace(raw, maxRun);
      if (text !== raw) counters[NORMALIZE_COUNTERS.compactedWhitespace] = (counters[NORMALIZE_COUNTERS.compactedWhitespace] ?? 0) + 1;
      const fields: Record<string, unknown> = {};
      const sourceId = record[args.id_field];
      if (sourceId !== null && sourceId !== undefined) {
        fields['source_id'] = sourceId;
        if (!isParquet) observer.see('source_id', kindOfValue(sourceId), part.url);
      }
      if (!args.bare) {
        for (const k in record) {
          if (k === args.id_field || k === args.text_field || k === 'id' || k === 'text' || k === 'source_id') continue;
          const v = record[k];
          fields[k] = v;
          if (!isParquet) observer.see(k, kindOfValue(v), part.url);
        }
      }
      const id = generateId(text);
      await shuffle.add(partitionOfHexId(id, args.num_shards), { id, text, fields: encodeFields(fields) });
    }
  }
  return { shuffle: await shuffle.close(), counters, columns: [...observer.columns.values()] };
});
