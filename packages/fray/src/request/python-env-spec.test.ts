import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Entrypoint } from './entrypoint.js';
import { resolveJobRequest } from './job-request.js';
import { DEFAULT_PYTHON_VERSION, PythonEnvSpec, validatePythonEnvSpec } from './python-env-spec.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fray-pyenv-spec-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('PythonEnvSpec', () => {
  it('reads a lock file into a frozen spec named after the file', async () => {
    const path = join(dir, 'levanter.lock');
    await writeFile(path, '# header\nsix==1.17.0\n');
    const spec = PythonEnvSpec.fromLockFile(path, { pythonVersion: '3.12' });
    expect(spec).toEqual({ lock: '# header\nsix==1.17.0\n', name: 'levanter.lock', pythonVersion: '3.12' });
    expect(Object.isFrozen(spec)).toBe(true);
    expect(PythonEnvSpec.fromLock('six==1.17.0').pythonVersion).toBe(DEFAULT_PYTHON_VERSION);
  });

  it('accepts extras, environment markers, inline comments and wrapped --hash options', () => {
    const lock = [
      '# comment',
      '',
      'jax[cpu]==0.4.38',
      'Requests[socks, security] == 2.32.3  # why it is here',
      'tomli==2.0.1 ; python_version < "3.11"',
      'torch==2.5.1+cpu',
      'six==1.17.0 \\',
      '    --hash=sha256:4721f391ed90541fddacab5acf947aa0d3dc7d27b2e1e8eda2be8970586c3274',
    ].join('\n');
    expect(PythonEnvSpec.fromLock(lock).lock).toBe(lock);
  });

  it.each([
    ['a range', 'six==1.17.0\nnumpy>=1.26\n', 2],
    ['a bare name', 'six\n', 1],
    ['a wildcard', 'six==1.*\n', 1],
    ['an option line', '--index-url https://example.org/simple\nsix==1.17.0\n', 1],
    ['a URL', 'six @ https://example.org/six.whl\n', 1],
  ])('rejects %s with FRAY_INVALID_ARGUMENT naming the line', (_what, lock, line) => {
    expect(() => PythonEnvSpec.fromLock(lock, { name: 'x.lock' })).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT', details: expect.objectContaining({ lock: 'x.lock', line }) }));
  });

  it('rejects a lock without pins, a bad Python version and an unreadable file', () => {
    expect(() => PythonEnvSpec.fromLock('# nothing\n\n')).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
    expect(() => PythonEnvSpec.fromLock('six==1.17.0', { pythonVersion: 'py3' })).toThrow(
      expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT', details: { field: 'pythonVersion' } }),
    );
    expect(() => PythonEnvSpec.fromLockFile(join(dir, 'missing.lock'))).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
  });

  it('is validated when a job request is resolved, so a hand-built spec is checked too', () => {
    const entrypoint = Entrypoint.fromBinary('python', ['-V']);
    const resolved = resolveJobRequest({ name: 'py', entrypoint, pythonEnv: { lock: 'six==1.17.0\n', name: 'six.lock', pythonVersion: '3.11' } });
    expect(resolved.pythonEnv).toEqual({ lock: 'six==1.17.0\n', name: 'six.lock', pythonVersion: '3.11' });
    expect(resolveJobRequest({ name: 'plain', entrypoint }).pythonEnv).toBeUndefined();
    expect(() => resolveJobRequest({ name: 'py', entrypoint, pythonEnv: { lock: 'six>1', name: 'six.lock', pythonVersion: '3.11' } })).toThrow(
      expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT', details: expect.objectContaining({ line: 1 }) }),
    );
    expect(validatePythonEnvSpec({ lock: 'six==1.17.0', name: '', pythonVersion: '3' }).name).toBe('requirements.lock');
  });
});
