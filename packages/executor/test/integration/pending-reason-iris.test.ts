// A step whose job no worker can place, on a real embedded Iris cluster: the executor logs why it waits.
import { join } from 'node:path';
import { ResourceConfig, createIrisBackend, findWorkspaceRoot } from '@marin/fray';
import { pollUntil } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { DispatchStepRunner, Executor, ExecutorStep, FrayStepRunner } from '@marin/executor';
import { captureLogger } from '../helpers/capture-logger.js';
import { useEmbeddedCluster } from '../helpers/embedded-cluster.js';
import { statusOf } from '../helpers/read-files.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { FIXTURE_SCRIPT } from '../fixtures/remote-steps.js';

// CPU workers only: no TPU of any variant.
const embedded = useEmbeddedCluster({ workers: 1, cpuMillicores: 4000, termTimeoutMs: 1000 });

const WORKSPACE = findWorkspaceRoot();
const WAITING_LINE = /^step (\S+) waiting: (.+)$/;

describe('a step whose job cannot be placed on Iris', () => {
  it('logs the controller\'s pending reason once per distinct reason, then stops cleanly when its job is terminated', async () => {
    await using tmp = await makeTempDir();
    const prefix = join(tmp.path, 'prefix');
    const train = new ExecutorStep({
      name: 'train',
      config: {},
      resources: ResourceConfig.withTpu('v5litepod-8', { cpu: 1, ram: '256m', disk: '1g' }),
      fn: async () => undefined,
    });
    await using backend = createIrisBackend({ irisClient: embedded.client, inPlace: true, workspace: WORKSPACE });
    const logger = captureLogger();
    // The job never starts, so the re-entry target only has to name an existing script and this step.
    const fray = new FrayStepRunner({
      client: backend,
      logger,
      reentry: { entryScript: FIXTURE_SCRIPT, userArgs: [], execArgv: [], steps: [train] },
      workspace: WORKSPACE,
    });
    const ex = new Executor({ prefix, logger, runner: new DispatchStepRunner({ fray }), progressStream: { write: () => true } });
    const run = ex.run([train], { progress: 'plain' }).catch((e: unknown) => e);

    const waiting = (): RegExpExecArray[] => logger.infos.map((l) => WAITING_LINE.exec(l)).filter((m) => m !== null);
    expect(await pollUntil(() => waiting().length > 0, { timeoutMs: 30_000, interval: 50 })).toBe(true);
    const submitted = /^Step (\S+) submitted as Fray job (\S+)$/.exec(logger.infos.find((l) => l.includes('submitted as Fray job')) ?? '');
    expect(submitted).not.toBeNull();
    const [, label, jobId] = submitted!;
    expect(label).toMatch(/^train-[0-9a-f]+$/);
    expect((await embedded.client.getJob(jobId!)).state).toBe('PENDING');
    const first = waiting()[0]!;
    expect(first[1]).toBe(label);
    expect(first[2]!.trim()).not.toBe('');

    // Several polls later, an unchanged reason has not been logged again.
    await new Promise((r) => setTimeout(r, 2500));
    const reasons = waiting().map((m) => m[2]);
    for (let i = 1; i < reasons.length; i++) expect(reasons[i]).not.toBe(reasons[i - 1]);

    await fray.terminateActiveJobs(logger);
    const err = await run;
    expect(err).toMatchObject({ code: 'EXECUTOR_STEP_FAILED' });
    expect((err as { details: { failures: { details: Record<string, unknown> }[] } }).details.failures[0]!.details).toMatchObject({
      step: label,
      jobId,
      status: 'stopped',
    });
    expect((await embedded.client.getJob(jobId!)).state).toBe('KILLED');
    expect(await statusOf(join(prefix, label!))).toBe('FAILED');
    expect(fray.activeJobs).toEqual([]);
  });
});
