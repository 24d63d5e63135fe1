import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '@marin/rigging';
import { startLocalCluster } from '../../src/cluster/local-cluster.js';
import type { LocalClusterHandle } from '../../src/cluster/local-cluster.js';
import type { IrisClient } from '../../src/client/iris-client.js';
import { runIris } from '../helpers/cli-process.js';

let cluster: LocalClusterHandle;
let client: IrisClient;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  cluster = await startLocalCluster({ workers: 1, dashboardBind: null, cpuMillicores: 2000, memoryBytes: 2 ** 31 });
  client = cluster.client();
  home = mkdtempSync(join(tmpdir(), 'iris-cli-operator-'));
  writeFileSync(join(home, 'local-cluster.json'), JSON.stringify({ address: cluster.address, pid: process.pid, stateDir: home, startedAtMs: Date.now() }));
  env = { IRIS_HOME: home };
});
afterAll(async () => {
  await client?.close();
  await cluster?.close();
  rmSync(home, { recursive: true, force: true });
});

describe('iris rpc controller', () => {
  it('calls a method with a JSON request and prints the JSON response', async () => {
    const jobId = await client.launchJob({ name: '/alice/rpc-target', command: ['node', '-e', '0'] });
    await client.waitForJob(jobId, { timeoutMs: 60_000 });
    const r = await runIris(['rpc', 'controller', 'GetJobStatus', JSON.stringify({ jobId, includeTasks: true })], { env });
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout) as { job: { jobId: string; state: string; tasks: unknown[] } };
    expect(body.job).toMatchObject({ jobId, state: 'JOB_STATE_SUCCEEDED' });
    expect(body.job.tasks).toHaveLength(1);

    const workers = await runIris(['rpc', 'controller', 'listworkers'], { env });
    expect(workers.code).toBe(0);
    expect((JSON.parse(workers.stdout) as { workers: { workerId: string }[] }).workers.map((w) => w.workerId)).toEqual(['local-0']);
  });

  it('streams a server-streaming method as JSON lines', async () => {
    const jobId = await client.launchJob({ name: '/alice/rpc-logs', command: ['node', '-e', "console.log('streamed-line')"] });
    await client.waitForJob(jobId, { timeoutMs: 60_000 });
    const r = await runIris(['rpc', 'controller', 'FollowLogs', JSON.stringify({ jobId })], { env });
    expect(r.code, r.stderr).toBe(0);
    const messages = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { entries?: { data: string }[]; done?: boolean });
    expect(messages.flatMap((m) => m.entries ?? []).map((e) => e.data)).toContain('streamed-line');
    expect(messages.at(-1)?.done).toBe(true);
  });

  it('exits 2 for an unknown method or a request that is not JSON, and 1 with one line for a missing job', async () => {
    expect((await runIris(['rpc', 'controller', 'DropTables'], { env })).code).toBe(2);
    expect((await runIris(['rpc', 'controller', 'GetJobStatus', '{nope'], { env })).code).toBe(2);
    const missing = await runIris(['rpc', 'controller', 'GetJobStatus', '{"jobId": "/alice/none"}'], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1); // one readable line, no stack
  });
});

