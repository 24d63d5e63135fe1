import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useEmbeddedCluster } from '../helpers/embedded-cluster.js';
import { runFixture } from '../helpers/fixture-process.js';
import { statusOf } from '../helpers/read-files.js';
import { makeTempDir } from '../helpers/temp-dir.js';

// A real local Iris cluster (controller, SQLite, worker daemons) for the file; jobs run in place in the workspace.
const embedded = useEmbeddedCluster({ workers: 1, cpuMillicores: 8_000, memoryBytes: 16 * 2 ** 30, termTimeoutMs: 1000 });

async function json(path: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
}

describe('remote artifact bodies on a local Iris cluster', () => {
  it('runs the remote() body as an Iris job (a re-entered worker task), records its value; a rerun submits nothing', { timeout: 180_000 }, async () => {
    await using tmp = await makeTempDir('artifact-remote-iris');
    const prefix = join(tmp.path, 'prefix');
    const env = { IRIS_CONTROLLER_ADDRESS: embedded.cluster.address };
    const args = ['--version', '2026.11.25', '--run', '--prefix', prefix, '--fixture-client', 'iris'];
    const first = await runFixture('artifact-remote.ts', { args, env });
    expect(first.code, first.stderr).toBe(0);
    const runnerPid = Number(/runner pid=(\d+)/.exec(first.stdout)![1]);
    const jobId = /submitted as Fray job (\S+)/.exec(first.stderr)?.[1];
    expect(jobId).toBeDefined();

    const score = join(prefix, 'remote_art/score/2026.11.25');
    const worker = await json(join(score, 'body.json'));
    expect(worker['pid']).not.toBe(runnerPid);
    expect(worker['task']).toEqual(expect.stringContaining(jobId!));
    expect(await json(join(score, '.artifact.json'))).toMatchObject({ name: 'remote_art/score', result: { total: 6, pid: worker['pid'] } });
    expect(await statusOf(score)).toBe('SUCCESS');
    const job = await embedded.client.getJob(jobId!);
    expect(job.state).toBe('SUCCEEDED');

    const second = await runFixture('artifact-remote.ts', { args, env });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain('submitted as Fray job');
  });

  it('a remote body that throws fails its Iris job; the artifact is FAILED and the run exits 1', { timeout: 180_000 }, async () => {
    await using tmp = await makeTempDir('artifact-remote-iris-fail');
    const prefix = join(tmp.path, 'prefix');
    const env = { IRIS_CONTROLLER_ADDRESS: embedded.cluster.address };
    const r = await runFixture('artifact-remote.ts', { args: ['--version', '2026.11.25', '--run', '--prefix', prefix, '--fixture-client', 'iris', '--fixture-fail'], env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('[EXECUTOR_STEP_FAILED]');
    expect(await statusOf(join(prefix, 'remote_art/score/2026.11.25'))).toBe('FAILED');
    expect(await statusOf(join(prefix, 'remote_art/data/2026.11.25'))).toBe('SUCCESS');
  });
});
