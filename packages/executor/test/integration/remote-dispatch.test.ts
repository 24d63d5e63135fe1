import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ResourceConfig, createIrisBackend, currentClient, sanitizeJobName, withClient } from '@marin/fray';
import type { BinaryEntrypoint, CallableEntrypoint, Client, JobRequest } from '@marin/fray';
import { createRecordingClient } from '@marin/fray/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { Executor, ExecutorStep, FrayStepRunner, DispatchStepRunner, RemoteCallable, executorMain, float, remote, versioned } from '@marin/executor';
import type { StepContext } from '@marin/executor';
import { captureLogger } from '../helpers/capture-logger.js';
import { listTree, statusOf } from '../helpers/read-files.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const plain = { progress: 'plain' as const };
const silent = { info: () => {}, warn: () => {} };

function executor(prefix: string, runner?: DispatchStepRunner): Executor {
  return new Executor({ prefix, logger: captureLogger(), progressStream: { write: () => true }, ...(runner ? { runner } : {}) });
}

/** Walks an error's cause chain. */
function chain(e: unknown): unknown[] {
  const out: unknown[] = [];
  for (let c = e; c !== undefined && c !== null && out.length < 10; c = (c as { cause?: unknown }).cause) out.push(c);
  return out;
}

describe('remote steps through the default runner (recording client, in-process jobs)', () => {
  it('submits exactly one Fray job with the step’s resources; the step runs in the job and succeeds', async () => {
    await using tmp = await makeTempDir();
    await using client = createRecordingClient({ logger: silent });
    const resources = ResourceConfig.withCpu({ cpu: 4, ram: '8g' });
    let seen: { config: unknown; ctx: StepContext; client: Client } | undefined;
    const step = new ExecutorStep({
      name: 'train',
      config: { lr: versioned(0.5), note: 'x' },
      resources,
      fn: (config, ctx) => {
        seen = { config, ctx, client: currentClient() };
      },
    });
    const ex = executor(tmp.path);
    const paths = await withClient(client, () => ex.run([step], plain));
    expect(client.submissions).toHaveLength(1);
    expect(client.submissions[0]!.resources).toBe(resources);
    expect(seen?.config).toEqual({ lr: 0.5, note: 'x' });
    expect(seen?.ctx.outputPath).toBe(paths.get(step));
    expect(seen?.client).toBe(client);
    expect(await statusOf(paths.get(step)!)).toBe('SUCCESS');
  });

  it('uses a remote() callable’s resources (withCpu() by default), env and groups; step resources win', async () => {
    await using tmp = await makeTempDir();
    await using client = createRecordingClient({ logger: silent });
    const calls: string[] = [];
    const byDefault = new ExecutorStep({ name: 'a', config: {}, fn: remote(() => void calls.push('a'), { envVars: { K: 'v' } }) });
    const gpu = ResourceConfig.withGpu('H100', { count: 2 });
    const custom = new ExecutorStep({ name: 'b', config: {}, fn: remote(() => void calls.push('b'), { resources: gpu, dependencyGroups: [] }) });
    const stepWins = ResourceConfig.withCpu({ cpu: 8 });
    const both = new ExecutorStep({ name: 'c', config: {}, fn: remote(() => void calls.push('c'), { resources: gpu }), resources: stepWins });
    const ex = executor(tmp.path);
    await withClient(client, () => ex.run([byDefault, custom, both], { ...plain, maxConcurrent: 1 }));
    expect(calls).toEqual(['a', 'b', 'c']);
    const byName = (prefix: string): JobRequest => client.submissions.find((r) => r.name.startsWith(`${prefix}-`))!;
    expect(client.submissions).toHaveLength(3);
    expect(byName('a').resources).toEqual(ResourceConfig.withCpu());
    expect(byName('a').environment?.envVars).toMatchObject({ K: 'v' });
    expect(byName('b').resources).toBe(gpu);
    expect(byName('b').environment?.dependencyGroups).toEqual([]);
    expect(byName('c').resources).toBe(stepWins);
  });

  it('runs a plain step inline with no submission', async () => {
    await using tmp = await makeTempDir();
    await using client = createRecordingClient({ logger: silent });
    let ran = 0;
    const step = new ExecutorStep({ name: 'inline', config: {}, fn: () => void ran++ });
    await withClient(client, () => executor(tmp.path).run([step], plain));
    expect(ran).toBe(1);
    expect(client.submissions).toHaveLength(0);
  });

  it('names jobs sanitize(`<label>-<8 hex>`): lower case, [a-z0-9_.-], trimmed of - and .', async () => {
    await using tmp = await makeTempDir();
    await using client = createRecordingClient({ logger: silent });
    const a = new ExecutorStep({ name: 'Tokenized/Fine Web!', config: {}, resources: ResourceConfig.withCpu(), fn: () => {} });
    const b = new ExecutorStep({ name: '..hidden step', config: {}, resources: ResourceConfig.withCpu(), fn: () => {} });
    const ex = executor(tmp.path);
    await withClient(client, () => ex.run([a, b], plain));
    const names = client.submissions.map((r) => r.name).sort();
    const hashA = ex.hashedVersions.get(a)!;
    const hashB = ex.hashedVersions.get(b)!;
    expect(names).toEqual([
      expect.stringMatching(new RegExp(`^hidden-step-${hashB}-[0-9a-f]{8}$`)),
      expect.stringMatching(new RegExp(`^tokenized-fine-web--${hashA}-[0-9a-f]{8}$`)),
    ]);
    for (const n of names) expect(n).toMatch(/^[a-z0-9_.-]+$/);
    // A label always carries its hash, so the empty-name fallback only shows for names made of nothing valid.
    expect(sanitizeJobName('///')).toBe('remote_job');
  });

  it('builds no re-entry outside executorMain: the local client runs the callable in-process', async () => {
    await using tmp = await makeTempDir();
    await using client = createRecordingClient({ logger: silent });
    const step = new ExecutorStep({ name: 'r', config: {}, resources: ResourceConfig.withCpu(), fn: () => {} });
    await withClient(client, () => executor(tmp.path).run([step], plain));
    expect((client.submissions[0]!.entrypoint as CallableEntrypoint).reentry).toBeUndefined();
  });
});

