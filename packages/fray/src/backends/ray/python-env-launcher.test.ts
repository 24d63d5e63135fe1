import { describe, expect, it } from 'vitest';
import { Entrypoint } from '../../request/entrypoint.js';
import { resolveJobRequest } from '../../request/job-request.js';
import { PythonEnvSpec } from '../../request/python-env-spec.js';
import { ResourceConfig } from '../../resources/resource-config.js';
import { createRayClient } from './ray-client.js';
import { buildRaySubmission } from './ray-submission.js';
import { PYTHON_ENV_FAILED_EXIT, pythonEnvFailureOf, pythonEnvLauncherSource, withPythonEnvLauncher } from './python-env-launcher.js';

const options = { submissionId: 'fray-u-job', workdir: '/w', env: {}, runtimeEnv: {}, python: 'python', pythonEnvCacheDir: '/envs' };
const pythonEnv = PythonEnvSpec.fromLock('six==1.17.0\n', { name: 'six.lock' });

describe('the Python-environment launcher on Ray', () => {
  it('wraps the command so the shell only expands the launcher variable and passes the argv through unchanged', () => {
    expect(withPythonEnvLauncher(['python', '-c', 'print(1)'])).toEqual([
      'sh',
      '-c',
      'exec node --conditions=@marin/source --import tsx --input-type=module -e "$FRAY_PYTHON_ENV_LAUNCHER" "$@"',
      'fray-python-env',
      'python',
      '-c',
      'print(1)',
    ]);
  });

  it('ships the lock, its name, version and the nodes\' cache dir in the job env, and names the lock in metadata', () => {
    const s = buildRaySubmission(resolveJobRequest({ name: 'job', entrypoint: Entrypoint.fromBinary('python', ['-V']), pythonEnv }), options);
    expect(s.entrypoint).toBe(`cd /w && exec sh -c 'exec node --conditions=@marin/source --import tsx --input-type=module -e "$FRAY_PYTHON_ENV_LAUNCHER" "$@"' fray-python-env python -V`);
    expect(JSON.parse(s.runtime_env.env_vars['FRAY_PYTHON_ENV'] ?? '{}')).toEqual({ lock: 'six==1.17.0\n', name: 'six.lock', pythonVersion: '3.11', cacheDir: '/envs' });
    expect(s.runtime_env.env_vars['FRAY_PYTHON_ENV_LAUNCHER']).toBe(pythonEnvLauncherSource());
    expect(s.metadata).toMatchObject({ fray_python_env: 'six.lock' });
  });

  it('runs every replica of a gang through the launcher', () => {
    const s = buildRaySubmission(
      resolveJobRequest({ name: 'job', entrypoint: Entrypoint.fromBinary('python', ['-V']), pythonEnv, resources: ResourceConfig.withCpu({ cpu: 0.5 }), replicas: 2 }),
      options,
    );
    const spec = JSON.parse(s.runtime_env.env_vars['FRAY_GANG_SPEC'] ?? '{}') as { argv: string[] };
    expect(spec.argv).toEqual(withPythonEnvLauncher(['python', '-V']));
  });

  it('reads the lock and uv\'s error text back from the log of a failed build', () => {
    const lines = ['[python-env] building Python 3.11 environment abc from bad.lock', '[python-env] cannot build the Python environment of "bad.lock": × No solution found', '  ╰─▶ six==99.0.0 is unavailable', ''];
    expect(pythonEnvFailureOf(lines)).toEqual({ lock: 'bad.lock', errorText: '× No solution found\n  ╰─▶ six==99.0.0 is unavailable' });
    expect(pythonEnvFailureOf(['Traceback', 'ValueError: x'])).toBeNull();
    expect(PYTHON_ENV_FAILED_EXIT).toBe(97);
  });
});

describe('createRayClient() inside a Fray job on Ray', () => {
  const inJob = { FRAY_RAY_ADDRESS: 'http://h:8265', FRAY_JOB_ID: 'fray-u-parent', FRAY_PYTHON_ENV: JSON.stringify({ lock: 'six==1.17.0\n', name: 'six.lock', pythonVersion: '3.11' }) };

  it('names its jobs after the parent, records the parent in metadata and gives children the parent\'s environment', () => {
    const client = createRayClient({ workspace: '/w' }, inJob);
    const s = client.toSubmission({ name: 'child', entrypoint: Entrypoint.fromBinary('python', ['-V']) });
    expect(s.submission_id).toBe('fray-u-parent.child');
    expect(s.metadata).toMatchObject({ fray_parent: 'fray-u-parent', fray_python_env: 'six.lock' });
    expect(JSON.parse(s.runtime_env.env_vars['FRAY_PYTHON_ENV'] ?? '{}')).toMatchObject({ lock: 'six==1.17.0\n' });
  });

  it('keeps a child\'s own environment, and inherits nothing outside a job', () => {
    const own = PythonEnvSpec.fromLock('idna==3.10\n', { name: 'idna.lock' });
    const inside = createRayClient({ workspace: '/w' }, inJob).toSubmission({ name: 'c', entrypoint: Entrypoint.fromBinary('python', ['-V']), pythonEnv: own });
    expect(inside.metadata['fray_python_env']).toBe('idna.lock');
    const outside = createRayClient({ workspace: '/w', address: 'http://h:8265' }, { FRAY_PYTHON_ENV: inJob.FRAY_PYTHON_ENV });
    const s = outside.toSubmission({ name: 'c', entrypoint: Entrypoint.fromBinary('python', ['-V']) });
    expect(s.metadata).toEqual({ fray_name: 'c', fray_replicas: '1' });
    expect(s.runtime_env.env_vars['FRAY_PYTHON_ENV']).toBeUndefined();
  });
});
