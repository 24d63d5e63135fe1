import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PYTHON_ENV_MARKER, ensurePythonEnv, pythonEnvCacheDir, pythonEnvDir, pythonEnvKey } from './python-env.js';
import { errorTextOf } from './uv-command.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rigging-pyenv-unit-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('pythonEnvKey()', () => {
  it('depends on the lock bytes and the Python version only', () => {
    const key = pythonEnvKey('six==1.17.0\n', '3.11');
    expect(key).toMatch(/^[0-9a-f]{16}$/);
    expect(pythonEnvKey(Buffer.from('six==1.17.0\n'), '3.11')).toBe(key);
    expect(pythonEnvKey('six==1.16.0\n', '3.11')).not.toBe(key);
    expect(pythonEnvKey('six==1.17.0\n', '3.12')).not.toBe(key);
  });

  it('places a key under the cache dir by version', () => {
    expect(pythonEnvDir('/c', '3.11', 'abc')).toBe('/c/py3.11-abc');
  });
});

describe('pythonEnvCacheDir()', () => {
  it('prefers MARIN_PYTHON_ENV_CACHE, then XDG_CACHE_HOME', () => {
    expect(pythonEnvCacheDir({ MARIN_PYTHON_ENV_CACHE: '/x/envs', XDG_CACHE_HOME: '/y' })).toBe('/x/envs');
    expect(pythonEnvCacheDir({ XDG_CACHE_HOME: '/y' })).toBe('/y/marin/python-envs');
  });
});

describe('errorTextOf()', () => {
  it('takes uv output from its last error line to the end', () => {
    const out = ['Using Python 3.11.7 environment at: v', 'error: No solution found', '  cause: no version of six==99.0.0', ''];
    expect(errorTextOf(out)).toBe('error: No solution found\ncause: no version of six==99.0.0');
  });

  it('falls back to the last non-empty line', () => {
    expect(errorTextOf(['building', 'Killed', '  '])).toBe('Killed');
  });
});

describe('ensurePythonEnv() argument checks', () => {
  it('rejects neither or both of lockPath and lock', async () => {
    await expect(ensurePythonEnv({ cacheDir: dir })).rejects.toMatchObject({ code: 'RIGGING_INVALID_ARGUMENT' });
    await expect(ensurePythonEnv({ cacheDir: dir, lock: 'six==1.17.0', lockPath: join(dir, 'x') })).rejects.toMatchObject({
      code: 'RIGGING_INVALID_ARGUMENT',
    });
  });

  it('rejects an empty lock and a malformed Python version', async () => {
    await expect(ensurePythonEnv({ cacheDir: dir, lock: ' \n' })).rejects.toMatchObject({ code: 'RIGGING_INVALID_ARGUMENT' });
    await expect(ensurePythonEnv({ cacheDir: dir, lock: 'six==1.17.0', pythonVersion: '../3' })).rejects.toMatchObject({
      code: 'RIGGING_INVALID_ARGUMENT',
      details: { pythonVersion: '../3' },
    });
  });

  it('reports a missing lock file as RIGGING_NOT_FOUND', async () => {
    await expect(ensurePythonEnv({ cacheDir: dir, lockPath: join(dir, 'missing.lock') })).rejects.toMatchObject({
      code: 'RIGGING_NOT_FOUND',
      details: { path: join(dir, 'missing.lock') },
    });
  });

  it('returns an existing environment without building (the marker is all it checks)', async () => {
    const lock = join(dir, 'req.lock');
    await writeFile(lock, 'six==1.17.0\n');
    const envDir = pythonEnvDir(join(dir, 'cache'), '3.11', pythonEnvKey('six==1.17.0\n', '3.11'));
    await mkdir(envDir, { recursive: true });
    await writeFile(join(envDir, PYTHON_ENV_MARKER), '{}');
    await expect(ensurePythonEnv({ cacheDir: join(dir, 'cache'), lockPath: lock })).resolves.toEqual({
      key: pythonEnvKey('six==1.17.0\n', '3.11'),
      dir: envDir,
      python: join(envDir, 'bin', 'python'),
      built: false,
    });
  });
});
