import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ensurePythonEnv } from '@marin/rigging';
import { PipelineError } from '../../errors.js';
import { curationLockPath, curationScriptPath } from '../curation-assets.js';

/**
 * The interpreter of the curation Python environment, built from the checked-in lock on first use (cached by the
 * lock's hash, shared by concurrent callers through rigging's lease).
 * @throws {PipelineError} PIPELINE_JOB_FAILED (`details.stage: 'python-env'`) when it cannot be built
 */
export async function ensureCurationPython(options: { log?: (line: string) => void; signal?: AbortSignal } = {}): Promise<string> {
  try {
    const env = await ensurePythonEnv({ lockPath: curationLockPath(), pythonVersion: '3.11', ...(options.log ? { log: options.log } : {}), ...(options.signal ? { signal: options.signal } : {}) });
    return env.python;
  } catch (cause) {
    throw new PipelineError('PIPELINE_JOB_FAILED', 'cannot build the curation Python environment (needs Python 3.11, uv and PyPI)', { cause, details: { stage: 'python-env' } });
  }
}

/** Options of {@link runCurationScript}. */
export interface CurationScriptOptions {
  python: string;
  /** A script under `python/curation/`. */
  script: string;
  args: readonly string[];
  /** Variables added to this process's environment for the script. */
  env?: Readonly<Record<string, string>>;
  signal?: AbortSignal;
}

/**
 * Runs a shipped curation script to completion and resolves with its stdout.
 * @throws {PipelineError} PIPELINE_JOB_FAILED with the script's last stderr line in `details.errorLine`
 */
export async function runCurationScript(options: CurationScriptOptions): Promise<string> {
  const child = spawn(options.python, [curationScriptPath(options.script), ...options.args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-20_000)));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  }).catch((cause: unknown) => {
    throw new PipelineError('PIPELINE_JOB_FAILED', `cannot run ${options.script}`, { cause, details: { script: options.script } });
  });
  if (code !== 0) throw scriptFailed(options.script, code, stderr);
  return stdout;
}

function scriptFailed(script: string, code: number | null, stderr: string): PipelineError {
  const errorLine = stderr.trim().split('\n').filter((l) => l.trim() !== '').pop() ?? '';
  return new PipelineError('PIPELINE_JOB_FAILED', `${script} exited with ${code}: ${errorLine}`, { details: { script, code, errorLine } });
}

/** A document to score. */
export interface ScoreInput {
  id: string;
  text: unknown;
}

/** Options of {@link scoreWithFasttext}. */
export interface FasttextScoreOptions {
  python: string;
  /** A local fastText model file. */
  modelPath: string;
  /** The label whose probability is the score (without `__label__`). */
  label: string;
  signal?: AbortSignal;
}

/**
 * Scores documents with the official fastText bindings in one Python process: texts stream to its stdin as JSON
 * lines while scores stream back, in order, so memory stays bounded whatever the number of documents.
 * @throws {PipelineError} PIPELINE_INPUT_INVALID for a text that is neither a string nor null; PIPELINE_JOB_FAILED when the scorer fails
 */
export async function* scoreWithFasttext(records: AsyncIterable<ScoreInput> | Iterable<ScoreInput>, options: FasttextScoreOptions): AsyncGenerator<{ id: string; quality_score: number }> {
  const child = spawn(options.python, [curationScriptPath('fasttext_score.py'), options.modelPath, options.label], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-20_000)));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  child.stdin.on('error', () => undefined); // a dead scorer is reported through its exit code
  let feedError: unknown = null;
  const feed = (async () => {
    try {
      for await (const r of records) {
        const text = r.text ?? '';
        if (typeof text !== 'string') {
          throw new PipelineError('PIPELINE_INPUT_INVALID', `document "${r.id}" has a ${typeof text} text; quality scoring needs string texts`, { details: { id: r.id } });
        }
        if (!child.stdin.write(`${JSON.stringify({ id: r.id, text })}\n`)) await new Promise<void>((resolve) => child.stdin.once('drain', resolve));
      }
    } catch (e) {
      feedError = e;
      child.kill('SIGKILL');
    } finally {
      child.stdin.end();
    }
  })();
  const onAbort = (): void => void child.kill('SIGKILL');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const line of createInterface({ input: child.stdout, crlfDelay: Infinity })) {
      if (line.trim() === '') continue;
      yield JSON.parse(line) as { id: string; quality_score: number };
    }
    await feed;
    const code = await exited;
    if (feedError !== null) throw feedError;
    options.signal?.throwIfAborted();
    if (code !== 0) throw scriptFailed('fasttext_score.py', code, stderr);
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}
