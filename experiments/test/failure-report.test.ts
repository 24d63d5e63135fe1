import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXPERIMENTS_DIR, IRIS_CLI, NODE_FLAGS, REPO_ROOT, runNode } from './helpers/run-process.js';

const SCRIPT = join(EXPERIMENTS_DIR, 'test', 'fixtures', 'failing_step.js');

describe('a failed step, as a person sees it', () => {
  let prefix = '';
  let home = '';
  beforeEach(async () => {
    prefix = await mkdtemp(join(tmpdir(), 'failure-report-'));
    home = await mkdtemp(join(tmpdir(), 'failure-report-iris-'));
  });
  afterEach(async () => {
    await rm(prefix, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  });

  it('ends with one block: the cause and its code, the line of the experiment that failed, the log file, a hint', async () => {
    const r = await runNode([SCRIPT, '--prefix', prefix]);
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n');
    const at = lines.findIndex((l) => l.startsWith('FAILED '));
    expect(lines.slice(at, at + 4)).toEqual([
      expect.stringMatching(/^FAILED failing\/stats-[0-9a-f]{6}: ENOENT: no such file or directory, open '.+numbers\.json' \[ENOENT\]$/),
      expect.stringMatching(new RegExp(`^  at ${SCRIPT.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:14:\\d+$`)),
      expect.stringMatching(/^ {2}full error: \S+\.log$/),
      '  hint: a path the step reads does not exist; check the step that should have written it',
    ]);
    expect(lines.filter((l) => l.startsWith('FAILED '))).toHaveLength(1);
  });

  it('`iris job run` reports the failed job with that cause, not only its exit code', async () => {
    const script = SCRIPT.slice(REPO_ROOT.length + 1);
    const r = await runNode([IRIS_CLI, 'job', 'run', '--', 'node', ...NODE_FLAGS, script, '--prefix', prefix], { cwd: REPO_ROOT, env: { IRIS_HOME: home } });
    expect(r.code).not.toBe(0);
    expect(`${r.stdout}\n${r.stderr}`).toMatch(/FAILED: .*Exit code 1: FAILED failing\/stats-[0-9a-f]{6}: ENOENT: no such file or directory/);
  });
});
