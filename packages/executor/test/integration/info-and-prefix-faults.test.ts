import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFixture, startFixture } from '../helpers/fixture-process.js';
import { infoOf } from '../helpers/read-files.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const lease = { MARIN_LEASE_HEARTBEAT_S: '0.5', MARIN_LEASE_TIMEOUT_S: '30', MARIN_LEASE_POLL_S: '0.2' };

async function raceDir(prefix: string): Promise<string> {
  const entries = await readdir(join(prefix, 'race'));
  return join(prefix, 'race', entries.find((e) => e.startsWith('a-'))!);
}

describe('.executor_info always describes the run that wrote SUCCESS', () => {
  it('keeps the runner’s info when a second executor with another unversioned config waits on the same step', async () => {
    await using tmp = await makeTempDir();
    await using first = startFixture('unversioned-step.ts', { args: ['--prefix', tmp.path], env: { ...lease, NOTE: 'first', STEP_SLEEP_MS: '2500' } });
    await first.waitForStdout('STEP-STARTED');
    const second = await runFixture('unversioned-step.ts', { args: ['--prefix', tmp.path], env: { ...lease, NOTE: 'second' } });
    expect(second.code, second.stderr).toBe(0);
    expect((await first.exited).code, first.stderr()).toBe(0);

    const dir = await raceDir(tmp.path);
    expect(await readFile(join(dir, 'note.txt'), 'utf8')).toBe('first');
    expect((await infoOf(dir))['config']).toEqual({ note: 'first' });

    // A later run with yet another value reuses the output and leaves its info alone.
    const third = await runFixture('unversioned-step.ts', { args: ['--prefix', tmp.path], env: { ...lease, NOTE: 'third' } });
    expect(third.code, third.stderr).toBe(0);
    expect((await infoOf(dir))['config']).toEqual({ note: 'first' });
  });
});

describe('prefixes that cannot be written', () => {
  it('re-runs a fully succeeded prefix read-only, rewriting nothing', async () => {
    await using tmp = await makeTempDir();
    const built = await runFixture('two-steps.ts', { args: ['--prefix', tmp.path] });
    expect(built.code, built.stderr).toBe(0);
    const info = join(tmp.path, 'cli', (await readdir(join(tmp.path, 'cli'))).find((e) => e.startsWith('b-'))!, '.executor_info');
    const before = (await stat(info)).mtimeMs;

    const r = await runFixture('two-steps.ts', { args: ['--prefix', tmp.path, '--progress', 'plain'], readOnlyDirs: [tmp.path] });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('2 steps: 0 ran, 2 skipped (already succeeded)');
    expect((await stat(info)).mtimeMs).toBe(before);
  });

  it('reports a new step on a read-only prefix as RIGGING_PERMISSION_DENIED in one line, exit 1, no stack', async () => {
    await using tmp = await makeTempDir();
    const r = await runFixture('two-steps.ts', { args: ['--prefix', tmp.path], readOnlyDirs: [tmp.path] });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: .*read-only file system \(EROFS\) \[RIGGING_PERMISSION_DENIED\]$/m);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(await readdir(tmp.path)).toEqual([]);
  });

  it('reports a prefix below a file (ENOTDIR) as RIGGING_INVALID_ARGUMENT in one line, exit 1, no stack', async () => {
    await using tmp = await makeTempDir();
    const file = join(tmp.path, 'not-a-dir');
    await writeFile(file, 'x');
    const r = await runFixture('two-steps.ts', { args: ['--prefix', join(file, 'prefix')] });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: .*not a directory \(ENOTDIR\) \[RIGGING_INVALID_ARGUMENT\]$/m);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});
