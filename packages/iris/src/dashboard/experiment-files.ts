import { RiggingError, filesystemFor, isPyJsonObject, parsePyJson, pyJsonDumps } from '@marin/rigging';
import { IrisError } from '../errors.js';
import type { ArtifactStepView, ExperimentStepView, ExperimentSummary, ExperimentView, VersionChange } from './api-types.js';
import { canonicalPrefix, isUnder, readSmallFile } from './experiment-access.js';

/** Where the executor writes one JSON file per experiment run, under the prefix. */
const EXPERIMENTS_DIR = 'experiments';
const STATUS_FILE = '.executor_status';
const INFO_FILE = '.executor_info';
/** An ArtifactStep's record beside its output. */
const RECORD_FILE = '.artifact.json';
/** The newest experiment files listed (and read for their summary). */
const MAX_LISTED = 200;
/** Earlier versions of one step examined when looking for the previous run. */
const MAX_EARLIER = 50;

function join(base: string, name: string): string {
  return `${base.replace(/\/+$/, '')}/${name}`;
}

function lastSegment(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

function parentOf(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.slice(0, Math.max(trimmed.lastIndexOf('/'), 0)) || '/';
}

/** A bookkeeping file's text, or null when it is missing, unreadable, not regular or too large (best effort). */
export async function readOrNull(url: string): Promise<string | null> {
  try {
    return await readSmallFile(url, lastSegment(url));
  } catch (e) {
    if (RiggingError.is(e) || IrisError.is(e)) return null;
    throw e;
  }
}

/**
 * A step's status as the executor reads `.executor_status`: one bare token (today's format), or the
 * legacy JSON-lines event log, whose last `"status"` wins.
 */
export function parseStepStatus(text: string | null): string | null {
  if (text === null) return null;
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l.length > 0);
  if (lines.length === 0) return null;
  if (lines.length === 1 && !lines[0]!.startsWith('{')) return lines[0]!;
  let status: string | null = null;
  for (const line of lines) {
    try {
      const event: unknown = JSON.parse(line);
      if (isPyJsonObject(event) && typeof event['status'] === 'string') status = event['status'];
    } catch {
      // A torn last line of the legacy log: keep the last status that parsed.
    }
  }
  return status ?? lines[lines.length - 1]!;
}

function render(value: unknown): string {
  return pyJsonDumps(value, { strict: false, onWarning: () => {} });
}

/** Flattens a version object into leaves keyed by path (`config.a.b`, `dependencies[1]`); empty containers are leaves. */
function flatten(value: unknown, path = '', out = new Map<string, string>()): Map<string, string> {
  if (Array.isArray(value) && value.length > 0) value.forEach((v, i) => flatten(v, `${path}[${i}]`, out));
  else if (isPyJsonObject(value) && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) flatten(v, path === '' ? k : `${path}.${k}`, out);
  } else out.set(path, render(value));
  return out;
}

/** Field-level differences between two step versions: changed and added leaves in `after`'s order, then removed ones. */
export function diffVersions(before: unknown, after: unknown): VersionChange[] {
  const a = flatten(before);
  const b = flatten(after);
  const changes: VersionChange[] = [];
  for (const [path, value] of b) {
    const old = a.get(path);
    if (old === undefined) changes.push({ kind: '+', path, after: value });
    else if (old !== value) changes.push({ kind: '~', path, before: old, after: value });
  }
  for (const [path, value] of a) if (!b.has(path)) changes.push({ kind: '-', path, before: value });
  return changes;
}

/**
 * The experiment files under `<prefix>/experiments/`, newest first (at most 200).
 * @throws {RiggingError} when the prefix cannot be listed for another reason than being absent.
 */
