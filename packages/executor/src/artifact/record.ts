import { filesystemFor, parsePyJson, prefixJoin } from '@marin/rigging';
import { ExecutorError } from '../errors.js';
import { fileUnder, INFO_FILE } from '../status/status-store.js';
import { normalizeProvenance } from './provenance.js';
import type { Provenance } from './provenance.js';
import { pydanticJson } from './pydantic-json.js';
import { readTextIfExists } from './status-scan.js';

/** The record file beside every artifact output (dot-prefixed so data walks skip it). */
export const RECORD_FILE = '.artifact.json';
/** The `executor_version` of the schedule-time `.executor_info` stub a step runner writes; never read as a record. */
export const STEP_RUNNER_EXECUTOR_VERSION = 'step_runner';

/** JSON-shaped values of a record's `config` and `result` (floats as `FloatValue`s when read back). */
export type JsonValue = unknown;

/**
 * Marin's `ArtifactRecord`: the one descriptor written next to an artifact's output. Every field has a
 * default, so a minimal manual record and legacy files load.
 */
export interface ArtifactRecord {
  name: string;
  version: string;
  fingerprint: string;
  /** `module.Qualname` of the artifact type that wrote `result`. */
  result_type: string;
  output_path: string;
  /** Dependency identities, `name@version`. */
  deps: string[];
  /** Resolved dependency output paths, index-aligned with `deps`. */
  dep_paths: string[];
  /** The materialized config that ran, canonical-encoded (keys sorted). */
  config: Record<string, JsonValue> | null;
  /** For an adopted artifact, the pre-existing data location it aliases. */
  source: string | null;
  /** A value artifact's declared fields; `null` for a data artifact. */
  result: Record<string, JsonValue> | null;
  /** The canonical config JSON the fingerprint hashes, kept for the drift diff. */
  fingerprint_payload: string | null;
  provenance: Provenance | null;
}

const FIELDS: readonly (keyof ArtifactRecord)[] = [
  'name', 'version', 'fingerprint', 'result_type', 'output_path', 'deps', 'dep_paths', 'config', 'source', 'result',
  'fingerprint_payload', 'provenance',
];
const IDENTITY_FIELDS: readonly (keyof ArtifactRecord)[] = ['name', 'fingerprint', 'result_type', 'result'];

/** A record with every field at Marin's default, then `fields`. */
export function makeRecord(fields: Partial<ArtifactRecord>): ArtifactRecord {
  return {
    name: '', version: '', fingerprint: '', result_type: '', output_path: '', deps: [], dep_paths: [], config: null,
    source: null, result: null, fingerprint_payload: null, provenance: null, ...fields,
  };
}

/** The record's text exactly as Marin writes it (`model_dump_json(indent=2)`): field order, indent, float forms. */
export function serializeRecord(record: ArtifactRecord): string {
  const ordered: Record<string, unknown> = {};
  for (const f of FIELDS) ordered[f] = record[f];
  return pydanticJson(ordered, { sortedUnder: new Set(['config']) });
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function invalidRecord(where: string, why: string): ExecutorError {
  return new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `invalid artifact record at ${where}: ${why}`, { details: { path: where, reason: why } });
}

/**
 * Parses an `.artifact.json` as Marin does, including a pre-record bare payload (a document with no record
 * identity but keys foreign to the record schema is taken whole as `result`).
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT for text that is not a record (bad JSON, wrong field types)
 */
export function parseRecord(text: string, where = RECORD_FILE): ArtifactRecord {
  let doc: unknown;
  try {
    doc = parsePyJson(text);
  } catch (e) {
    throw invalidRecord(where, e instanceof Error ? e.message : String(e));
  }
  if (!isObject(doc)) throw invalidRecord(where, 'not a JSON object');
  const str = (k: keyof ArtifactRecord): string => {
    const v = doc[k];
    if (v === undefined) return '';
    if (typeof v !== 'string') throw invalidRecord(where, `${k} must be a string`);
    return v;
  };
  const strOrNull = (k: keyof ArtifactRecord): string | null => (doc[k] === undefined || doc[k] === null ? null : str(k));
  const list = (k: keyof ArtifactRecord): string[] => {
    const v = doc[k];
    if (v === undefined) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw invalidRecord(where, `${k} must be a list of strings`);
    return v as string[];
  };
  const dict = (k: keyof ArtifactRecord): Record<string, unknown> | null => {
    const v = doc[k];
    if (v === undefined || v === null) return null;
    if (!isObject(v)) throw invalidRecord(where, `${k} must be an object or null`);
    return v;
  };
  const prov = dict('provenance');
  const record = makeRecord({
    name: str('name'),
    version: str('version'),
    fingerprint: str('fingerprint'),
    result_type: str('result_type'),
    output_path: str('output_path'),
    deps: list('deps'),
    dep_paths: list('dep_paths'),
    config: dict('config'),
    source: strOrNull('source'),
    result: dict('result'),
    fingerprint_payload: strOrNull('fingerprint_payload'),
    provenance: prov === null ? null : normalizeProvenance(prov as Partial<Provenance>),
  });
  if (IDENTITY_FIELDS.some((f) => Boolean(record[f]))) return record;
  if (Object.keys(doc).some((k) => !(FIELDS as readonly string[]).includes(k))) return makeRecord({ result: doc });
  return record;
}

const readOptional = readTextIfExists;

/**
 * The record at `<outputPath>/.artifact.json`, else one recovered from a genuine legacy `.executor_info`
 * (name, config, output_path, dependencies), else `null`. A step runner's schedule-time `.executor_info`
 * stub is never read as a record. `expectRecord`: the output is built, so a local record is read without a `stat`
 * first (a missing one then costs an exception instead).
 */
export async function readRecord(outputPath: string, expectRecord = false): Promise<ArtifactRecord | null> {
  const recordUrl = fileUnder(outputPath, RECORD_FILE);
  const text = await readOptional(recordUrl, expectRecord);
  if (text !== null) return parseRecord(text, recordUrl);
  const infoUrl = fileUnder(outputPath, INFO_FILE);
  const info = await readOptional(infoUrl);
  if (info === null) return null;
  let doc: unknown;
  try {
    doc = parsePyJson(info);
  } catch (e) {
    throw invalidRecord(infoUrl, e instanceof Error ? e.message : String(e));
  }
  if (!isObject(doc) || doc['executor_version'] === STEP_RUNNER_EXECUTOR_VERSION) return null;
  const s = (k: string): string => (typeof doc[k] === 'string' ? doc[k] : '');
  const config = doc['config'];
  const deps = doc['dependencies'];
  return makeRecord({
    name: s('name'),
    config: isObject(config) ? config : null,
    output_path: s('output_path'),
    deps: Array.isArray(deps) ? deps.map(String) : [],
  });
}

/** Writes `record` to `<record.output_path>/.artifact.json` (atomically). */
export async function writeRecord(record: ArtifactRecord): Promise<void> {
  const url = prefixJoin(record.output_path, RECORD_FILE);
  await filesystemFor(url).writeText(url, serializeRecord(record));
}
