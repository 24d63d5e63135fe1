import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pollUntil } from '@marin/rigging';
import { createIrisClient } from '../../src/client/iris-client.js';
import { readLocalClusterRecord } from '../../src/cli/cli-context.js';
import { runIris, spawnIris } from '../helpers/cli-process.js';

const homes: string[] = [];
function freshHome(): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), 'iris-home-'));
  homes.push(home);
  return { IRIS_HOME: home };
}
afterAll(() => {
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

describe('iris job run with no controller (embedded cluster)', () => {
  it('exits 0 and prints the output of a succeeding command', async () => {
    const r = await runIris(['job', 'run', '--', 'node', '-e', "console.log('hi')"], { env: freshHome() });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/task=0 \| hi/);
    expect(r.stdout).toMatch(/SUCCEEDED/);
  });

  it('says the embedded dashboard link lives only as long as the command', async () => {
    const r = await runIris(['job', 'run', '--', 'node', '-e', '0'], { env: freshHome() });
    expect(r.code).toBe(0);
    const line = r.stderr.split('\n').find((l) => l.startsWith('iris: dashboard '));
    expect(line).toMatch(/^iris: dashboard http:\/\/127\.0\.0\.1:\d+\/#\/job\?id=\S+ \(live until this command exits\)$/);
    const url = line!.split(' ')[2]!;
    await expect(fetch(url)).rejects.toThrow();
  });

  it('exits 1 when the command exits 3', async () => {
    const r = await runIris(['job', 'run', '--', 'node', '-e', 'process.exit(3)'], { env: freshHome() });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAILED/);
  });

  it('runs a --tpu v5litepod-16 job as 4 tasks on one simulated slice', async () => {
    const r = await runIris(['job', 'run', '--tpu', 'v5litepod-16', '--cpu', '0.1', '--memory', '64m', '--', 'node', '-e', 'console.log(`tpu ${process.env.TPU_NAME} ${process.env.TPU_WORKER_ID}`)'], {
      env: freshHome(),
    });
    expect(r.code).toBe(0);
    const lines = [...r.stdout.matchAll(/task=(\d) \| tpu (\S+) (\d)/g)].map((m) => [m[1], m[2], m[3]]);
    expect(lines).toHaveLength(4);
    for (const [task, , workerId] of lines) expect(workerId).toBe(task);
    expect(new Set(lines.map((l) => l[1])).size).toBe(1);
  });

  it('exits 1 with the pending reason for a job no worker can host', async () => {
    const r = await runIris(['job', 'run', '--cpu', '100000', '--', 'node', '-e', '0'], { env: freshHome() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot be scheduled: .*CPU/);
  });

  it('warns about a region no worker advertises and exits 1 naming the constraint', async () => {
    const r = await runIris(['job', 'run', '--region', 'mars', '--', 'node', '-e', '0'], { env: freshHome() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('region "mars"');
    expect(r.stderr).toMatch(/cannot be scheduled: .*region/);
  });

  it('sets --env A=B=C to "B=C" and copies a bare --env from the caller', async () => {
    const r = await runIris(['job', 'run', '-e', 'A=B=C', '-e', 'FROM_CALLER', '--', 'node', '-e', 'console.log(`A=${process.env.A} F=${process.env.FROM_CALLER}`)'], {
      env: { ...freshHome(), FROM_CALLER: 'yes' },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('A=B=C F=yes');
  });

  it('exits 2 on a usage error', async () => {
    const r = await runIris(['job', 'run', '--replicas', 'many', '--', 'true'], { env: freshHome() });
    expect(r.code).toBe(2);
  });
});

describe('iris against a kept local cluster', () => {
  it('cluster start/status/stop; job list, logs -f, stop, summary; Ctrl-C stops the job and exits 130', async () => {
    const env = freshHome();
    await using cluster = spawnIris(['cluster', 'start', '--local', '--workers', '2'], { env });
    await cluster.waitForOutput('iris local cluster at');
    const record = readLocalClusterRecord(env)!;
    expect(record.address).toMatch(/^127\.0\.0\.1:\d+$/);

    const status = await runIris(['cluster', 'status', '--json'], { env });
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ address: record.address, workerCount: 2 });

    const failing = await runIris(['job', 'run', '--job-name', 'boom', '--', 'node', '-e', "console.error('bad'); process.exit(3)"], { env });
    expect(failing.code).toBe(1);
    const jobId = failing.stdout.split('\n')[0]!;
    const summary = await runIris(['job', 'summary', jobId, '--json'], { env });
    expect(JSON.parse(summary.stdout)).toMatchObject({ state: 'FAILED', exitCode: 3, tasks: [{ state: 'FAILED', exitCode: 3 }] });
    const human = await runIris(['job', 'summary', jobId], { env });
    expect(human.stdout).toMatch(/FAILED.*exit code 3/);

    const list = await runIris(['job', 'list', '--json'], { env });
    expect(JSON.parse(list.stdout).map((j: { jobId: string }) => j.jobId)).toContain(jobId);
    const logs = await runIris(['job', 'logs', jobId, '-f'], { env });
    expect(logs.code).toBe(0);
    expect(logs.stderr).toContain('| bad');
    expect(logs.stderr).toContain(`job ${jobId} ended FAILED`); // -f says on stderr how the job ended

    // Ctrl-C on a running job: the job and its children are KILLED and the CLI exits 130.
    const running = spawnIris(['job', 'run', '--job-name', 'forever', '--', 'node', '-e', "console.log('up'); setInterval(() => {}, 1000)"], { env });
    await running.waitForOutput('task=0 | up');
    process.kill(running.child.pid!, 'SIGINT');
    expect(await running.exited).toBe(130);
    const foreverId = running.stdout().split('\n')[0]!;
    await using client = createIrisClient({ address: record.address });
    expect((await client.getJob(foreverId)).state).toBe('KILLED');

    // --no-terminate-on-exit: Ctrl-C detaches and the job keeps running.
    const kept = spawnIris(['job', 'run', '--no-terminate-on-exit', '--job-name', 'kept', '--', 'node', '-e', "console.log('up'); setInterval(() => {}, 1000)"], { env });
    await kept.waitForOutput('task=0 | up');
    process.kill(kept.child.pid!, 'SIGINT');
    expect(await kept.exited).toBe(130);
    const keptId = kept.stdout().split('\n')[0]!;
    expect((await client.getJob(keptId)).state).toBe('RUNNING');
    await client.terminateJob(keptId);

    // job stop on a detached job
    const detached = await runIris(['job', 'run', '--no-wait', '--job-name', 'bg', '--', 'node', '-e', 'setInterval(() => {}, 1000)'], { env });
    expect(detached.code).toBe(0);
    const bgId = detached.stdout.trim();
    expect((await runIris(['job', 'stop', bgId], { env })).code).toBe(0);
    expect((await client.waitForJob(bgId, { timeoutMs: 30_000 })).state).toBe('KILLED');

    // Marin's forms: `job kill` stops like `job stop`, and `-e KEY VALUE` sets KEY.
    const marin = await runIris(['job', 'run', '--no-wait', '-e', 'GREETING', 'hello there', '--job-name', 'marin-forms', '--', 'node', '-e', 'console.log(process.env.GREETING); setInterval(() => {}, 1000)'], { env });
    expect(marin.code).toBe(0);
    const marinId = marin.stdout.trim();
    expect(await pollUntil(async () => (await client.fetchLogs({ jobId: marinId })).entries.some((e) => e.data === 'hello there'), { timeoutMs: 30_000 })).toBe(true);
    expect((await runIris(['job', 'kill', marinId], { env })).code).toBe(0);
    expect((await client.waitForJob(marinId, { timeoutMs: 30_000 })).state).toBe('KILLED');

    expect((await runIris(['cluster', 'stop'], { env })).code).toBe(0);
    expect(await cluster.exited).toBe(0);
    expect(readLocalClusterRecord(env)).toBeUndefined();
  }, 180_000);

  it('commands other than job run fail without a controller', async () => {
    const r = await runIris(['job', 'list'], { env: freshHome() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no controller configured');
  });
});
