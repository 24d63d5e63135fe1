/**
 * Exit code of a task attempt whose Python environment (`pythonEnv`) could not be built, so the job's command never
 * started. The same code Fray's Ray launcher exits with, so every backend reports the case alike.
 */
export const PYTHON_ENV_BUILD_FAILED_EXIT_CODE = 97;

/** Why a job's Python environment could not be built: the lock's name and the installer's own error text. */
export interface PythonEnvBuildFailure {
  readonly lock: string;
  readonly errorText: string;
}

const FAILURE = /python environment ("(?:[^"\\]|\\.)*") failed to build: ([\s\S]*)$/;

/** The attempt error a worker reports with {@link PYTHON_ENV_BUILD_FAILED_EXIT_CODE}: `python environment "<lock>" failed to build: <text>`. */
export function pythonEnvBuildFailureMessage(failure: PythonEnvBuildFailure): string {
  return `python environment ${JSON.stringify(failure.lock)} failed to build: ${failure.errorText}`;
}

/**
 * Reads the lock and the installer's text back from a task's or job's error (the job's error prefixes the deciding
 * task's). `null` unless `exitCode` is {@link PYTHON_ENV_BUILD_FAILED_EXIT_CODE} and the error has that form.
 */
export function parsePythonEnvBuildFailure(error: string, exitCode: number): PythonEnvBuildFailure | null {
  if (exitCode !== PYTHON_ENV_BUILD_FAILED_EXIT_CODE) return null;
  const m = FAILURE.exec(error);
  if (m === null) return null;
  return { lock: JSON.parse(m[1] as string) as string, errorText: m[2] as string };
}
