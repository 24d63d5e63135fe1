import type { SchemaElement, SchemaTree } from 'hyparquet';
import type { BasicType } from 'hyparquet-writer';
import { PipelineError } from '../errors.js';

/** The value types a written column can hold. */
export type ParquetValueType = 'string' | 'int64' | 'int32' | 'float64' | 'bool' | 'json';

/**
 * One column of a written part. JSON, so a stage can pass its output schema to Fray jobs.
 * `type: 'parquet'` passes a source column through with its exact (possibly nested) schema:
 * `elements` is the column's schema subtree in depth-first order, as {@link schemaElementsOf} returns it.
 * `plain: true` writes the column PLAIN without trying a dictionary: for values that are (almost) all
 * distinct, such as ids and document texts, where the writer's dictionary sampling is wasted work.
 */
export type ParquetColumnSpec =
  | { name: string; type: ParquetValueType; nullable?: boolean; plain?: boolean }
  | { name: string; type: 'parquet'; elements: SchemaElement[] };

const BASIC: Record<ParquetValueType, BasicType> = {
  string: 'STRING',
  int64: 'INT64',
  int32: 'INT32',
  float64: 'DOUBLE',
  bool: 'BOOLEAN',
  json: 'JSON',
};

type Convert = (v: unknown, column: string, url: string) => unknown;

function typeError(url: string, column: string, expected: string, v: unknown): PipelineError {
  return new PipelineError('PIPELINE_INPUT_INVALID', `cannot write ${url}: column ${JSON.stringify(column)} expects ${expected}, got ${typeof v}`, {
    details: { path: url, column },
  });
}

function converter(spec: ParquetColumnSpec): Convert {
  const nullable = spec.type === 'parquet' || spec.nullable !== false;
  const orNull = (f: Convert): Convert => (v, c, u) => {
    if (v === null || v === undefined) {
      if (!nullable) throw typeError(u, c, `a non-null ${spec.type}`, v);
      return null;
    }
    return f(v, c, u);
  };
  switch (spec.type) {
    case 'string':
      // UTF-8 bytes are taken as they are: a caller that already encoded the string saves the writer's encoding
      return orNull((v, c, u) => {
        if (typeof v !== 'string' && !(v instanceof Uint8Array)) throw typeError(u, c, 'a string', v);
        return v;
      });
    case 'int64':
      return orNull((v, c, u) => {
        if (typeof v === 'bigint') return v;
        if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
        throw typeError(u, c, 'an integer', v);
      });
    case 'int32':
      return orNull((v, c, u) => {
        if (typeof v === 'number' && Number.isInteger(v)) return v;
        if (typeof v === 'bigint') return Number(v);
        throw typeError(u, c, 'an integer', v);
      });
    case 'float64':
      return orNull((v, c, u) => {
        if (typeof v === 'number') return v;
        if (typeof v === 'bigint') return Number(v);
        throw typeError(u, c, 'a number', v);
      });
    case 'bool':
      return orNull((v, c, u) => {
        if (typeof v !== 'boolean') throw typeError(u, c, 'a boolean', v);
        return v;
      });
    case 'json':
      // bigint (parquet INT64) inside JSON values is written as a number
      return orNull((v) => JSON.parse(JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? Number(x) : x))) as unknown);
    case 'parquet':
      return (v) => (v === undefined ? null : v);
  }
}

/** The writer's schema and per-column converters for `columns`. */
export function parquetSchemaOf(columns: readonly ParquetColumnSpec[]): {
  schema: SchemaElement[];
  encoders: { encoding?: 'PLAIN' }[];
  converters: Convert[];
} {
  const schema: SchemaElement[] = [{ name: 'root', num_children: columns.length }];
  const names = new Set<string>();
  for (const c of columns) {
    if (names.has(c.name)) throw new PipelineError('PIPELINE_CONFIG_INVALID', `column ${JSON.stringify(c.name)} is listed twice`, { details: { column: c.name } });
    names.add(c.name);
    if (c.type === 'parquet') {
      schema.push(...c.elements);
      continue;
    }
    const repetition_type = c.nullable === false ? 'REQUIRED' : 'OPTIONAL';
    const basic = BASIC[c.type];
    if (basic === 'STRING') schema.push({ name: c.name, type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' }, repetition_type });
    else if (basic === 'JSON') schema.push({ name: c.name, type: 'BYTE_ARRAY', converted_type: 'JSON', repetition_type });
    else if (basic === 'INT32' || basic === 'INT64' || basic === 'DOUBLE' || basic === 'BOOLEAN') schema.push({ name: c.name, type: basic, repetition_type });
  }
  return { schema, encoders: columns.map((c) => (c.type !== 'parquet' && c.plain === true ? { encoding: 'PLAIN' as const } : {})), converters: columns.map(converter) };
}

/** A source column's schema subtree, depth-first: what `{ type: 'parquet', elements }` takes to pass it through. */
export function schemaElementsOf(tree: SchemaTree): SchemaElement[] {
  return [tree.element, ...tree.children.flatMap(schemaElementsOf)];
}