describe('the re-entry command of a remote step', () => {
  it('re-runs the entry script with its flags and args plus --prefix, --run-step <outputPath> and the shipped config (floats kept)', async () => {
    await using tmp = await makeTempDir();
    await using client = createRecordingClient({ logger: silent });
    const data = new ExecutorStep({ name: 'data', config: {}, fn: () => {} });
    const step = new ExecutorStep({
      name: 'work',
      config: { input_path: data.cd('x'), scale: versioned(float(2)), lr: 0.5 },
      resources: ResourceConfig.withCpu(),
      fn: () => {},
    });
    const script = new URL(import.meta.url).pathname;
    const runner = new DispatchStepRunner({
      fray: new FrayStepRunner({
        reentry: { entryScript: script, userArgs: ['--fixture-x', '--prefix', '/old'], execArgv: ['--conditions=@marin/source'], steps: [step] },
      }),
    });
    const ex = executor(tmp.path, runner);
    const paths = await withClient(client, () => ex.run([step], plain));
    const reentry = (client.submissions.find((r) => r.name.startsWith('work-'))!.entrypoint as CallableEntrypoint).reentry as BinaryEntrypoint;
    expect(reentry.command).toBe('node');
    expect(reentry.args).toEqual([
      '--conditions=@marin/source',
      './packages/executor/test/integration/remote-dispatch.test.ts',
      '--fixture-x',
      '--prefix',
      ex.prefix,
      '--run-step',
      paths.get(step),
      '--step-config-file',
      'step_config.json',
    ]);
    expect(reentry.files?.['step_config.json']).toBe(`{"input_path": "${paths.get(data)}/x", "scale": 2.0, "lr": 0.5}`);
  });
});

