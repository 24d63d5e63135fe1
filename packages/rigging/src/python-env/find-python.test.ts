import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findPythonInterpreter } from './find-python.js';

let root = '';
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'find-python-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function exe(path: string): Promise<string> {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, '#!/bin/sh\n');
  await chmod(path, 0o755);
  return path;
}

describe('findPythonInterpreter()', () => {
  it('skips pyenv shim directories on PATH and takes the newest matching pyenv version', async () => {
    await exe(join(root, 'shims', 'python3.12'));
    await exe(join(root, 'pyenv', 'versions', '3.12.1', 'bin', 'python3.12'));
    const newest = await exe(join(root, 'pyenv', 'versions', '3.12.10', 'bin', 'python3.12'));
    await exe(join(root, 'pyenv', 'versions', '3.11.7', 'bin', 'python3.11'));
    const env = { PATH: join(root, 'shims'), PYENV_ROOT: join(root, 'pyenv') };
    expect(await findPythonInterpreter('3.12', env)).toBe(newest);
    expect(await findPythonInterpreter('3.12.1', env)).toBe(join(root, 'pyenv', 'versions', '3.12.1', 'bin', 'python3.12'));
  });

  it('prefers a real python<major.minor> on PATH', async () => {
    const onPath = await exe(join(root, 'bin', 'python3.12'));
    await exe(join(root, 'pyenv', 'versions', '3.12.1', 'bin', 'python3.12'));
    expect(await findPythonInterpreter('3.12', { PATH: join(root, 'bin'), PYENV_ROOT: join(root, 'pyenv') })).toBe(onPath);
  });

  it('returns null when nothing matches (uv then searches by itself)', async () => {
    expect(await findPythonInterpreter('3.9', { PATH: join(root, 'bin'), PYENV_ROOT: join(root, 'none') })).toBeNull();
    expect(await findPythonInterpreter('3', { PATH: '', PYENV_ROOT: join(root, 'none') })).toBeNull();
  });
});
