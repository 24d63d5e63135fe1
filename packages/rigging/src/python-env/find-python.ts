import { access, readdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

/**
 * An installed interpreter of `version` (`3.12`, `3.12.1`; `3` matches nothing specific) for `uv venv --python`:
 * `python<major.minor>` in a `PATH` directory that is not a pyenv shim directory, else the newest
 * `$PYENV_ROOT/versions/<version>*` (default root `~/.pyenv`). A pyenv shim is skipped because it refuses to run a
 * version that is not selected, which uv reports as a broken interpreter. Returns null when none is found (uv then
 * searches by itself).
 */
export async function findPythonInterpreter(version: string, env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  const parts = version.split('.');
  if (parts.length < 2) return null;
  const minor = `${parts[0]}.${parts[1]}`;
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (dir === '' || dir.endsWith('/shims')) continue;
    const candidate = join(dir, `python${minor}`);
    if (parts.length === 2 && (await exists(candidate))) return candidate;
  }
  const root = env['PYENV_ROOT'] !== undefined && env['PYENV_ROOT'] !== '' ? env['PYENV_ROOT'] : join(homedir(), '.pyenv');
  let names: string[];
  try {
    names = await readdir(join(root, 'versions'));
  } catch {
    return null;
  }
  const matching = names
    .filter((n) => n === version || n.startsWith(`${version}.`))
    .sort((a, b) => compareVersions(b, a));
  for (const name of matching) {
    const candidate = join(root, 'versions', name, 'bin', `python${minor}`);
    if (await exists(candidate)) return candidate;
  }
  return null;
}

function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((x) => Number.parseInt(x, 10));
  const pb = b.split('.').map((x) => Number.parseInt(x, 10));
  for (let i = 0; i < Math.max(pa.length, pb.length); i += 1) {
    const d = (pa[i] ?? -1) - (pb[i] ?? -1);
    if (d !== 0 && !Number.isNaN(d)) return d;
  }
  return 0;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
