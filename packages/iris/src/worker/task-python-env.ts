import { delimiter, join } from 'node:path';
import { RiggingError, ensurePythonEnv } from '@marin/rigging';
import { pythonEnvBuildFailureMessage } from '../core/python-env-failure.js';
import type { PythonEnvConfig } from '../gen/iris/v1/types.js';

/** The Python version of a job that names none. */
export const DEFAULT_TASK_PYTHON_VERSION = '3.11';

/** Options of {@link prepareTaskPythonEnv}. */
export interface TaskPythonEnvOptions {
  /** The job's Python environment, from its spec. */
  spec: PythonEnvConfig;
  /** The worker's cache dir; environments live in `<cacheDir>/python-envs/py<version>-<key>`. */
  cacheDir: string;
  /** Receives build progress and cache notices (logged with source `build`). */
  onLine: (line: string) => void;
  /** Aborts a running build (the attempt was stopped). */
  signal?: AbortSignal | undefined;
}

/** How preparing a task's Python environment ended. */
export type TaskPythonEnvOutcome =
  | { ok: true; dir: string; key: string; built: boolean }
  /** The lock could not be installed: the job's failure, with the build's own error text. */
  | { ok: false; aborted: boolean; message: string };

/** Where a worker keeps Python environments. */
export function pythonEnvsDir(cacheDir: string): string {
  return join(cacheDir, 'python-envs');
}

/**
 * Builds a job's Python environment once per lock hash (a lease beside it keeps two attempts, or two daemons
 * sharing the cache dir, from building the same key at once) or finds it already built. A failed install is
 * reported as an outcome, never thrown: it is the job's failure, not the worker's. Unexpected errors (a
 * cache dir that cannot be written) are thrown and end the attempt as a worker failure.
 */
export async function prepareTaskPythonEnv(options: TaskPythonEnvOptions): Promise<TaskPythonEnvOutcome> {
  const { spec, onLine } = options;
  const name = spec.name === '' ? 'requirements.lock' : spec.name;
  const pythonVersion = spec.pythonVersion === '' ? DEFAULT_TASK_PYTHON_VERSION : spec.pythonVersion;
  try {
    const env = await ensurePythonEnv({
      lock: spec.lock,
      lockName: name,
      pythonVersion,
      cacheDir: pythonEnvsDir(options.cacheDir),
      log: onLine,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    if (!env.built) onLine(`[iris] reusing Python ${pythonVersion} environment ${env.key} (${name})`);
    return { ok: true, dir: env.dir, key: env.key, built: env.built };
  } catch (e) {
    if (options.signal?.aborted === true) return { ok: false, aborted: true, message: 'stopped while building the Python environment' };
    if (RiggingError.hasCode(e, 'RIGGING_ENV_BUILD_FAILED') || RiggingError.hasCode(e, 'RIGGING_INVALID_ARGUMENT')) {
      const text = typeof e.details['errorText'] === 'string' ? e.details['errorText'] : e.message;
      return { ok: false, aborted: false, message: pythonEnvBuildFailureMessage({ lock: name, errorText: text }) };
    }
    throw e;
  }
}

/** Activates a built environment in a task's environment: `VIRTUAL_ENV`, its `bin` first on `PATH`, no `PYTHONHOME`. */
export function activatePythonEnv(env: Record<string, string>, dir: string): void {
  const bin = join(dir, 'bin');
  const path = env['PATH'];
  env['VIRTUAL_ENV'] = dir;
  env['PATH'] = path === undefined || path === '' ? bin : `${bin}${delimiter}${path}`;
  delete env['PYTHONHOME'];
}
