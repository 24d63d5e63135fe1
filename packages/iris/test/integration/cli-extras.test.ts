import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalCluster } from '../../src/cluster/local-cluster.js';
import type { LocalClusterHandle } from '../../src/cluster/local-cluster.js';
import { packageVersion } from '../../src/cli/program.js';
import { runIris } from '../helpers/cli-process.js';

let cluster: LocalClusterHandle;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  cluster = await startLocalCluster({ workers: 1, dashboardBind: null });
  home = mkdtempSync(join(tmpdir(), 'iris-cli-extras-'));
  // The record `iris cluster start --local` writes, so `job run` finds the cluster and runs in place.
  writeFileSync(join(home, 'local-cluster.json'), JSON.stringify({ address: cluster.address, pid: process.pid, stateDir: home, startedAtMs: Date.now() }));
  env = { IRIS_HOME: home };
});
afterAll(async () => {
  await cluster?.close();
  rmSync(home, { recursive: true, force: true });
});

const parseLines = (text: string) => text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Record<string, unknown>);

describe('iris --version', () => {
  it('prints the package version', async () => {
    const r = await runIris(['--version'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(packageVersion());
  });
});

describe('iris job run --json', () => {
  it('prints one JSON result with the job id, SUCCEEDED and exit code 0', async () => {
    const r = await runIris(['job', 'run', '--json', '--', 'node', '-e', "console.log('out-line')"], { env });
    expect(r.code).toBe(0);
    const [result, ...rest] = parseLines(r.stdout);
    expect(rest).toEqual([]);
    expect(result).toMatchObject({ state: 'SUCCEEDED', exitCode: 0, tasks: [{ index: 0, state: 'SUCCEEDED', exitCode: 0 }] });
    expect(String(result!['jobId'])).toMatch(/^\//);
    expect(r.stderr).toContain('out-line');
  });

  it('reports FAILED with the job exit code and exits 1; the logs stay readable with iris job logs --json', async () => {
    const r = await runIris(['job', 'run', '--json', '--', 'node', '-e', "console.log('before-exit'); process.exit(3)"], { env });
    expect(r.code).toBe(1);
    const [result] = parseLines(r.stdout);
    expect(result).toMatchObject({ state: 'FAILED', exitCode: 3 });

    const logs = await runIris(['job', 'logs', String(result!['jobId']), '--json'], { env });
    expect(logs.code).toBe(0);
    const entries = parseLines(logs.stdout);
    expect(entries.length).toBeGreaterThan(0);
    expect(entries).toContainEqual(expect.objectContaining({ source: 'stdout', data: 'before-exit', taskId: `${String(result!['jobId'])}/0` }));
    for (const e of entries) expect(typeof e['timestampMs']).toBe('number');
  });

  it('prints the job id and PENDING or later with --no-wait', async () => {
    const r = await runIris(['job', 'run', '--json', '--no-wait', '--', 'true'], { env });
    expect(r.code).toBe(0);
    const [result] = parseLines(r.stdout);
    expect(['PENDING', 'RUNNING', 'SUCCEEDED']).toContain(result!['state']);
  });
});

describe('iris tpu list', () => {
  it('lists variants with chips, hosts and slice shape', async () => {
    const r = await runIris(['tpu', 'list', '--json'], { env });
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as { name: string; chips: number; hosts: number; vmCount: number; chipsPerVm: number }[];
    expect(rows).toContainEqual(expect.objectContaining({ name: 'v5litepod-16', chips: 16, hosts: 2, vmCount: 4, chipsPerVm: 4 }));
    const v6e = await runIris(['tpu', 'list', '--family', 'v6e'], { env });
    expect(v6e.code).toBe(0);
    expect(v6e.stdout).toContain('v6e-256');
    expect(v6e.stdout).not.toContain('v4-8');
  });

  it('is what an unknown --tpu variant points to, as a usage error', async () => {
    const r = await runIris(['job', 'run', '--tpu', 'v9-3', '--', 'true'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('iris tpu list');
  });

  it('is what `iris worker start` says for an unknown --tpu variant, before the worker starts', async () => {
    const r = await runIris(['worker', 'start', '--controller', '127.0.0.1:1', '--tpu', 'v9-3', '--tpu-name', 's', '--tpu-worker-id', '0'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('iris tpu list');
  });
});

describe('controller failures', () => {
  it('ends with one line naming the unreachable controller and exit code 1', async () => {
    const r = await runIris(['job', 'list', '--controller', '127.0.0.1:1'], { env });
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^iris: /);
    expect(lines[0]).toContain('127.0.0.1:1');
    expect(r.stdout).toBe('');
  });

  it('ends a job-not-found error with one line and exit code 1', async () => {
    const r = await runIris(['job', 'summary', '/nobody/nothing'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('iris completion bash', () => {
  it('completes commands, subcommands, flags and TPU variants in bash', async () => {
    const r = await runIris(['completion', 'bash'], { env });
    expect(r.code).toBe(0);
    const script = join(home, 'iris-completion.bash');
    writeFileSync(script, r.stdout);
    const complete = (...words: string[]) =>
      execFileSync('bash', ['-c', `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _iris_complete; printf '%s\\n' "\${COMPREPLY[@]}"`, 'bash', script, ...words], { encoding: 'utf8' })
        .split('\n')
        .filter((l) => l !== '');
    expect(complete('iris', 'jo')).toEqual(['job']);
    expect(complete('iris', 'job', '')).toEqual(expect.arrayContaining(['run', 'list', 'logs', 'stop', 'summary']));
    expect(complete('iris', 'job', 'run', '--js')).toEqual(['--json']);
    expect(complete('iris', 'job', 'run', '--cpu', '2', '--no-w')).toEqual(['--no-wait']);
    expect(complete('iris', 'job', 'run', '--tpu', 'v5litepod-1')).toEqual(expect.arrayContaining(['v5litepod-1', 'v5litepod-16']));
    expect(complete('iris', 'completion', '')).toEqual(expect.arrayContaining(['bash', 'zsh']));
    expect(complete('iris', 'job', 'run', '--', 'ech')).toEqual([]);
  });

  it('prints a zsh script that loads the same completion through bashcompinit', async () => {
    const r = await runIris(['completion', 'zsh'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('bashcompinit');
    execFileSync('bash', ['-n'], { input: r.stdout });
  });
});
