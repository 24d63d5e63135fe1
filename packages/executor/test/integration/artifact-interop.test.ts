// TypeScript and Python Marin (marin-core 0.2.227) on one local prefix: each resolves the other's artifacts
// without re-running them, a held lease of either makes the other wait, and either detects drift in a record the
// other wrote. The same graph is defined in test/helpers/interop-graph.ts and test/python/interop_artifacts.py.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildArtifacts, resolveArtifact, runArtifacts } from '../../src/artifact/artifact-runner.js';
import { readRecord } from '../../src/artifact/record.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { startFixture } from '../helpers/fixture-process.js';
import { interopGraph, runsLog } from '../helpers/interop-graph.js';
import { runMarinPython, startMarinPython } from '../helpers/marin-core-python.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import type { TempDir } from '../helpers/temp-dir.js';

const V = '2026.11.25';
const TIMINGS = { heartbeatS: 30, timeoutS: 90, pollS: 1 };

let tmp: TempDir;
beforeEach(async () => {
  tmp = await makeTempDir('artifact-interop');
});
afterEach(async () => {
  await tmp.close();
});

const opts = () => ({ prefix: tmp.path, logger: captureLogger(), timings: TIMINGS });
const py = (args: string[], allowFailure = false) => runMarinPython('artifact_interop.py', args, { prefix: tmp.path, allowFailure });