export async function listExperiments(prefix: string): Promise<ExperimentSummary[]> {
  const dir = join(prefix, EXPERIMENTS_DIR);
  // ls never opens an entry, so a FIFO or device among them costs nothing; each read below checks.
  const fs = filesystemFor(dir);
  let entries;
  try {
    entries = await fs.ls(dir);
  } catch (e) {
    if (RiggingError.is(e) && e.code === 'RIGGING_NOT_FOUND') return [];
    throw e;
  }
  const files = entries
    .filter((e) => e.type === 'file' && e.url.endsWith('.json'))
    .sort((a, b) => (b.mtimeMs ?? 0) - (a.mtimeMs ?? 0) || (a.url < b.url ? -1 : 1))
    .slice(0, MAX_LISTED);
  return Promise.all(
    files.map(async (f): Promise<ExperimentSummary> => {
      const file = lastSegment(f.url);
      const doc = await readExperiment(f.url).catch(() => null);
      return {
        file,
        name: file.replace(/(-[0-9a-f]{6})?\.json$/, ''),
        createdDate: typeof doc?.['created_date'] === 'string' ? doc['created_date'] : null,
        callerPath: typeof doc?.['caller_path'] === 'string' ? doc['caller_path'] : null,
        stepCount: Array.isArray(doc?.['steps']) ? doc['steps'].length : 0,
        mtimeMs: f.mtimeMs ?? 0,
      };
    }),
  );
}

async function readExperiment(url: string): Promise<Record<string, unknown> | null> {
  const text = await readOrNull(url);
  if (text === null) return null;
  const doc = parsePyJson(text);
  return isPyJsonObject(doc) && Array.isArray(doc['steps']) ? doc : null;
}

/**
 * The previous run of a step: among its output path's siblings named `<last name segment>-<6 hex>`
 * whose `.executor_info` has the same step name, the one written last.
 */
async function previousRun(outputPath: string, name: string, canonical: string): Promise<{ path: string; version: unknown } | null> {
  const parent = parentOf(outputPath);
  if (!isUnder(parent, canonical)) return null;
  const fs = filesystemFor(parent);
  let entries;
  try {
    entries = await fs.ls(parent);
  } catch (e) {
    if (RiggingError.is(e)) return null;
    throw e;
  }
  const own = lastSegment(outputPath);
  const base = lastSegment(name).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`^${base}-[0-9a-f]{6}$`);
  const stamped = await Promise.all(
    entries
      .filter((e) => e.type === 'directory' && pattern.test(lastSegment(e.url)) && lastSegment(e.url) !== own)
      .map(async (e) => {
        const info = join(e.url, INFO_FILE);
        const st = await fs.stat(info).catch(() => null);
        return st === null ? null : { dir: e.url.replace(/\/+$/, ''), info, mtimeMs: st.mtimeMs ?? 0 };
      }),
  );
  const candidates = stamped.filter((s) => s !== null).sort((a, b) => b.mtimeMs - a.mtimeMs).slice(0, MAX_EARLIER);
  for (const c of candidates) {
    const text = await readOrNull(c.info);
    if (text === null) continue;
    let info: unknown;
    try {
      info = parsePyJson(text);
    } catch {
      continue;
    }
    if (isPyJsonObject(info) && info['name'] === name && isPyJsonObject(info['version'])) return { path: c.dir, version: info['version'] };
  }
  return null;
}

/**
 * The ArtifactStep view of an experiment file's step: the artifact run writes each artifact as an entry
 * whose `config` holds `fingerprint`, `version` and `deps` (`name@version`); other steps give null.
 * `recordText` is the `.artifact.json` at its output (null when absent or unread).
 */
export function artifactStepView(step: Record<string, unknown>, recordText: string | null): ArtifactStepView | null {
  const config = step['config'];
  if (!isPyJsonObject(config) || typeof config['version'] !== 'string' || !Array.isArray(config['deps']) || typeof step['name'] !== 'string') return null;
  const planFingerprint = typeof config['fingerprint'] === 'string' ? config['fingerprint'] : null;
  let record: Record<string, unknown> | null = null;
  if (recordText !== null) {
    try {
      const doc = parsePyJson(recordText);
      if (isPyJsonObject(doc)) record = doc;
    } catch {
      // A torn or foreign record reads as none.
    }
  }
  const recordFingerprint = typeof record?.['fingerprint'] === 'string' ? record['fingerprint'] : null;
  return {
    id: `${step['name']}@${config['version']}`,
    version: config['version'],
    planFingerprint,
    deps: config['deps'].filter((d): d is string => typeof d === 'string'),
    recordFingerprint,
    resultType: typeof record?.['result_type'] === 'string' ? record['result_type'] : typeof config['result_type'] === 'string' ? config['result_type'] : null,
    drift: planFingerprint !== null && recordFingerprint !== null && planFingerprint !== recordFingerprint,
  };
}

