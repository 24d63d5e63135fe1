import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFixture, startFixture } from '../helpers/fixture-process.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const FIXTURE = 'unversioned-step.ts';

async function stepDir(prefix: string): Promise<string> {
  const names = await readdir(join(prefix, 'race'));
  return join(prefix, 'race', names.find((n) => n.startsWith('a-'))!);
}

describe('interrupting an executor', () => {
  const cases = [
    { signal: 'SIGINT', code: 130, ignores: false },
    { signal: 'SIGTERM', code: 143, ignores: true },
  ] as const;
  for (const { signal, code, ignores } of cases) {
    it(`${signal} ${ignores ? '(a step that ignores its AbortSignal) ' : ''}marks the running step FAILED, releases its lease, prints one line and exits ${code}; a rerun starts at once`, async () => {
      await using tmp = await makeTempDir();
      const prefix = join(tmp.path, 'prefix');
      await using run = startFixture(FIXTURE, {
        args: ['--prefix', prefix],
        env: { STEP_SLEEP_MS: '600000', STEP_IGNORES_SIGNAL: ignores ? '1' : '0' },
      });
      await run.waitForStdout('STEP-STARTED');
      run.child.kill(signal);
      expect(await run.exited, run.stderr()).toEqual({ code, signal: null });
      const lines = run.stderr().split('\n').filter((l) => l.startsWith('interrupted'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^interrupted by ${signal}: race/a-[0-9a-f]{6} marked FAILED`));
      const dir = await stepDir(prefix);
      expect(await readFile(join(dir, '.executor_status'), 'utf8')).toBe('FAILED');
      expect(await readdir(dir)).not.toContain('.executor_status.lock');

      // No lease to wait out: the rerun takes the step at once because the last run failed.
      const rerun = await runFixture(FIXTURE, { args: ['--prefix', prefix], env: { STEP_SLEEP_MS: '0' } });
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(rerun.stderr).toMatch(/^▶ race\/a-[0-9a-f]{6} started: previous run failed$/m);
      expect(rerun.stderr).not.toContain('waiting');
      expect(await readFile(join(dir, '.executor_status'), 'utf8')).toBe('SUCCESS');
    });
  }
});
