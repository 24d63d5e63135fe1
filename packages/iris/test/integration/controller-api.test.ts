import { Metadata, credentials } from '@grpc/grpc-js';
import type { ServiceError } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { createIrisClient } from '../../src/client/iris-client.js';
import { startController } from '../../src/cluster/start-controller.js';
import { irisErrorFromServiceError } from '../../src/errors.js';
import { ControllerServiceClient, LaunchJobRequest } from '../../src/gen/iris/v1/controller.js';
import type { DeepPartial } from '../../src/gen/iris/v1/controller.js';
import { startLocalCluster } from '../../src/cluster/local-cluster.js';
import { createGate, eventually } from '../helpers/gate.js';

function launchRaw(address: string, req: DeepPartial<LaunchJobRequest>, token?: string): Promise<string> {
  const raw = new ControllerServiceClient(address, credentials.createInsecure());
  const md = new Metadata();
  if (token !== undefined) md.set('authorization', `Bearer ${token}`);
  return new Promise<string>((resolve, reject) => {
    raw.launchJob(LaunchJobRequest.fromPartial({ entrypoint: { run: { argv: ['true'] } }, ...req }), md, (e: ServiceError | null, r) => {
      raw.close();
      if (e) reject(irisErrorFromServiceError(e));
      else resolve(r.jobId);
    });
  });
}

