import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFixture } from '../helpers/fixture-process.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const FIXTURE = 'unversioned-step.ts';

async function stepDir(prefix: string): Promise<string> {
  const names = await readdir(join(prefix, 'race'));
  return join(prefix, 'race', names.find((n) => n.startsWith('a-'))!);
}

describe('unversioned config changes and --force-run', () => {
  it('says when a reused output was made with other unversioned values, and --force-run replaces it at the same path', async () => {
    await using tmp = await makeTempDir();
    const prefix = join(tmp.path, 'prefix');
    const first = await runFixture(FIXTURE, { args: ['--prefix', prefix], env: { NOTE: 'old' } });
    expect(first.code, first.stderr).toBe(0);
    const dir = await stepDir(prefix);
    await writeFile(join(dir, 'stale.txt'), 'left by the old run');

    // Same version (NOTE is unversioned), so the output is reused, but the run says so, once.
    const changed = await runFixture(FIXTURE, { args: ['--prefix', prefix], env: { NOTE: 'new' } });
    expect(changed.code, changed.stderr).toBe(0);
    const warnings = changed.stderr.split('\n').filter((l) => l.includes('unversioned config changed'));
    expect(warnings).toEqual([expect.stringMatching(/race\/a-[0-9a-f]{6} reused although its unversioned config changed \(note "old"→"new"\); rerun it with --force-run "\^race\/a\$"/)]);
    expect(await readFile(join(dir, 'note.txt'), 'utf8')).toBe('old');

    const dry = await runFixture(FIXTURE, { args: ['--prefix', prefix, '--dry-run', '--json'], env: { NOTE: 'new' } });
    const plan = (JSON.parse(dry.stdout) as { plan: { action: string; reason: string }[] }).plan;
    expect(plan).toEqual([expect.objectContaining({ action: 'skip', reason: 'already succeeded, although its unversioned config changed: note "old"→"new"' })]);

    const forced = await runFixture(FIXTURE, { args: ['--prefix', prefix, '--force-run', '^race/a$'], env: { NOTE: 'new' } });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toMatch(/^▶ race\/a-[0-9a-f]{6} started: forced \(--force-run\)$/m);
    expect(await stepDir(prefix)).toBe(dir);
    expect(await readFile(join(dir, 'note.txt'), 'utf8')).toBe('new');
    expect(await readFile(join(dir, '.executor_status'), 'utf8')).toBe('SUCCESS');
    // The old output was replaced, not merged into; the info now records the new value.
    expect((await readdir(dir)).sort()).toEqual(['.executor_info', '.executor_status', 'note.txt']);
    expect(JSON.parse(await readFile(join(dir, '.executor_info'), 'utf8'))).toMatchObject({ config: { note: 'new' } });

    const again = await runFixture(FIXTURE, { args: ['--prefix', prefix], env: { NOTE: 'new' } });
    expect(again.stderr).not.toContain('unversioned config changed');
  });

  it('refuses a --force-run pattern that matches no step, as typed, with exit 2', async () => {
    await using tmp = await makeTempDir();
    const r = await runFixture(FIXTURE, { args: ['--prefix', tmp.path, '--force-run', 'race/b'] });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--force-run "race/b" matched no step; did you mean race/a?');
    expect(await readdir(tmp.path)).toEqual([]);
  });
});
