import { describe, expect, it } from 'vitest';
import { PYTHON_ENV_BUILD_FAILED_EXIT_CODE, parsePythonEnvBuildFailure, pythonEnvBuildFailureMessage } from './python-env-failure.js';

describe('python environment build failures', () => {
  it('round-trips the lock and the installer text, also inside a job error and for odd lock names', () => {
    for (const failure of [
      { lock: 'bad.lock', errorText: 'Because six==99.0.0 has no wheels, we can conclude …' },
      { lock: 'we"ird\\name', errorText: 'line one\nline two' },
    ]) {
      const message = pythonEnvBuildFailureMessage(failure);
      expect(parsePythonEnvBuildFailure(message, PYTHON_ENV_BUILD_FAILED_EXIT_CODE)).toEqual(failure);
      expect(parsePythonEnvBuildFailure(`task /alice/job/0 failed: ${message}`, PYTHON_ENV_BUILD_FAILED_EXIT_CODE)).toEqual(failure);
    }
  });

  it('reads nothing from another exit code or another error', () => {
    expect(parsePythonEnvBuildFailure(pythonEnvBuildFailureMessage({ lock: 'a', errorText: 'b' }), 1)).toBeNull();
    expect(parsePythonEnvBuildFailure('exit status 97', PYTHON_ENV_BUILD_FAILED_EXIT_CODE)).toBeNull();
  });
});