describe('ControllerService over gRPC', () => {
  it.each([
    ['empty name', { name: '' }],
    ['replicas > 10000', { name: '/u/many', replicas: 10_001 }],
    ['unknown device variant', { name: '/u/tpu', resources: { device: { kind: { $case: 'tpu' as const, value: { variant: 'v99-8', topology: '', count: 0 } } } } }],
    ['negative cpu', { name: '/u/neg', resources: { cpuMillicores: -500 } }],
    ['IRIS_ env key', { name: '/u/env', environment: { envVars: { IRIS_TASK_ID: 'x' } } }],
  ])('rejects %s with IRIS_INVALID_ARGUMENT and keeps serving', async (_label, req) => {
    await using controller = await startController();
    await expect(launchRaw(controller.address, req)).rejects.toMatchObject({ code: 'IRIS_INVALID_ARGUMENT', cause: expect.objectContaining({ code: 3 }) });
    await expect(launchRaw(controller.address, { name: '/u/fine' })).resolves.toBe('/u/fine');
  });

  it('names the field in the message of a bad request', async () => {
    await using controller = await startController();
    const e = await launchRaw(controller.address, { name: '/u/neg', resources: { cpuMillicores: -1 } }).catch((x: unknown) => x);
    expect((e as Error).message).toContain('cpu_millicores');
  });

  it('reports IRIS_JOB_NOT_FOUND for an unknown job', async () => {
    await using controller = await startController();
    await using client = createIrisClient({ address: controller.address });
    await expect(client.getJob('/nobody/nothing')).rejects.toMatchObject({ code: 'IRIS_JOB_NOT_FOUND', retryable: false });
    await expect(client.terminateJob('/nobody/nothing')).rejects.toMatchObject({ code: 'IRIS_JOB_NOT_FOUND' });
  });

  it('refuses unauthenticated and wrong-token calls when a token is configured', async () => {
    await using controller = await startController({ authToken: 's3cret' });
    await expect(launchRaw(controller.address, { name: '/u/a' })).rejects.toMatchObject({ code: 'IRIS_UNAUTHENTICATED' });
    await expect(launchRaw(controller.address, { name: '/u/a' }, 'wrong')).rejects.toMatchObject({ code: 'IRIS_UNAUTHENTICATED' });
    await expect(launchRaw(controller.address, { name: '/u/a' }, 's3cret')).resolves.toBe('/u/a');
    await using wrong = createIrisClient({ address: controller.address, token: 'nope' });
    await expect(wrong.listJobs()).rejects.toMatchObject({ code: 'IRIS_UNAUTHENTICATED' });
  });

  it('binds 127.0.0.1 by default and answers HealthCheck and GetClusterStatus', async () => {
    await using controller = await startController();
    expect(controller.address).toMatch(/^127\.0\.0\.1:\d+$/);
    const raw = new ControllerServiceClient(controller.address, credentials.createInsecure());
    const health = await new Promise((resolve, reject) => raw.healthCheck({}, (e, r) => (e ? reject(e) : resolve(r))));
    raw.close();
    expect(health).toMatchObject({ healthy: true, version: '0.1.0' });
    await using client = createIrisClient({ address: controller.address });
    await client.launchJob({ name: '/u/counted', command: ['true'] });
    expect(await client.clusterStatus()).toMatchObject({ workerCount: 0, jobCounts: { PENDING: 1 } });
  });

  it('lets a task submit a child with the injected token; the child inherits env and is /u/parent/child', async () => {
    await using cluster = await startLocalCluster({ workers: 1, cpuMillicores: 4000, memoryBytes: 4 * 2 ** 30, authToken: 'tok' });
    await using client = cluster.client();
    const script = `
      const { createIrisClient, irisContext } = await import('@marin/iris');
      const ctx = irisContext();
      const c = createIrisClient({ address: ctx.controllerAddress, token: ctx.authToken });
      const id = await c.launchJob({ name: 'child', command: ['node', '-e', 'console.log("child sees " + process.env.SHARED)'] });
      const job = await c.waitForJob(id, { timeoutMs: 60000 });
      console.log('child ' + id + ' ' + job.state + ' ' + job.user);
      await c.close();`;
    const parent = await client.launchJob({
      name: '/u/parent',
      command: ['node', '--conditions=@marin/source', '--import', 'tsx', '--input-type=module', '-e', script],
      env: { SHARED: 'from-parent' },
      resources: { cpu: 0.5 },
      inPlaceWorkdir: process.cwd(),
    });
    const job = await client.waitForJob(parent, { timeoutMs: 120_000 });
    const logs = (await client.fetchLogs({ jobId: parent })).entries.map((e) => e.data);
    expect(job.state, logs.join('\n')).toBe('SUCCEEDED');
    expect(logs).toContain('child /u/parent/child SUCCEEDED u');
    expect(logs).toContain('child sees from-parent');
  }, 180_000);

  it('terminating a parent kills its running children; endpoints of the tree are removed', async () => {
    await using cluster = await startLocalCluster({ workers: 1, cpuMillicores: 4000, memoryBytes: 4 * 2 ** 30 });
    await using client = cluster.client();
    using gate = createGate();
    const parent = await client.launchJob({ name: '/u/tree', command: gate.command(), resources: { cpu: 0.1 } });
    const child = await client.launchJob({ name: '/u/tree/kid', command: gate.command(), resources: { cpu: 0.1 } });
    await eventually(async () => ((await client.getJob(child, { includeTasks: true })).tasks[0]?.state === 'RUNNING' ? true : undefined), 60_000, 'child running');
    const task = (await client.getJob(child, { includeTasks: true })).tasks[0]!;
    await client.registerEndpoint({ name: '/u/tree/coordinator', address: '127.0.0.1:1234', taskId: task.taskId, attemptId: task.currentAttemptId });
    await expect(client.registerEndpoint({ name: '/other/x', address: 'h:1', taskId: task.taskId, attemptId: task.currentAttemptId })).rejects.toMatchObject({
      code: 'IRIS_INVALID_ARGUMENT',
    });
    expect(await client.listEndpoints({ prefix: '/u/tree/' })).toHaveLength(1);
    await client.terminateJob(parent);
    expect((await client.waitForJob(child, { timeoutMs: 60_000 })).state).toBe('KILLED');
    expect((await client.waitForJob(parent, { timeoutMs: 60_000 })).state).toBe('KILLED');
    expect(await client.listEndpoints({ prefix: '/u/tree/' })).toHaveLength(0);
  }, 120_000);

  it('follows logs: backlog, then live lines, ending after the job is terminal', async () => {
    await using cluster = await startLocalCluster({ workers: 1, cpuMillicores: 2000, memoryBytes: 2 * 2 ** 30 });
    await using client = cluster.client();
    using gate = createGate();
    const script = `console.log('first'); const fs = require('fs'); const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(gate.path)})) { for (let i = 0; i < 50; i++) console.log('line ' + i); clearInterval(t); } }, 50);`;
    const jobId = await client.launchJob({ name: '/u/follow', command: ['node', '-e', script], resources: { cpu: 0.1 } });
    const seen: string[] = [];
    let done = false;
    for await (const ev of client.followLogs({ jobId })) {
      seen.push(...ev.entries.map((e) => e.data));
      if (seen.includes('first')) gate.open();
      if (ev.done) {
        done = true;
        expect(ev.jobState).toBe('SUCCEEDED');
      }
    }
    expect(done).toBe(true);
    expect(seen).toEqual(['first', ...Array.from({ length: 50 }, (_, i) => `line ${i}`)]);
  }, 120_000);
});
