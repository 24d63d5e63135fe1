// Remote steps on a real local Ray head (packages/fray/python/ray.lock, one head for the file): the step job
// re-enters the fixture from the workspace through Ray's Jobs API while this executor holds the lease.
import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { createRayClient, findWorkspaceRoot, silentLogger } from '@marin/fray';
import { startRayHead } from '@marin/fray/testing';
import type { RayHead } from '@marin/fray/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DispatchStepRunner, Executor, FrayStepRunner } from '@marin/executor';
import { captureLogger } from '../helpers/capture-logger.js';
import { statusOf } from '../helpers/read-files.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { FIXTURE_SCRIPT, steps as fixtureSteps } from '../fixtures/remote-steps.js';

let head: RayHead | null = null;
beforeAll(async () => {
  head = await startRayHead({ numCpus: 2 });
}, 200_000); // the head may take up to 150 s under a full test run (startTimeoutMs)
afterAll(async () => {
  await head?.close();
}, 60_000);

const WORKSPACE = findWorkspaceRoot();
const NODE_FLAGS = ['--conditions=@marin/source', '--import', 'tsx'];

async function stepDir(prefix: string, step: string): Promise<string> {
  const names = await readdir(join(prefix, 'remote'));
  return join(prefix, 'remote', names.find((n) => n.startsWith(`${step}-`))!);
}

function chain(e: unknown): unknown[] {
  const out: unknown[] = [];
  for (let c = e; c !== undefined && c !== null && out.length < 10; c = (c as { cause?: unknown }).cause) out.push(c);
  return out;
}

describe('remote steps on a local Ray cluster', () => {
  it('fails a throwing remote step: the Ray job fails and its Ray logs reach the step error; the executor writes FAILED', async () => {
    await using tmp = await makeTempDir();
    const prefix = join(tmp.path, 'prefix');
    await using ray = createRayClient({ address: head!.address, workspace: WORKSPACE, logger: silentLogger });
    const logger = captureLogger();
    const runner = new DispatchStepRunner({
      fray: new FrayStepRunner({
        client: ray,
        logger,
        reentry: { entryScript: FIXTURE_SCRIPT, userArgs: ['--fixture-fail'], execArgv: NODE_FLAGS, steps: fixtureSteps },
        workspace: WORKSPACE,
      }),
    });
    const ex = new Executor({ prefix, logger, runner, progressStream: { write: () => true } });
    const err = await ex.run(fixtureSteps, { progress: 'plain' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'EXECUTOR_STEP_FAILED' });
    const stepError = (err as { details: { failures: { details: Record<string, unknown> }[] } }).details.failures[0]!;
    const workLabel = basename(await stepDir(prefix, 'work'));
    expect(stepError).toMatchObject({ code: 'EXECUTOR_STEP_FAILED', details: { step: `remote/${workLabel}`, status: 'failed' } });
    const jobId = stepError.details['jobId'] as string;
    expect(await ray.handle(jobId).info()).toMatchObject({ state: 'FAILED', exitCode: 1 });
    // The Ray job's own log lines (its failure message and the step's error) travel in the step error.
    expect((stepError.details['logTail'] as string[]).some((l) => l.includes('remote work exploded'))).toBe(true);
    expect(chain(err)).toContainEqual(expect.objectContaining({ code: 'FRAY_JOB_FAILED', jobId }));
    expect(await statusOf(await stepDir(prefix, 'work'))).toBe('FAILED');
    expect(await statusOf(await stepDir(prefix, 'data'))).toBe('SUCCESS');
  });
});