/** An experiment file's name as the API takes it: one path segment ending in `.json`. */
const EXPERIMENT_FILE = /^[^/\\\0]+\.json$/;

/**
 * One experiment file drawn as a DAG: each step with its status (from `.executor_status`), output
 * path, dependencies (as step indexes) and its version diff against the previous run of the step.
 * `prefix` is one the controller serves; step files outside it are never read.
 * @throws {IrisError} IRIS_NOT_FOUND when the file does not exist; IRIS_INVALID_ARGUMENT for a name
 *   that is not `<name>.json`, a file that is not regular, too large, or not an experiment file
 */
export async function readExperimentView(prefix: string, file: string): Promise<ExperimentView> {
  if (!EXPERIMENT_FILE.test(file) || file.startsWith('.')) throw new IrisError('IRIS_INVALID_ARGUMENT', `file "${file.slice(0, 200)}" is not an experiment file name (<name>.json)`);
  const url = join(join(prefix, EXPERIMENTS_DIR), file);
  const text = await readSmallFile(url, file);
  if (text === null) throw new IrisError('IRIS_NOT_FOUND', `no experiment file "${file}" under the prefix`);
  let doc: unknown;
  try {
    doc = parsePyJson(text);
  } catch (e) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', `experiment file "${file}" is not JSON`, { cause: e });
  }
  if (!isPyJsonObject(doc) || !Array.isArray(doc['steps'])) throw new IrisError('IRIS_INVALID_ARGUMENT', `"${file}" is not an experiment file (no "steps" list)`);
  const canonical = canonicalPrefix(prefix);
  const rawSteps = doc['steps'].filter(isPyJsonObject);
  const byOutput = new Map<string, number>();
  rawSteps.forEach((s, i) => {
    if (typeof s['output_path'] === 'string') byOutput.set(s['output_path'].replace(/\/+$/, ''), i);
  });
  const steps = await Promise.all(
    rawSteps.map(async (s, index): Promise<ExperimentStepView> => {
      const name = typeof s['name'] === 'string' ? s['name'] : `step ${index}`;
      const outputPath = typeof s['output_path'] === 'string' ? s['output_path'].replace(/\/+$/, '') : '';
      const deps = Array.isArray(s['dependencies']) ? s['dependencies'].filter((d): d is string => typeof d === 'string') : [];
      // Only the prefix's own outputs are read: a step may name any path, the dashboard reads none elsewhere.
      const readable = outputPath !== '' && isUnder(outputPath, canonical);
      const isArtifact = artifactStepView(s, null) !== null;
      const [status, previous, record] = await Promise.all([
        readable ? readOrNull(join(outputPath, STATUS_FILE)).then(parseStepStatus) : null,
        readable && !isArtifact ? previousRun(outputPath, name, canonical) : null,
        readable && isArtifact ? readOrNull(join(outputPath, RECORD_FILE)) : null,
      ]);
      return {
        index,
        name,
        fnName: typeof s['fn_name'] === 'string' ? s['fn_name'] : null,
        outputPath,
        status,
        dependencies: deps.map((d) => byOutput.get(d.replace(/\/+$/, ''))).filter((i): i is number => i !== undefined),
        externalDependencies: deps.filter((d) => !byOutput.has(d.replace(/\/+$/, ''))),
        previousRun: previous === null ? null : { outputPath: previous.path, changes: diffVersions(previous.version, s['version']) },
        jobs: [],
        artifact: isArtifact ? artifactStepView(s, record) : null,
      };
    }),
  );
  return {
    file,
    prefix,
    createdDate: typeof doc['created_date'] === 'string' ? doc['created_date'] : null,
    callerPath: typeof doc['caller_path'] === 'string' ? doc['caller_path'] : null,
    steps,
  };
}
