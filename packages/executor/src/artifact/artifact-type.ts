import type { z } from 'zod';
import { ExecutorError } from '../errors.js';
import { stripFloatValues } from '../resolution/instantiate-config.js';
import { readRecord } from './record.js';
import type { ArtifactRecord } from './record.js';

/**
 * What kind of artifact a step produces: the `result_type` recorded for it (Python's `module.Qualname` of the
 * `Artifact` subclass, so both languages name one type alike) and, for a value artifact, the zod schema of its
 * value fields (pydantic's role). `schema: null` is a data artifact: a directory whose record has no `result`.
 */
export interface ArtifactType<T extends object = Record<never, never>> {
  readonly resultType: string;
  readonly schema: z.ZodType<T> | null;
}

/** A loaded artifact: its value fields, its output `path` and the record read there (`null` when none). */
export type LoadedArtifact<T extends object = Record<never, never>> = T & { path: string; record: ArtifactRecord | null };

/** Marin's base `Artifact`: a data reference into a directory. */
export const Artifact: ArtifactType = Object.freeze({ resultType: 'marin.execution.artifact.Artifact', schema: null });

/** Declares a value artifact type: `defineArtifactType('my_pkg.metrics.EvalScores', z.object({ acc: z.number() }))`. */
export function defineArtifactType<T extends object>(resultType: string, schema: z.ZodType<T> | null = null): ArtifactType<T> {
  if (resultType === '') throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', 'an artifact type needs a non-empty result type name');
  return Object.freeze({ resultType, schema });
}

/**
 * What a record stores as `result` for a value `run` returned: the schema-validated value without `path`, or
 * `null` for a data artifact type or an empty value (Marin's `result_payload`).
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT when the value does not match the schema
 */
export function resultPayload<T extends object>(type: ArtifactType<T>, value: unknown): Record<string, unknown> | null {
  if (type.schema === null || value === undefined || value === null) return null;
  const parsed = type.schema.safeParse(value);
  if (!parsed.success) {
    throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `the value returned for ${type.resultType} does not match its schema: ${parsed.error.issues[0]?.message ?? 'invalid'}`, {
      details: { resultType: type.resultType, issues: parsed.error.issues },
    });
  }
  const out: Record<string, unknown> = { ...(parsed.data as Record<string, unknown>) };
  delete out['path'];
  delete out['record'];
  return Object.keys(out).length === 0 ? null : out;
}

/**
 * Loads the artifact at `source` as `type` (Marin's `Artifact.raw_load`): reads its record, refuses one written by
 * another type, and validates `record.result` with the type's schema. A missing record yields a path-only handle
 * (an adopted or pinned artifact has none). `preread` is the record already read at `source` in this run.
 * @throws {ExecutorError} EXECUTOR_RESULT_TYPE_MISMATCH when the record's `result_type` differs;
 *   EXECUTOR_INVALID_ARGUMENT when its `result` does not match the schema
 */
export async function loadArtifact<T extends object>(type: ArtifactType<T>, source: string, preread?: { record: ArtifactRecord | null }): Promise<LoadedArtifact<T>> {
  const record = preread !== undefined ? preread.record : await readRecord(source);
  if (record !== null && record.result_type !== '' && record.result_type !== type.resultType) {
    throw new ExecutorError(
      'EXECUTOR_RESULT_TYPE_MISMATCH',
      `${source}: recorded result_type is ${record.result_type}, but loading as ${type.resultType}; the value type changed under a reused version — bump the version`,
      { details: { path: source, recorded: record.result_type, requested: type.resultType } },
    );
  }
  // Like pydantic's extra="allow" on the base type, a schema-less load keeps whatever result was recorded.
  let value = (stripFloatValues(record?.result ?? {}) ?? {}) as Record<string, unknown>;
  if (type.schema !== null) {
    const raw = stripFloatValues(record?.result ?? {});
    const parsed = type.schema.safeParse(raw);
    if (!parsed.success) {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `${source}: the recorded result does not match ${type.resultType}: ${parsed.error.issues[0]?.message ?? 'invalid'}`, {
        details: { path: source, resultType: type.resultType, issues: parsed.error.issues },
      });
    }
    value = parsed.data as Record<string, unknown>;
  }
  return { ...value, path: source, record } as LoadedArtifact<T>;
}
