import { RiggingError, filesystemFor, isRecord, parsePyJson } from '@marin/rigging';
import { IrisError } from '../errors.js';
import type { StepOutputView, StepRunsView } from './api-types.js';
import { canonicalPrefix, isUnder } from './experiment-access.js';
import { parseStepStatus, readOrNull } from './experiment-files.js';
import { readEvalResults } from './eval-results.js';
import { readTrainMetrics } from './train-metrics.js';

const STATUS_FILE = '.executor_status';
const INFO_FILE = '.executor_info';
const ARTIFACT_RECORD_FILE = '.artifact.json';
/** Sibling outputs examined when listing the runs of a step. */
const MAX_RUNS = 50;

function join(base: string, name: string): string {
  return `${base.replace(/\/+$/, '')}/${name}`;
}

function parentOf(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.slice(0, Math.max(trimmed.lastIndexOf('/'), 0)) || '/';
}

function jsonOrNull(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const doc = parsePyJson(text);
    return isRecord(doc) ? doc : null;
  } catch {
    return null;
  }
}

/** An `.artifact.json`'s identity fields, or null when the text is not a record. */
export function artifactRecordOf(text: string | null): { name: string; version: string; fingerprint: string; resultType: string; deps: string[] } | null {
  const doc = jsonOrNull(text);
  if (doc === null || typeof doc['name'] !== 'string' || typeof doc['fingerprint'] !== 'string') return null;
  return {
    name: doc['name'],
    version: typeof doc['version'] === 'string' ? doc['version'] : '',
    fingerprint: doc['fingerprint'],
    resultType: typeof doc['result_type'] === 'string' ? doc['result_type'] : '',
    deps: Array.isArray(doc['deps']) ? doc['deps'].filter((d): d is string => typeof d === 'string') : [],
  };
}

/**
 * The output path asked for, checked before anything is read: it must lie under the served prefix
 * (compared canonically), and the refusal is the same whether or not it exists.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for a path outside the prefix
 */
function servedOutput(prefix: string, path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed === '' || !isUnder(trimmed, canonicalPrefix(prefix)) || trimmed.split('/').includes('..')) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', `path "${path.slice(0, 200)}" is not a step output under the served prefix`);
  }
  return trimmed;
}

/** The step name an output's `.executor_info` gives, else its `.artifact.json`'s. */
async function stepNameOf(outputPath: string): Promise<string | null> {
  const info = jsonOrNull(await readOrNull(join(outputPath, INFO_FILE)));
  if (info !== null && typeof info['name'] === 'string') return info['name'];
  return artifactRecordOf(await readOrNull(join(outputPath, ARTIFACT_RECORD_FILE)))?.name ?? null;
}

/**
 * What a step's output holds for the page: train metrics (see `train-metrics.ts`), the eval results
 * table (`results.json`) and the artifact record, each null when absent. `prefix` is a served one.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for a path outside the prefix or a metrics/results file that
 *   is not regular or too large; IRIS_DEADLINE_EXCEEDED when a read takes too long
 */
export async function readStepOutput(prefix: string, path: string): Promise<StepOutputView> {
  const outputPath = servedOutput(prefix, path);
  const [name, status, metrics, evalResults, record] = await Promise.all([
    stepNameOf(outputPath),
    readOrNull(join(outputPath, STATUS_FILE)).then(parseStepStatus),
    readTrainMetrics(outputPath),
    readEvalResults(outputPath),
    readOrNull(join(outputPath, ARTIFACT_RECORD_FILE)).then(artifactRecordOf),
  ]);
  return {
    outputPath,
    name,
    status,
    metrics,
    evalResults,
    artifact: record === null ? null : { id: `${record.name}@${record.version}`, fingerprint: record.fingerprint, resultType: record.resultType, deps: record.deps },
  };
}

/**
 * The runs of the step whose output is `path`: that output and its siblings whose `.executor_info`
 * (ExecutorStep, `<name>-<hash>`) or `.artifact.json` (ArtifactStep, `{name}/{version}`) names the
 * same step, newest first, at most 50.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for a path outside the prefix
 */
export async function listStepRuns(prefix: string, path: string): Promise<StepRunsView> {
  const outputPath = servedOutput(prefix, path);
  const canonical = canonicalPrefix(prefix);
  const name = await stepNameOf(outputPath);
  const parent = parentOf(outputPath);
  if (name === null || !isUnder(parent, canonical)) return { name, runs: [{ outputPath, mtimeMs: 0 }] };
  const fs = filesystemFor(parent);
  let entries;
  try {
    entries = await fs.ls(parent);
  } catch (e) {
    if (RiggingError.is(e)) return { name, runs: [{ outputPath, mtimeMs: 0 }] };
    throw e;
  }
  const dirs = entries.filter((e) => e.type === 'directory').map((e) => e.url.replace(/\/+$/, ''));
  const stamped = await Promise.all(
    dirs.map(async (dir) => {
      for (const f of [INFO_FILE, ARTIFACT_RECORD_FILE]) {
        const st = await fs.stat(join(dir, f)).catch(() => null);
        if (st !== null) return { dir, mtimeMs: st.mtimeMs ?? 0 };
      }
      return null;
    }),
  );
  const candidates = stamped.filter((s) => s !== null).sort((a, b) => b.mtimeMs - a.mtimeMs).slice(0, MAX_RUNS);
  const named = await Promise.all(candidates.map(async (c) => ((await stepNameOf(c.dir)) === name ? c : null)));
  const runs = named.filter((r) => r !== null).map((r) => ({ outputPath: r.dir, mtimeMs: r.mtimeMs }));
  if (!runs.some((r) => canonicalPrefix(r.outputPath) === canonicalPrefix(outputPath))) runs.unshift({ outputPath, mtimeMs: 0 });
  return { name, runs };
}