describe('iris job bug-report', () => {
  it('gathers the spec, attempts with reasons, workers, last log lines and the controller version; --json has the same', async () => {
    const jobId = await client.launchJob({
      name: '/alice/flaky',
      command: ['node', '-e', "console.log('about to fail'); process.exit(4)"],
      maxRetriesFailure: 1,
    });
    const job = await client.waitForJob(jobId, { timeoutMs: 60_000 });
    expect(job.state).toBe('FAILED');

    const json = await runIris(['job', 'bug-report', jobId, '--json', '--log-lines', '10'], { env });
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as {
      controller: { version: string };
      job: { jobId: string; state: string; submitArgv: string[] };
      tasks: { attempts: { attemptId: number; state: string; exitCode: number; workerId: string }[] }[];
      workers: { workerId: string; healthy: boolean }[];
      lastLogLines: { data: string }[];
    };
    expect(report.controller.version).not.toBe('');
    expect(report.job).toMatchObject({ jobId, state: 'FAILED' });
    expect(report.tasks[0]!.attempts.map((a) => [a.attemptId, a.state, a.exitCode, a.workerId])).toEqual([
      [0, 'FAILED', 4, 'local-0'],
      [1, 'FAILED', 4, 'local-0'],
    ]);
    expect(report.workers).toMatchObject([{ workerId: 'local-0', healthy: true }]);
    expect(report.lastLogLines.map((e) => e.data)).toContain('about to fail');
    expect(report.lastLogLines.length).toBeLessThanOrEqual(10);

    const text = await runIris(['job', 'bug-report', jobId], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`# Bug report: ${jobId}`);
    expect(text.stdout).toContain('about to fail');
    expect(text.stdout).toContain(`version ${report.controller.version}`);
  });

  it('names a job that does not exist', async () => {
    const r = await runIris(['job', 'bug-report', '/alice/never'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('iris query', () => {
  it('prints the rows of a read-only query as a table, or as JSON', async () => {
    const jobId = await client.launchJob({ name: '/alice/queried', command: ['node', '-e', '0'] });
    await client.waitForJob(jobId, { timeoutMs: 60_000 });
    const json = await runIris(['query', `SELECT job_id, state FROM jobs WHERE job_id = '${jobId}'`, '--json'], { env });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ columns: ['job_id', 'state'], rows: [[jobId, expect.any(Number)]], truncated: false });

    const table = await runIris(['query', 'SELECT job_id FROM jobs ORDER BY seq', '--max-rows', '1'], { env });
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^JOB_ID|^job_id/);
    expect(table.stderr).toMatch(/1 row/);
  });

  it('exits 2 for a statement that writes, and the state is unchanged', async () => {
    const before = (await client.listJobs()).length;
    const r = await runIris(['query', 'DELETE FROM jobs'], { env });
    expect(r.code).toBe(2);
    expect((await client.listJobs()).length).toBe(before);
  });
});

describe('iris task exec', () => {
  it("runs a command in the running task's workdir and environment, streams its output and returns its exit code", async () => {
    const jobId = await client.launchJob({
      name: '/alice/exec-target',
      command: ['node', '-e', "require('fs').writeFileSync('marker.txt', 'in-the-workdir'); console.log('ready'); setInterval(() => {}, 1000)"],
      env: { EXEC_PROBE: 'from-the-job' },
    });
    expect(await pollUntil(async () => (await client.fetchLogs({ jobId })).entries.some((e) => e.data === 'ready'), { timeoutMs: 60_000 })).toBe(true);

    const r = await runIris(['task', 'exec', `${jobId}/0`, '--', 'sh', '-c', 'cat marker.txt; echo; echo "$EXEC_PROBE"; echo on-stderr >&2; exit 3'], { env });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout.split('\n')).toEqual(['in-the-workdir', 'from-the-job', '']);
    expect(r.stderr).toBe('on-stderr\n');

    // A bare job id means task 0.
    const bare = await runIris(['task', 'exec', jobId, '--', 'node', '-e', 'process.exit(0)'], { env });
    expect(bare.code).toBe(0);
    await client.terminateJob(jobId);
  });

  it('refuses a task that is not running with one line, and a command that does not exist ends 127', async () => {
    const jobId = await client.launchJob({ name: '/alice/exec-done', command: ['node', '-e', '0'] });
    await client.waitForJob(jobId, { timeoutMs: 60_000 });
    const r = await runIris(['task', 'exec', `${jobId}/0`, '--', 'true'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    await expect(async () => {
      for await (const _ of client.execInTask(`${jobId}/0`, ['true'])) void _;
    }).rejects.toMatchObject({ code: 'IRIS_FAILED_PRECONDITION' });

    const running = await client.launchJob({ name: '/alice/exec-127', command: ['node', '-e', "console.log('ready'); setInterval(() => {}, 1000)"] });
    expect(await pollUntil(async () => (await client.fetchLogs({ jobId: running })).entries.some((e) => e.data === 'ready'), { timeoutMs: 60_000 })).toBe(true);
    const missing = await runIris(['task', 'exec', `${running}/0`, '--', 'no-such-binary-here'], { env });
    expect(missing.code).toBe(127);
    await client.terminateJob(running);
  });
});

describe('iris process', () => {
  it('prints the controller process status, and writes a CPU profile', async () => {
    const status = await runIris(['process', 'status', '--json'], { env });
    expect(status.code, status.stderr).toBe(0);
    // The local cluster's controller runs in this test process.
    expect(JSON.parse(status.stdout)).toMatchObject({ role: 'controller', pid: process.pid, nodeVersion: process.version, cpuCount: expect.any(Number) });
    const text = await runIris(['process', 'status'], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`pid ${process.pid}`);

    const file = join(home, 'controller.cpuprofile');
    const profile = await runIris(['process', 'profile', '--seconds', '1', '-o', file], { env });
    expect(profile.code, profile.stderr).toBe(0);
    expect(profile.stdout.trim()).toBe(file);
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { nodes: unknown[]; startTime: number; endTime: number };
    expect(parsed.nodes.length).toBeGreaterThan(0);
    expect(parsed.endTime - parsed.startTime).toBeGreaterThanOrEqual(900_000); // microseconds

    expect((await runIris(['process', 'profile', '--kind', 'flame'], { env })).code).toBe(2);
    const logs = await runIris(['process', 'logs', '--json'], { env });
    expect(logs.code, logs.stderr).toBe(0);
    for (const line of logs.stdout.split('\n').filter((l) => l !== '')) expect(JSON.parse(line)).toMatchObject({ level: expect.any(String), message: expect.any(String) });
  });

  it('reports a worker daemon through the controller: status, its log lines and a heap snapshot', async () => {
    const workerId = cluster.workers[0]!.workerId;
    const status = await runIris(['process', 'status', '--worker', workerId, '--json'], { env });
    expect(status.code, status.stderr).toBe(0);
    // The local cluster's workers run in this test process too; the status is the worker's own.
    expect(JSON.parse(status.stdout)).toMatchObject({ role: 'worker', workerId, pid: process.pid, runningTasks: expect.any(Number), version: expect.any(String) });
    const marinForm = await runIris(['process', 'status', '-t', `/system/worker/${workerId}`], { env });
    expect(marinForm.code, marinForm.stderr).toBe(0);
    expect(marinForm.stdout).toContain(`worker "${workerId}"`);

    const jobId = await client.launchJob({ name: '/alice/worker-log-line', command: ['node', '-e', '0'] });
    await client.waitForJob(jobId, { timeoutMs: 60_000 });
    const logs = await runIris(['process', 'logs', '--worker', workerId, '--json', '--tail', '0'], { env });
    expect(logs.code, logs.stderr).toBe(0);
    const messages = logs.stdout.split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { message: string }).message);
    expect(messages).toEqual(expect.arrayContaining([expect.stringContaining('registered with the controller'), expect.stringContaining(`task ${jobId}/0`)]));

    const file = join(home, 'worker.heapsnapshot');
    const heap = await runIris(['process', 'profile', '--worker', workerId, '--kind', 'heap', '-o', file], { env });
    expect(heap.code, heap.stderr).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')) as object)).toContain('snapshot');

    const unknown = await runIris(['process', 'status', '--worker', 'no-such-worker'], { env });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('no-such-worker');
    expect((await runIris(['process', 'status', '-t', '/user/job/0'], { env })).code).toBe(2);
  });
});
