import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLocalClient } from '@marin/fray';
import { ArtifactStep, defineArtifactType, remote, runArtifacts } from '@marin/executor';
import { z } from 'zod';
import { captureLogger } from '../helpers/capture-logger.js';
import { runFixture } from '../helpers/fixture-process.js';
import { statusOf } from '../helpers/read-files.js';
import { makeTempDir } from '../helpers/temp-dir.js';

async function json(path: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
}

const Sum = defineArtifactType('fixture.Sum', z.object({ sum: z.number() }));

describe('remote artifact bodies on the local Fray backend', () => {
  it('runs a remote() body as a Fray job in this process, records its value, and a rerun submits nothing', async () => {
    await using tmp = await makeTempDir('artifact-remote');
    await using client = createLocalClient();
    const calls: number[] = [];
    const step = () =>
      new ArtifactStep({
        name: 'remote_unit/sum',
        version: '2026.11.25',
        artifactType: Sum,
        buildConfig: () => ({ xs: [1, 2, 3] }),
        run: remote(function sumUp(c: { xs: number[] }) {
          calls.push(process.pid);
          return { sum: c.xs.reduce((a, b) => a + b, 0) };
        }),
      });
    const logger = captureLogger();
    const [loaded] = await runArtifacts([step()], { prefix: tmp.path, client, logger });
    expect(loaded).toMatchObject({ sum: 6, record: { result: { sum: 6 }, result_type: 'fixture.Sum' } });
    expect(calls).toEqual([process.pid]);
    const jobId = /submitted as Fray job (\S+)/.exec(logger.all())?.[1];
    expect(jobId).toBeDefined();

    const again = captureLogger();
    const [reloaded] = await runArtifacts([step()], { prefix: tmp.path, client, logger: again });
    expect(reloaded).toMatchObject({ sum: 6 });
    expect(again.all()).not.toContain('submitted as Fray job');
    expect(calls).toHaveLength(1);
  });

  it('a failing remote body fails its job and the step (status FAILED, the job id in the error)', async () => {
    await using tmp = await makeTempDir('artifact-remote-fail');
    await using client = createLocalClient();
    const step = new ArtifactStep({
      name: 'remote_unit/boom',
      version: '2026.11.25',
      buildConfig: () => ({}),
      run: remote(function boom() {
        throw new Error('remote boom');
      }),
    });
    const err = await runArtifacts([step], { prefix: tmp.path, client, logger: captureLogger() }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'EXECUTOR_STEP_FAILED' });
    const chain: { code?: string; message?: string; details?: Record<string, unknown> }[] = [];
    for (let c = err as { cause?: unknown } | undefined; c !== undefined && c !== null && chain.length < 10; c = c.cause as { cause?: unknown } | undefined) chain.push(c as never);
    const jobFailure = chain.find((c) => c.details?.['jobId'] !== undefined);
    expect(jobFailure).toMatchObject({ code: 'EXECUTOR_STEP_FAILED', details: { step: 'remote_unit/boom@2026.11.25', status: 'failed' } });
    expect(chain.some((c) => c.code === 'FRAY_JOB_FAILED' || String(c.message).includes('remote boom'))).toBe(true);
    expect(await statusOf(join(tmp.path, 'remote_unit/boom/2026.11.25'))).toBe('FAILED');
  });

  it('re-enters artifactMain in a subprocess (local backend, reentry callables): the body runs there, the runner records its value', async () => {
    await using tmp = await makeTempDir('artifact-remote-reentry');
    const prefix = join(tmp.path, 'prefix');
    const args = ['--version', '2026.11.25', '--run', '--prefix', prefix, '--fixture-client', 'local-reentry'];
    const first = await runFixture('artifact-remote.ts', { args });
    expect(first.code, first.stderr).toBe(0);
    const runnerPid = Number(/runner pid=(\d+)/.exec(first.stdout)![1]);
    const score = join(prefix, 'remote_art/score/2026.11.25');
    const data = join(prefix, 'remote_art/data/2026.11.25');
    expect((await json(join(data, 'body.json')))['pid']).toBe(runnerPid);
    const workerPid = (await json(join(score, 'body.json')))['pid'];
    expect(workerPid).not.toBe(runnerPid);
    const record = await json(join(score, '.artifact.json'));
    expect(record).toMatchObject({ name: 'remote_art/score', result_type: 'fixture.Score', result: { total: 6, pid: workerPid } });
    expect(await statusOf(score)).toBe('SUCCESS');

    const second = await runFixture('artifact-remote.ts', { args });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain('submitted as Fray job');
  });
});