describe('ArtifactStep interop with marin-core 0.2.227 (local prefix)', () => {
  it('agrees on both fingerprints and payloads', async () => {
    const { numbers, total } = interopGraph(tmp.path, V);
    const out = JSON.parse((await py(['fingerprint', V])).stdout) as Record<string, { fingerprint: string; payload: string }>;
    expect(out['interop/numbers']).toEqual({ fingerprint: await numbers.fingerprint(), payload: await numbers.fingerprintPayload() });
    expect(out['interop/total']).toEqual({ fingerprint: await total.fingerprint(), payload: await total.fingerprintPayload() });
  }, 120_000);

  it('TypeScript builds, then Python resolves the records without re-running', async () => {
    const { total } = interopGraph(tmp.path, V);
    expect(await resolveArtifact(total, opts())).toMatchObject({ total: 10, count: 5 });
    const out = JSON.parse((await py(['resolve', V])).stdout) as { total: number; count: number; path: string };
    expect(out).toEqual({ total: 10, count: 5, path: join(tmp.path, 'interop/total', V) });
    expect(await runsLog(tmp.path)).toEqual(['ts numbers', 'ts total']);
  }, 120_000);

  it('Python builds, then TypeScript resolves the records without re-running', async () => {
    const out = JSON.parse((await py(['run', V])).stdout) as { total: number };
    expect(out.total).toBe(10);
    const { total } = interopGraph(tmp.path, V);
    const report = await buildArtifacts([total], opts());
    expect(Object.fromEntries(report.outcomes)).toEqual({ 'interop/total@2026.11.25': 'pruned' });
    const [loaded] = await runArtifacts([total], opts());
    expect(loaded).toMatchObject({ total: 10, count: 5 });
    expect(loaded?.record).toMatchObject({ name: 'interop/total', result_type: 'interop_artifacts.Total', deps: ['interop/numbers@2026.11.25'] });
    expect(await runsLog(tmp.path)).toEqual(['py numbers', 'py total']);
  }, 120_000);

  it('a lease held by TypeScript makes Python wait, and the step runs once', async () => {
    let release!: () => void;
    let holding!: () => void;
    const isHolding = new Promise<void>((r) => (holding = r));
    const { total } = interopGraph(tmp.path, V, { hold: new Promise<void>((r) => (release = r)), onHolding: () => holding() });
    const tsRun = runArtifacts([total], opts());
    await isHolding;
    const python = await startMarinPython('artifact_interop.py', ['run', V], { prefix: tmp.path });
    await sleep(12_000); // import (~6 s) and at least one of Python's 5 s lock polls
    expect(await runsLog(tmp.path)).toEqual(['ts numbers']);
    release();
    const [loaded] = await tsRun;
    const done = await python.exited;
    expect(done.code, done.stderr.slice(-2000)).toBe(0);
    expect(loaded).toMatchObject({ total: 10 });
    expect(JSON.parse(done.stdout)).toMatchObject({ total: 10, count: 5 });
    const log = await runsLog(tmp.path);
    expect(log.filter((l) => l.endsWith('numbers'))).toEqual(['ts numbers']);
    expect(log.filter((l) => l.endsWith('total'))).toHaveLength(1);
  }, 120_000);

  it('a lease held by Python makes TypeScript wait, and the step runs once', async () => {
    const gate = join(tmp.path, 'release-gate');
    const python = await startMarinPython('artifact_interop.py', ['run', V, '--block-until', gate], { prefix: tmp.path });
    await python.waitForStdout('holding');
    const { total } = interopGraph(tmp.path, V);
    let tsDone = false;
    const tsRun = runArtifacts([total], opts()).finally(() => (tsDone = true));
    await sleep(3000);
    expect(tsDone).toBe(false);
    expect(await runsLog(tmp.path)).toEqual(['py numbers']);
    await writeFile(gate, '');
    const [loaded] = await tsRun;
    const done = await python.exited;
    expect(done.code, done.stderr.slice(-2000)).toBe(0);
    expect(loaded).toMatchObject({ total: 10 });
    const log = await runsLog(tmp.path);
    expect(log.filter((l) => l.endsWith('numbers'))).toEqual(['py numbers']);
    expect(log.filter((l) => l.endsWith('total'))).toHaveLength(1);
  }, 120_000);

  it('Python detects drift in a record TypeScript wrote: warns and serves it, refuses with expected_fingerprint', async () => {
    const { numbers } = interopGraph(tmp.path, V);
    await runArtifacts([numbers], opts());
    const warned = await py(['numbers', V, '--scale', '2.5']);
    expect(warned.stderr).toContain('scale: 1.5 -> 2.5');
    const changed = interopGraph(tmp.path, V, { scale: 2.5 }).numbers;
    const refused = await py(['numbers', V, '--scale', '2.5', '--expected', await changed.fingerprint()], true);
    expect(refused.code).toBe(3);
    expect(JSON.parse(refused.stdout)).toEqual({ error: 'FingerprintMismatchError' });
    expect(await runsLog(tmp.path)).toEqual(['ts numbers']);
  }, 120_000);

  it('TypeScript detects drift in a record Python wrote: warns naming the field, refuses with expectedFingerprint', async () => {
    await py(['numbers', V]);
    expect((await readRecord(join(tmp.path, 'interop/numbers', V)))?.fingerprint_payload).toContain('"scale": 1.5');
    const logger = captureLogger();
    await runArtifacts([interopGraph(tmp.path, V, { scale: 2.5 }).numbers], { ...opts(), logger });
    expect(logger.warns.join('\n')).toContain('~ scale: 1.5 → 2.5');
    const changed = interopGraph(tmp.path, V, { scale: 2.5 }).numbers;
    const pinned = interopGraph(tmp.path, V, { scale: 2.5, expectedFingerprint: await changed.fingerprint() }).numbers;
    await expect(runArtifacts([pinned], opts())).rejects.toMatchObject({ code: 'EXECUTOR_FINGERPRINT_MISMATCH' });
    expect(await runsLog(tmp.path)).toEqual(['py numbers']);
  }, 120_000);

  it('a SIGKILLed Python holder is taken over by TypeScript once its lease is stale', async () => {
    const python = await startMarinPython('artifact_interop.py', ['run', V, '--block-until', join(tmp.path, 'never')], { prefix: tmp.path });
    await python.waitForStdout('holding');
    python.kill('SIGKILL');
    await python.exited;
    // Python heartbeats every 30 s; with a 5 s staleness bound TypeScript takes the lease over well before that.
    const [loaded] = await runArtifacts([interopGraph(tmp.path, V).total], { ...opts(), timings: { heartbeatS: 1, timeoutS: 5, pollS: 1 } });
    expect(loaded).toMatchObject({ total: 10, count: 5 });
    expect(await runsLog(tmp.path)).toEqual(['py numbers', 'ts numbers', 'ts total']);
  }, 180_000);

  it('a SIGKILLed TypeScript holder is taken over by Python once its lease is stale (Python waits its fixed 90 s)', async () => {
    const ts = startFixture('artifact-interop.ts', { args: [tmp.path, V], env: { HOLD_UNTIL: join(tmp.path, 'never'), MARIN_LEASE_HEARTBEAT_S: '1' } });
    await ts.waitForStdout('HOLDING');
    ts.child.kill('SIGKILL');
    await ts.exited;
    const done = await py(['run', V]);
    expect(JSON.parse(done.stdout)).toEqual({ total: 10, count: 5, path: join(tmp.path, 'interop/total', V) });
    expect(await runsLog(tmp.path)).toEqual(['ts numbers', 'py numbers', 'py total']);
  }, 300_000);
});
