import type { SchemaElement, SchemaTree } from 'hyparquet';
import type { ParquetColumnSpec, ParquetValueType } from './parquet-schema.js';
import { schemaElementsOf } from './parquet-schema.js';

/**
 * What a column was seen to hold, JSON so map tasks can report it: a plain value type (inferred from
 * JSON values or a primitive parquet column), `null` when only nulls were seen, or a parquet column
 * passed through with its exact schema (nested, timestamps, binary …).
 */
export type ColumnKind =
  | { kind: ParquetValueType | 'null' }
  | { kind: 'parquet'; elements: SchemaElement[] };

/** The kind of one JSON value (from a JSON-lines record). */
export function kindOfValue(v: unknown): ColumnKind {
  if (v === null || v === undefined) return { kind: 'null' };
  if (typeof v === 'string') return { kind: 'string' };
  if (typeof v === 'boolean') return { kind: 'bool' };
  if (typeof v === 'bigint') return { kind: 'int64' };
  if (typeof v === 'number') return { kind: Number.isInteger(v) ? 'int64' : 'float64' };
  return { kind: 'json' };
}

/** The kind of a parquet column: its value type when it is a primitive one, else its schema for pass-through. */
export function kindOfParquetColumn(tree: SchemaTree): ColumnKind {
  const e = tree.element;
  if (tree.children.length === 0 && e.repetition_type !== 'REPEATED') {
    const logical = e.logical_type?.type;
    if (e.type === 'BYTE_ARRAY' && (e.converted_type === 'UTF8' || logical === 'STRING')) return { kind: 'string' };
    if (e.type === 'BYTE_ARRAY' && (e.converted_type === 'JSON' || logical === 'JSON')) return { kind: 'json' };
    if (e.converted_type === undefined && logical === undefined) {
      if (e.type === 'INT64') return { kind: 'int64' };
      if (e.type === 'INT32') return { kind: 'int32' };
      if (e.type === 'DOUBLE' || e.type === 'FLOAT') return { kind: 'float64' };
      if (e.type === 'BOOLEAN') return { kind: 'bool' };
    }
  }
  return { kind: 'parquet', elements: schemaElementsOf(tree) };
}

function sameElements(a: SchemaElement[], b: SchemaElement[]): boolean {
  const strip = (es: SchemaElement[]): string =>
    JSON.stringify(es.map(({ field_id: _f, ...rest }) => rest), (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
  return strip(a) === strip(b);
}

/**
 * The kind two observations of one column agree on, or `null` when they conflict: nulls fit anything,
 * int32 and int64 widen to int64, integers and floats widen to float64 (JSON numbers), parquet
 * pass-through columns must have identical schemas.
 */
export function mergeKinds(a: ColumnKind, b: ColumnKind): ColumnKind | null {
  if (a.kind === 'null') return b;
  if (b.kind === 'null') return a;
  if (a.kind === 'parquet' || b.kind === 'parquet') {
    return a.kind === 'parquet' && b.kind === 'parquet' && sameElements(a.elements, b.elements) ? a : null;
  }
  if (a.kind === b.kind) return a;
  const ints = new Set(['int32', 'int64']);
  if (ints.has(a.kind) && ints.has(b.kind)) return { kind: 'int64' };
  const nums = new Set(['int32', 'int64', 'float64']);
  if (nums.has(a.kind) && nums.has(b.kind)) return { kind: 'float64' };
  return null;
}

/** Names a kind for error messages. */
export function describeKind(k: ColumnKind): string {
  if (k.kind !== 'parquet') return k.kind;
  const top = k.elements[0];
  return `parquet ${top?.type ?? (top?.num_children !== undefined ? 'group' : 'column')}${top?.logical_type ? ` (${top.logical_type.type})` : ''}`;
}

/** The writer's column for a merged kind (a column seen only as nulls is written as a nullable string). */
export function columnSpecOf(name: string, k: ColumnKind): ParquetColumnSpec {
  if (k.kind === 'parquet') {
    const [top, ...rest] = k.elements;
    return { name, type: 'parquet', elements: [{ ...(top as SchemaElement), name }, ...rest] };
  }
  return { name, type: k.kind === 'null' ? 'string' : k.kind };
}
