import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startController } from '../../src/cluster/start-controller.js';
import type { ControllerHandle } from '../../src/cluster/start-controller.js';

let root: string;
let prefix: string;
let elsewhere: string;
let controller: ControllerHandle;

async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(`${controller.dashboardUrl}api/${path}`, { signal: AbortSignal.timeout(20_000) });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

function stepDir(dir: string, name: string, files: Record<string, string>, mtime?: number): void {
  mkdirSync(join(dir, 'logs'), { recursive: true });
  writeFileSync(join(dir, '.executor_info'), JSON.stringify({ name, version: { config: {} } }));
  writeFileSync(join(dir, '.executor_status'), 'SUCCESS\n');
  for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
  if (mtime !== undefined) utimesSync(join(dir, '.executor_info'), mtime, mtime);
}

const q = (s: string) => encodeURIComponent(s);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'iris-dashboard-steps-'));
  prefix = join(root, 'served');
  elsewhere = join(root, 'elsewhere');
  const metrics = Array.from({ length: 10_000 }, (_, step) => JSON.stringify({ step, 'loss/train': 8 - step / 2000, learning_rate: 1e-3, tokens_per_second: 5000 + (step % 7) })).join('\n');
  stepDir(join(prefix, 'checkpoints', 'run-aaaaaa'), 'checkpoints/run', { 'metrics.jsonl': `${metrics}\n` }, 1_700_000_000);
  stepDir(join(prefix, 'checkpoints', 'run-bbbbbb'), 'checkpoints/run', { 'metrics.jsonl': '{"step": 0, "loss/train": 3, "eval/web/loss": 4}\n' }, 1_700_000_100);
  stepDir(join(prefix, 'checkpoints', 'other-cccccc'), 'checkpoints/other', {});
  stepDir(join(prefix, 'evaluation', 'ev-dddddd'), 'evaluation/ev', {
    'results.json': JSON.stringify({ results: { tiny_mc: { alias: 'tiny_mc', 'acc,none': 0.5, 'acc_stderr,none': 0.1 } } }),
  });
  stepDir(join(prefix, 'big-eeeeee'), 'big', { 'metrics.jsonl': '' });
  truncateSync(join(prefix, 'big-eeeeee', 'metrics.jsonl'), 65 * 1024 * 1024);
  stepDir(join(prefix, 'fifo-ffffff'), 'fifo', {});
  execFileSync('mkfifo', [join(prefix, 'fifo-ffffff', 'metrics.jsonl')]);
  stepDir(join(elsewhere, 'secret-123456'), 'secret', { 'metrics.jsonl': '{"step": 0, "loss/train": 1}\n' });
  // Two ArtifactSteps as the TypeScript artifact run lists them: the stats record drifted from the plan.
  mkdirSync(join(prefix, 'experiments'), { recursive: true });
  mkdirSync(join(prefix, 'hello', 'data', 'v1'), { recursive: true });
  mkdirSync(join(prefix, 'hello', 'stats', 'v1'), { recursive: true });
  writeFileSync(join(prefix, 'hello', 'data', 'v1', '.artifact.json'), JSON.stringify({ name: 'hello/data', version: 'v1', fingerprint: 'f'.repeat(32), result_type: '', deps: [] }));
  writeFileSync(join(prefix, 'hello', 'stats', 'v1', '.artifact.json'), JSON.stringify({ name: 'hello/stats', version: 'v1', fingerprint: 'e'.repeat(32), result_type: 'm.Stats', deps: ['hello/data@v1'] }));
  const steps = [
    { name: 'hello/data', output_path: join(prefix, 'hello', 'data', 'v1'), dependencies: [], config: { fingerprint: 'f'.repeat(32), version: 'v1', result_type: '', deps: [] } },
    { name: 'hello/stats', output_path: join(prefix, 'hello', 'stats', 'v1'), dependencies: [join(prefix, 'hello', 'data', 'v1')], config: { fingerprint: 'a'.repeat(32), version: 'v1', result_type: 'm.Stats', deps: ['hello/data@v1'] } },
    { name: 'plain', output_path: join(prefix, 'checkpoints', 'other-cccccc'), dependencies: [], config: {} },
  ];
  writeFileSync(join(prefix, 'experiments', 'hello-abcdef.json'), JSON.stringify({ steps }));
  controller = await startController({ experimentPrefixes: [prefix] });
});
afterAll(async () => {
  await controller?.close();
  rmSync(root, { recursive: true, force: true });
});

