import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PYTHON_ENV_LOCK_FILE, PYTHON_ENV_MARKER, RiggingError, ensurePythonEnv } from '@marin/rigging';
import type { PythonEnv } from '@marin/rigging';

// Real uv against PyPI: one small pure-Python package pinned exactly.
const SIX_LOCK = 'six==1.17.0\n';
const BUILDER = fileURLToPath(new URL('../helpers/python-env-builder.ts', import.meta.url));

let dir: string;
let cacheDir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rigging-pyenv-'));
  cacheDir = join(dir, 'cache');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function lockFile(name: string, content: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

/** Environment directories in the cache (no leases, no staging leftovers). */
async function envDirs(): Promise<string[]> {
  return (await readdir(cacheDir)).filter((n) => !n.endsWith('.lock') && !n.includes('.tmp-')).sort();
}

function sixVersion(env: PythonEnv): string {
  return execFileSync(env.python, ['-c', 'import six; print(six.__version__)'], { encoding: 'utf8' }).trim();
}

type BuilderReport = PythonEnv & { lines: string[] };

function runBuilder(lockPath: string, startAt: number): Promise<BuilderReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=@marin/source', '--import', 'tsx', BUILDER, lockPath, cacheDir, String(startAt)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.trim()) as BuilderReport) : reject(new Error(`builder exited ${code}: ${err}`))));
  });
}

describe('ensurePythonEnv() with real uv', () => {
  it('builds a lock once, then reuses it; the environment imports the pinned package', async () => {
    const lockPath = await lockFile('requirements.lock', SIX_LOCK);
    const lines: string[] = [];
    const first = await ensurePythonEnv({ lockPath, cacheDir, log: (l) => lines.push(l) });
    expect(first).toMatchObject({ built: true, dir: join(cacheDir, `py3.11-${first.key}`), python: join(first.dir, 'bin', 'python') });
    expect(sixVersion(first)).toBe('1.17.0');
    expect(lines.length).toBeGreaterThan(0);
    expect(JSON.parse(await readFile(join(first.dir, PYTHON_ENV_MARKER), 'utf8'))).toMatchObject({ key: first.key, python_version: '3.11' });
    expect(await readFile(join(first.dir, PYTHON_ENV_LOCK_FILE), 'utf8')).toBe(SIX_LOCK);

    const again: string[] = [];
    const second = await ensurePythonEnv({ lockPath, cacheDir, log: (l) => again.push(l) });
    expect(second).toEqual({ ...first, built: false });
    expect(again).toEqual([]);
    // The same content given inline is the same environment.
    expect(await ensurePythonEnv({ lock: SIX_LOCK, cacheDir })).toEqual({ ...first, built: false });
    expect(await envDirs()).toEqual([`py3.11-${first.key}`]);
  });

  it('gives a changed lock a new key and a new environment', async () => {
    const a = await ensurePythonEnv({ lock: SIX_LOCK, cacheDir });
    const b = await ensurePythonEnv({ lock: `# pinned for the test\n${SIX_LOCK}`, cacheDir });
    expect(b.key).not.toBe(a.key);
    expect(b.built).toBe(true);
    expect(await envDirs()).toEqual([`py3.11-${a.key}`, `py3.11-${b.key}`].sort());
  });

  it('shares one build between concurrent callers of one process', async () => {
    const [a, b] = await Promise.all([ensurePythonEnv({ lock: SIX_LOCK, cacheDir }), ensurePythonEnv({ lock: SIX_LOCK, cacheDir })]);
    expect([a.built, b.built].sort()).toEqual([false, true]);
    expect(a.dir).toBe(b.dir);
    expect(await envDirs()).toHaveLength(1);
  });

  it('builds once when two processes ask for the same lock at the same instant', async () => {
    const lockPath = await lockFile('requirements.lock', SIX_LOCK);
    const startAt = Date.now() + 4000;
    const reports = await Promise.all([runBuilder(lockPath, startAt), runBuilder(lockPath, startAt)]);
    expect(reports.map((r) => r.built).sort()).toEqual([false, true]);
    expect(reports[0]?.dir).toBe(reports[1]?.dir);
    const builder = reports.find((r) => r.built) as BuilderReport;
    const other = reports.find((r) => !r.built) as BuilderReport;
    expect(builder.lines.filter((l) => l.startsWith('building Python'))).toHaveLength(1);
    expect(other.lines.filter((l) => l.startsWith('building Python'))).toHaveLength(0);
    expect(await envDirs()).toHaveLength(1);
    expect(sixVersion(builder)).toBe('1.17.0');
  });

  it('fails a lock naming a version that does not exist with RIGGING_ENV_BUILD_FAILED and leaves nothing behind', async () => {
    const lines: string[] = [];
    const err = await ensurePythonEnv({ lock: 'six==99.0.0\n', cacheDir, log: (l) => lines.push(l) }).catch((e: unknown) => e);
    expect(RiggingError.hasCode(err, 'RIGGING_ENV_BUILD_FAILED')).toBe(true);
    const details = (err as RiggingError).details as { errorText: string; output: string[]; exitCode: number };
    expect(details.exitCode).not.toBe(0);
    expect(details.errorText).toContain('six==99.0.0');
    expect((err as Error).message.endsWith(details.errorText)).toBe(true);
    expect(lines).toEqual(expect.arrayContaining(details.output));
    expect(await envDirs()).toEqual([]);
    // The lease was released: a later caller is not made to wait.
    expect((await readdir(cacheDir)).filter((n) => n.endsWith('.lock'))).toEqual([]);
  });
});
