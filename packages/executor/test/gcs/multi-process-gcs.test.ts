import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ls, readText } from '@marin/rigging';
import { startFakeGcs } from '@marin/rigging/testing';
import type { FakeGcsHandle } from '@marin/rigging/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture } from '../helpers/fixture-process.js';
import { makeTempDir } from '../helpers/temp-dir.js';

let gcs: FakeGcsHandle | undefined;

beforeAll(async () => {
  // This worker and every executor process it spawns talk to the emulator.
  gcs = await startFakeGcs({ setEnv: true });
});

afterAll(async () => {
  await gcs?.close();
});

async function lines(path: string): Promise<string[]> {
  try {
    return (await readFile(path, 'utf8')).split('\n').filter((l) => l !== '');
  } catch {
    return [];
  }
}

async function stepUrl(prefix: string): Promise<string> {
  const entries = await ls(`${prefix}/shared`);
  const dir = entries.find((e) => /\/a-[0-9a-f]{6}\/?$/.test(e.url));
  if (dir === undefined) throw new Error(`no shared/a-* under ${prefix}`);
  return dir.url.replace(/\/$/, '');
}

describe('several executor processes on a gs:// prefix (fake-gcs-server)', () => {
  it('runs a step exactly once when 10 executors start at once, and all exit 0', async () => {
    const prefix = `gs://${await gcs!.createUniqueBucket('executor-test')}/marin`;
    await using side = await makeTempDir('exec-gcs-side');
    const counter = join(side.path, 'counter.txt');
    const env = {
      COUNTER_FILE: counter,
      STEP_SLEEP_MS: '1500',
      MARIN_LEASE_HEARTBEAT_S: '1',
      MARIN_LEASE_TIMEOUT_S: '20',
      MARIN_LEASE_POLL_S: '0.2',
    };
    const procs = Array.from({ length: 10 }, () => startFixture('shared-step.ts', { args: ['--prefix', prefix], env }));
    try {
      const results = await Promise.all(procs.map((p) => p.exited));
      results.forEach((r, i) => expect(r.code, procs[i]!.stderr()).toBe(0));
      expect(await lines(counter)).toHaveLength(1);
      const dir = await stepUrl(prefix);
      expect(await readText(`${dir}/.executor_status`)).toBe('SUCCESS');
      expect(await readText(`${dir}/done.txt`)).toBe('ok');
    } finally {
      await Promise.all(procs.map((p) => p.close()));
    }
  });

  it('lets a second executor take over once the lease of a SIGKILLed one is stale', async () => {
    const prefix = `gs://${await gcs!.createUniqueBucket('executor-test')}/marin`;
    await using side = await makeTempDir('exec-gcs-side');
    const counter = join(side.path, 'counter.txt');
    const lease = { MARIN_LEASE_HEARTBEAT_S: '0.3', MARIN_LEASE_TIMEOUT_S: '2', MARIN_LEASE_POLL_S: '0.2' };
    await using first = startFixture('shared-step.ts', {
      args: ['--prefix', prefix],
      env: { ...lease, COUNTER_FILE: counter, STEP_SLEEP_MS: '600000' },
    });
    await first.waitForStdout('STEP-STARTED');
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    const dir = await stepUrl(prefix);
    expect(await readText(`${dir}/.executor_status`)).toBe('RUNNING');

    await using second = startFixture('shared-step.ts', {
      args: ['--prefix', prefix],
      env: { ...lease, COUNTER_FILE: counter, STEP_SLEEP_MS: '100' },
    });
    const { code } = await second.exited;
    expect(code, second.stderr()).toBe(0);
    expect(await lines(counter)).toHaveLength(2);
    expect(await readText(`${dir}/.executor_status`)).toBe('SUCCESS');
    expect(await readText(`${dir}/done.txt`)).toBe('ok');
  });
});