describe('remote step failures', () => {
  it('a throwing remote step fails its job: status FAILED, "1 step(s) failed" with the job id and the original error in the chain', async () => {
    await using tmp = await makeTempDir();
    await using client = createRecordingClient({ logger: silent });
    const boom = new Error('remote boom');
    const step = new ExecutorStep({
      name: 'bad',
      config: {},
      fn: remote(() => {
        throw boom;
      }),
    });
    const ex = executor(tmp.path);
    const err = await withClient(client, () => ex.run([step], plain)).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'EXECUTOR_STEP_FAILED', message: '1 step(s) failed' });
    const label = ex.label(step);
    const stepError = (err as { details: { failures: unknown[] } }).details.failures[0];
    expect(stepError).toMatchObject({
      code: 'EXECUTOR_STEP_FAILED',
      message: `Step failed: ${label}; status=failed`,
      details: { step: label, status: 'failed', jobId: client.handles[0]!.jobId },
    });
    expect((err as { cause: unknown }).cause).toBe(stepError);
    const causes = chain(err);
    expect(causes).toContainEqual(expect.objectContaining({ code: 'FRAY_JOB_FAILED', failedStatus: 'failed' }));
    expect(causes).toContain(boom);
    expect(await statusOf(ex.outputPaths.get(step)!)).toBe('FAILED');
  });

  describe('on lease loss', () => {
    const keys = ['MARIN_LEASE_HEARTBEAT_S', 'MARIN_LEASE_TIMEOUT_S', 'MARIN_LEASE_POLL_S'] as const;
    const saved = keys.map((k) => process.env[k]);
    afterEach(() => {
      keys.forEach((k, i) => {
        if (saved[i] === undefined) delete process.env[k];
        else process.env[k] = saved[i];
      });
    });

    it('terminates the job, fails with EXECUTOR_LEASE_LOST and writes neither SUCCESS nor FAILED', async () => {
      Object.assign(process.env, { MARIN_LEASE_HEARTBEAT_S: '0.1', MARIN_LEASE_TIMEOUT_S: '5', MARIN_LEASE_POLL_S: '0.1' });
      await using tmp = await makeTempDir();
      await using client = createRecordingClient({ logger: silent });
      let started!: () => void;
      const running = new Promise<void>((r) => (started = r));
      const step = new ExecutorStep({
        name: 'long',
        config: {},
        resources: ResourceConfig.withCpu(),
        fn: async (_c, ctx) => {
          started();
          // Runs until the job is terminated (its signal is not the lease's).
          await new Promise((r) => setTimeout(r, 30_000).unref());
          void ctx;
        },
      });
      const ex = executor(tmp.path);
      const run = withClient(client, () => ex.run([step], plain)).catch((e: unknown) => e);
      await running;
      const out = ex.outputPaths.get(step)!;
      await writeFile(join(out, '.executor_status.lock'), `{"worker_id": "thief-1", "timestamp": ${(Date.now() / 1000).toFixed(3)}}`);
      const err = await run;
      expect(chain(err)).toContainEqual(expect.objectContaining({ code: 'EXECUTOR_LEASE_LOST' }));
      expect(await client.handles[0]!.status()).toBe('stopped');
      expect(await statusOf(out)).toBe('RUNNING');
    });
  });
});

