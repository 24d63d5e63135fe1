import type { JsonValue } from '@marin/fray';
import { PipelineError } from '../../errors.js';
import { columnSpecOf, describeKind, mergeKinds } from '../../formats/column-kind.js';
import type { ColumnKind } from '../../formats/column-kind.js';
import type { ParquetColumnSpec } from '../../formats/parquet-schema.js';

/** One output column as a map task saw it, with the file it was first seen in (for error messages). */
export interface ObservedColumn {
  [key: string]: JsonValue;
  name: string;
  kind: ColumnKind & JsonValue;
  file: string;
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