describe("the experiment page's step outputs are read from the files the steps wrote", () => {
  it('returns a 10,000-step train run downsampled to at most 1,000 points per series', async () => {
    const r = await get(`step-output?prefix=${q(prefix)}&path=${q(join(prefix, 'checkpoints', 'run-aaaaaa'))}`);
    expect(r.status).toBe(200);
    const m = r.body['metrics'] as { records: number; lastStep: number; trainLoss: { points: [number, number][]; total: number }; learningRate: { total: number } };
    expect(m.records).toBe(10_000);
    expect(m.lastStep).toBe(9_999);
    expect(m.trainLoss.total).toBe(10_000);
    expect(m.trainLoss.points.length).toBeLessThanOrEqual(1000);
    expect(m.trainLoss.points[0]).toEqual([0, 8]);
    expect(m.learningRate.total).toBe(10_000);
    expect(r.body['name']).toBe('checkpoints/run');
    expect(r.body['status']).toBe('SUCCESS');
    expect(r.body['evalResults']).toBeNull();
  });

  it("returns an eval step's results table and an artifact's record", async () => {
    const ev = await get(`step-output?prefix=${q(prefix)}&path=${q(join(prefix, 'evaluation', 'ev-dddddd'))}`);
    expect(ev.body['evalResults']).toEqual([{ task: 'tiny_mc', metric: 'acc', value: 0.5, stderr: 0.1 }]);
    expect(ev.body['metrics']).toBeNull();
    const art = await get(`step-output?prefix=${q(prefix)}&path=${q(join(prefix, 'hello', 'stats', 'v1'))}`);
    expect(art.body['artifact']).toEqual({ id: 'hello/stats@v1', fingerprint: 'e'.repeat(32), resultType: 'm.Stats', deps: ['hello/data@v1'] });
    expect(art.body['name']).toBe('hello/stats');
  });

  it('lists the runs of the same step name, newest first, for comparing two', async () => {
    const r = await get(`step-runs?prefix=${q(prefix)}&path=${q(join(prefix, 'checkpoints', 'run-aaaaaa'))}`);
    expect(r.status).toBe(200);
    expect(r.body['name']).toBe('checkpoints/run');
    expect((r.body['runs'] as { outputPath: string }[]).map((x) => x.outputPath)).toEqual([join(prefix, 'checkpoints', 'run-bbbbbb'), join(prefix, 'checkpoints', 'run-aaaaaa')]);
  });

  it('refuses paths outside the served prefix, and unserved prefixes, with the same 400 whether or not they exist', async () => {
    const answers = new Set<string>();
    for (const path of [join(elsewhere, 'secret-123456'), join(root, 'missing-123456'), `${prefix}/../elsewhere/secret-123456`, '/etc', 'gs://bucket/x']) {
      for (const route of ['step-output', 'step-runs']) {
        const r = await get(`${route}?prefix=${q(prefix)}&path=${q(path)}`);
        expect(r.status, `${route} ${path}`).toBe(400);
        expect(r.body['code']).toBe('IRIS_INVALID_ARGUMENT');
        answers.add(String(r.body['message']).replace(path.slice(0, 200), '<path>'));
      }
    }
    expect(answers.size).toBe(1);
    const unserved = await get(`step-output?prefix=${q(elsewhere)}&path=${q(join(elsewhere, 'secret-123456'))}`);
    expect(unserved).toMatchObject({ status: 400, body: { code: 'IRIS_INVALID_ARGUMENT' } });
    expect(JSON.stringify(unserved.body)).not.toContain('loss');
    expect(await get(`step-output?prefix=${q(prefix)}`)).toMatchObject({ status: 400, body: { code: 'IRIS_INVALID_ARGUMENT' } });
  });

  it('answers 400 for a metrics file over the 64 MiB cap or not a regular file, without blocking', async () => {
    expect(await get(`step-output?prefix=${q(prefix)}&path=${q(join(prefix, 'big-eeeeee'))}`)).toMatchObject({ status: 400, body: { code: 'IRIS_INVALID_ARGUMENT' } });
    expect(await get(`step-output?prefix=${q(prefix)}&path=${q(join(prefix, 'fifo-ffffff'))}`)).toMatchObject({ status: 400, body: { code: 'IRIS_INVALID_ARGUMENT' } });
  });

  it('draws ArtifactSteps as name@version with their fingerprints and marks drift from the plan', async () => {
    const r = await get(`experiment?prefix=${q(prefix)}&file=hello-abcdef.json`);
    expect(r.status).toBe(200);
    const steps = r.body['steps'] as { name: string; artifact: Record<string, unknown> | null }[];
    expect(steps[0]!.artifact).toEqual({ id: 'hello/data@v1', version: 'v1', planFingerprint: 'f'.repeat(32), deps: [], recordFingerprint: 'f'.repeat(32), resultType: '', drift: false });
    expect(steps[1]!.artifact).toMatchObject({ id: 'hello/stats@v1', planFingerprint: 'a'.repeat(32), recordFingerprint: 'e'.repeat(32), deps: ['hello/data@v1'], drift: true });
    expect(steps[2]!.artifact).toBeNull();
  });
});
