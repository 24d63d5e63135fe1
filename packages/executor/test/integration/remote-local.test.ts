import { readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { runFixture, startFixture } from '../helpers/fixture-process.js';
import { listTree } from '../helpers/read-files.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { isProcessAlive } from '@marin/rigging';

const FIXTURE = 'remote-steps.ts';

async function json(path: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
}

async function stepDirs(prefix: string): Promise<{ data: string; work: string; report: string }> {
  const names = await readdir(join(prefix, 'remote'));
  const dir = (step: string): string => join(prefix, 'remote', names.find((n) => n.startsWith(`${step}-`))!);
  return { data: dir('data'), work: dir('work'), report: dir('report') };
}

/** Runs the whole fixture in-process under `input` and returns its step directories (hashes do not depend on the prefix). */
async function completedRun(input: string): Promise<{ data: string; work: string; report: string }> {
  const r = await runFixture(FIXTURE, { args: ['--prefix', input] });
  expect(r.code, r.stderr).toBe(0);
  return stepDirs(input);
}

describe('executorMain worker mode (--run-step)', () => {
  it('runs only the named step with the JSON config and writes no status, lease, info or experiment file', async () => {
    await using tmp = await makeTempDir();
    const prefix = join(tmp.path, 'prefix');
    const input = await completedRun(join(tmp.path, 'input'));
    const dataPath = input.data;
    const workPath = join(prefix, 'remote', basename(input.work));
    const configFile = join(tmp.path, 'step_config.json');
    await writeFile(configFile, `{"input_path": ${JSON.stringify(dataPath)}, "scale": 2.0, "label": "from-submitter"}`);

    const r = await runFixture(FIXTURE, { args: ['--prefix', prefix, '--run-step', workPath, '--step-config-file', configFile] });
    expect(r.code, r.stderr).toBe(0);
    const out = await json(join(workPath, 'task-0.json'));
    expect(out['config']).toEqual({ input_path: dataPath, scale: 2, label: 'from-submitter' });
    expect(out['scaled']).toEqual([0, 2, 4]);
    // Only the step's own output: no other step ran, and nothing of the executor's was written.
    expect(await listTree(prefix)).toEqual(['remote', `remote/${basename(workPath)}`, `remote/${basename(workPath)}/task-0.json`]);
  });

  it('exits 1 with "not found in the rebuilt DAG" for an output path the DAG does not have', async () => {
    await using tmp = await makeTempDir();
    const prefix = join(tmp.path, 'prefix');
    const configFile = join(tmp.path, 'step_config.json');
    await writeFile(configFile, '{}');
    const missing = join(prefix, 'remote', 'work-000000');
    const r = await runFixture(FIXTURE, { args: ['--prefix', prefix, '--run-step', missing, '--step-config-file', configFile] });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`step ${missing} not found in the rebuilt DAG`);
    expect(await listTree(tmp.path)).toEqual(['step_config.json']);
  });

  it('exits 1 when the step function throws, printing the error', async () => {
    await using tmp = await makeTempDir();
    const prefix = join(tmp.path, 'prefix');
    const workPath = join(prefix, 'remote', basename((await completedRun(join(tmp.path, 'input'))).work));
    const configFile = join(tmp.path, 'step_config.json');
    await writeFile(configFile, '{"input_path": "/nowhere", "scale": 1.0, "label": "x"}');
    const r = await runFixture(FIXTURE, { args: ['--prefix', prefix, '--run-step', workPath, '--step-config-file', configFile, '--fixture-fail'] });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('remote work exploded');
  });
});

describe('a remote step on the local backend in re-entry mode', () => {
  it('runs the step as a subprocess of the re-entered entry script and succeeds; a second run skips all steps', async () => {
    await using tmp = await makeTempDir();
    const prefix = join(tmp.path, 'prefix');
    const first = await runFixture(FIXTURE, { args: ['--prefix', prefix, '--fixture-client', 'local-reentry', '--verbose'] });
    expect(first.code, first.stderr).toBe(0);
    const executorPid = Number(/executor pid=(\d+)/.exec(first.stdout)![1]);
    const dirs = await stepDirs(prefix);
    for (const d of Object.values(dirs)) expect(await readFile(join(d, '.executor_status'), 'utf8')).toBe('SUCCESS');
    expect((await json(join(dirs.data, 'task-0.json')))['pid']).toBe(executorPid);
    expect((await json(join(dirs.report, 'task-0.json')))['pid']).toBe(executorPid);
    const work = await json(join(dirs.work, 'task-0.json'));
    expect(work['pid']).not.toBe(executorPid);
    // The shipped config kept scale a float and resolved input_path to the data step's output.
    expect(work['config']).toEqual({ input_path: dirs.data, scale: 2, label: 'unversioned' });
    expect(work['scaled']).toEqual([0, 2, 4]);
    expect(first.stderr).toMatch(/submitted as Fray job local-remote-work-[0-9a-f]{6}-[0-9a-f]{8}-[0-9a-f]{8}/);

    const second = await runFixture(FIXTURE, { args: ['--prefix', prefix, '--fixture-client', 'local-reentry', '--verbose'] });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('3 steps: 0 ran, 3 skipped (already succeeded), 0 failed, 0 not run (dependency failed)');
    expect(second.stderr).not.toContain('submitted as Fray job');
  });

  it('an interrupted executor terminates its running job, writes FAILED and releases the lease, then exits 143', async () => {
    await using tmp = await makeTempDir();
    const prefix = join(tmp.path, 'prefix');
    await using executor = startFixture(FIXTURE, { args: ['--prefix', prefix, '--fixture-client', 'local-reentry', '--fixture-hang'] });
    let workerPid = 0;
    for (let i = 0; i < 600 && workerPid === 0; i++) {
      await sleep(100);
      const work = await stepDirs(prefix).catch(() => null);
      const task = work === null ? null : await json(join(work.work, 'task-0.json')).catch(() => null);
      if (task?.['hanging'] === true) workerPid = task['pid'] as number;
    }
    expect(workerPid).toBeGreaterThan(0);
    expect(isProcessAlive(workerPid)).toBe(true);
    executor.child.kill('SIGTERM');
    const exit = await executor.exited;
    expect(exit, executor.stderr()).toEqual({ code: 143, signal: null });
    expect(executor.stderr()).toMatch(/^interrupted by SIGTERM: remote\/work-[0-9a-f]{6} marked FAILED/m);
    expect(isProcessAlive(workerPid)).toBe(false);
    // The run settled before the process died: the stopped step is FAILED and its lease released.
    const work = (await stepDirs(prefix)).work;
    expect(await readFile(join(work, '.executor_status'), 'utf8')).toBe('FAILED');
    expect(await readdir(work)).not.toContain('.executor_status.lock');
  });

  it('fails a throwing remote step: FAILED status, one FAILED line with the worker’s error text and the job logs', async () => {
    await using tmp = await makeTempDir();
    const prefix = join(tmp.path, 'prefix');
    const r = await runFixture(FIXTURE, { args: ['--prefix', prefix, '--fixture-client', 'local-reentry', '--fixture-fail'] });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^FAILED remote\/work-[0-9a-f]{6}: .*remote work exploded.*$/m);
    expect(r.stderr).toMatch(/^ {2}logs: iris job logs \S+/m);
    const dirs = await stepDirs(prefix);
    expect(await readFile(join(dirs.work, '.executor_status'), 'utf8')).toBe('FAILED');
    expect(await readdir(dirs.report)).toEqual(['.executor_info']);
  });
});
