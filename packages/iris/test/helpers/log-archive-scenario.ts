import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { exists, readText } from '@marin/rigging';
import { startLocalCluster } from '../../src/cluster/local-cluster.js';
import type { LocalClusterOptions } from '../../src/cluster/local-cluster.js';
import { runIris } from './cli-process.js';

const LINES = ['archived line 0', 'archived line 1', 'archived line 2'];

/**
 * The log archive end to end on a real local cluster, restarted twice over one state dir: a job runs
 * and ends while nothing is archived yet (pruning keeps it), the restarted controller archives it
 * and prunes its lines and then the job itself, and after a second restart `iris job logs` (a CLI
 * process, with and without `-f`) and the dashboard's `/api/logs` still return its lines, from the
 * archive, and `/api/job` says the job was pruned.
 */
export async function runLogArchiveScenario(options: { stateDir: string; home: string; logArchive?: string }): Promise<void> {
  // Without a logArchive the local cluster's default applies: `<stateDir>/log-archive`.
  const prefix = options.logArchive ?? join(options.stateDir, 'log-archive');
  const base: LocalClusterOptions = { workers: 1, stateDir: options.stateDir, ...(options.logArchive === undefined ? {} : { logArchive: options.logArchive }), cpuMillicores: 2000, memoryBytes: 2 ** 31 };
  const script = `${LINES.map((l) => `console.log(${JSON.stringify(l)})`).join(';')}; console.error('to stderr')`;

  // 1. The job ends while its lines are not archived (the archive waits an hour after a job ends).
  let jobId: string;
  {
    await using cluster = await startLocalCluster({ ...base, dashboardBind: null, logArchiveSettleMs: 3_600_000 });
    await using client = cluster.client();
    jobId = await client.launchJob({ name: '/alice/archived', command: ['node', '-e', script] });
    expect((await client.waitForJob(jobId, { timeoutMs: 60_000 })).state).toBe('SUCCEEDED');
    await expect.poll(async () => (await client.fetchLogs({ jobId })).entries.length, { timeout: 30_000 }).toBe(4);
    expect(cluster.controller.state.pruneJobs(0)).toBe(0); // never deletes lines the archive lacks
  }

  // 2. The restarted controller archives the ended job, prunes its lines, then the job itself.
  {
    await using cluster = await startLocalCluster({ ...base, dashboardBind: null, logArchiveSettleMs: 0, logRetentionMs: 0 });
    const state = cluster.controller.state;
    const file = `${prefix.replace(/\/+$/, '')}/alice/archived/0/0.jsonl`;
    await expect.poll(() => exists(file), { timeout: 30_000 }).toBe(true);
    await cluster.controller.archiveLogs();
    const rows = () => (state.store.db.prepare('SELECT COUNT(*) AS n FROM logs WHERE job_id = ?').get(jobId) as { n: number }).n;
    expect(rows()).toBe(0);
    expect(state.pruneJobs(0)).toBe(1);
    expect(state.store.job(jobId)).toBeUndefined();
    const archived = (await readText(file)).trim().split('\n').map((l) => JSON.parse(l) as { data: string; source: string });
    expect(archived.map((e) => e.data)).toEqual([...LINES, 'to stderr']);
    expect(archived[3]!.source).toBe('stderr');
  }

  // 3. After another restart the pruned job's logs are read from the archive by the CLI and the dashboard.
  await using cluster = await startLocalCluster({ ...base, dashboardBind: '127.0.0.1:0' });
  writeFileSync(join(options.home, 'local-cluster.json'), JSON.stringify({ address: cluster.address, pid: process.pid, stateDir: options.stateDir, startedAtMs: Date.now() }));
  const env = { IRIS_HOME: options.home };
  const cli = await runIris(['job', 'logs', jobId], { env });
  expect(cli.code, cli.stderr).toBe(0);
  for (const l of LINES) expect(cli.stdout).toContain(l);
  expect(cli.stderr).toContain('to stderr');
  const json = await runIris(['job', 'logs', jobId, '--json', '--grep', 'line 1'], { env });
  expect(json.code, json.stderr).toBe(0);
  expect(json.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { data: string }).data)).toEqual(['archived line 1']);
  const missing = await runIris(['job', 'logs', '/alice/never-ran'], { env });
  expect(missing.code).not.toBe(0);
  // -f on the pruned job: the archive, then at once the end (how the job ended, recorded when it was pruned).
  const followed = await runIris(['job', 'logs', '-f', jobId], { env });
  expect(followed.code, followed.stderr).toBe(0);
  for (const l of LINES) expect(followed.stdout).toContain(l);
  expect(followed.stderr).toContain(`job ${jobId} ended SUCCEEDED and was pruned`);
  const detail = await fetch(`${cluster.dashboardUrl!}api/job?id=${encodeURIComponent(jobId)}`);
  expect(detail.status).toBe(404);
  expect(await detail.json()).toMatchObject({ code: 'IRIS_JOB_PRUNED', prunedJob: { jobId, state: 'SUCCEEDED', logsArchived: true } });

  const res = await fetch(`${cluster.dashboardUrl!}api/logs?id=${encodeURIComponent(jobId)}`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { entries: { data: string }[]; truncated: boolean };
  expect(body.entries.map((e) => e.data)).toEqual([...LINES, 'to stderr']);
}