describe('bad remote input', () => {
  it('rejects an unknown TPU variant at step construction, with Fray’s error as the cause', () => {
    expect(() => ResourceConfig.withTpu('v9-nope')).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
    let err: unknown;
    try {
      new ExecutorStep({ name: 'tpu', config: {}, fn: () => {}, resources: { device: { kind: 'tpu', variant: 'v9-nope' } } });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'EXECUTOR_INVALID_ARGUMENT', details: { name: 'tpu', field: 'resources' }, cause: { code: 'FRAY_INVALID_ARGUMENT' } });
  });

  it('rejects withTpu alternatives of a different VM shape', () => {
    expect(() => ResourceConfig.withTpu(['v5litepod-16', 'v6e-8'])).toThrow(
      expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT', details: expect.objectContaining({ primary: 'v5litepod-16', alternative: 'v6e-8' }) }),
    );
    expect(() => ResourceConfig.withTpu(['v5litepod-16', 'v6e-16'])).not.toThrow();
    expect(
      () =>
        new ExecutorStep({
          name: 'tpu',
          config: {},
          fn: () => {},
          resources: { device: { kind: 'tpu', variant: 'v5litepod-16' }, deviceAlternatives: ['v6e-8'] },
        }),
    ).toThrow(expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT', details: expect.objectContaining({ field: 'resources', alternative: 'v6e-8' }) }));
  });

  it('rejects resources that are not a ResourceConfig or its options', () => {
    expect(() => new ExecutorStep({ name: 'x', config: {}, fn: () => {}, resources: 'v5litepod-16' as never })).toThrow(
      expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT', details: expect.objectContaining({ field: 'resources' }) }),
    );
  });

  it('fails the step at submission for an unknown explicit dependency group, leaving the job unsubmitted', async () => {
    await using tmp = await makeTempDir();
    await using client = createRecordingClient({ logger: silent });
    let ran = 0;
    const step = new ExecutorStep({ name: 'g', config: {}, fn: remote(() => void ran++, { dependencyGroups: ['no-such-group'] }) });
    const ex = executor(tmp.path);
    const err = await withClient(client, () => ex.run([step], plain)).catch((e: unknown) => e);
    expect(chain(err)).toContainEqual(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT', details: expect.objectContaining({ unknown: ['no-such-group'] }) }));
    expect(client.handles).toHaveLength(0);
    expect(ran).toBe(0);
  });

  describe('on a remote backend, before anything is written', () => {
    // A real Iris backend object; nothing is submitted, so no controller needs to listen.
    const iris = () => createIrisBackend({ controller: '127.0.0.1:1', logger: silent });

    it('refuses a remote step when no entry script can re-enter it (the executor was not started by executorMain)', async () => {
      await using tmp = await makeTempDir();
      const prefix = join(tmp.path, 'prefix');
      const backend = iris();
      const step = new ExecutorStep({ name: 'r', config: {}, resources: ResourceConfig.withCpu(), fn: () => {} });
      const err = await withClient(backend, () => executor(prefix).run([step], plain)).catch((e: unknown) => e);
      await backend.close();
      expect(err).toMatchObject({ code: 'EXECUTOR_INVALID_ARGUMENT', details: { reason: 'no-entry-script' } });
      expect(await listTree(tmp.path)).toEqual([]);
    });

    it('refuses when executorMain runs inside a test runner: process.argv[1] is not the calling script', async () => {
      await using tmp = await makeTempDir();
      const backend = iris();
      const step = new ExecutorStep({ name: 'r', config: {}, resources: ResourceConfig.withCpu(), fn: () => {} });
      const logger = captureLogger();
      const err = await withClient(backend, () => executorMain({ steps: [step], argv: ['--prefix', join(tmp.path, 'prefix'), '--progress', 'plain'], logger })).catch(
        (e: unknown) => e,
      );
      await backend.close();
      expect(err).toMatchObject({ code: 'EXECUTOR_INVALID_ARGUMENT', details: { reason: 'no-entry-script' } });
      expect(await listTree(tmp.path)).toEqual([]);
    });

    it('refuses an entry script outside the workspace bundle', async () => {
      await using tmp = await makeTempDir();
      const script = join(tmp.path, 'outside.js');
      await writeFile(script, '');
      const backend = iris();
      const step = new ExecutorStep({ name: 'r', config: {}, resources: ResourceConfig.withCpu(), fn: () => {} });
      const runner = new DispatchStepRunner({
        fray: new FrayStepRunner({ client: backend, reentry: { entryScript: script, userArgs: [], execArgv: [], steps: [step] } }),
      });
      const err = await executor(join(tmp.path, 'prefix'), runner).run([step], plain).catch((e: unknown) => e);
      await backend.close();
      expect(err).toMatchObject({ code: 'EXECUTOR_INVALID_ARGUMENT', details: { reason: 'entry-script-outside-workspace' } });
      expect(await listTree(tmp.path)).toEqual(['outside.js']);
    });

    it('refuses a step the entry script’s DAG does not contain', async () => {
      await using tmp = await makeTempDir();
      const backend = iris();
      const inEntry = new ExecutorStep({ name: 'in-entry', config: {}, resources: ResourceConfig.withCpu(), fn: () => {} });
      const other = new ExecutorStep({ name: 'elsewhere', config: {}, resources: ResourceConfig.withCpu(), fn: () => {} });
      const script = new URL(import.meta.url).pathname;
      const runner = new DispatchStepRunner({
        fray: new FrayStepRunner({ client: backend, reentry: { entryScript: script, userArgs: [], execArgv: [], steps: [inEntry] } }),
      });
      const err = await executor(join(tmp.path, 'prefix'), runner).run([other], plain).catch((e: unknown) => e);
      await backend.close();
      expect(err).toMatchObject({ code: 'EXECUTOR_INVALID_ARGUMENT', details: { reason: 'step-not-in-entry-dag' } });
      expect(await listTree(tmp.path)).toEqual([]);
    });
  });

  it('re-exports remote and RemoteCallable from Fray', () => {
    expect(RemoteCallable.is(remote(() => {}))).toBe(true);
  });
});
