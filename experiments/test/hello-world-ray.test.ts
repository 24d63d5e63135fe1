// hello_world on a real local Ray head (packages/fray/python/ray.lock): `--remote-stats --backend ray` runs the
// stats step as a Ray job through the Jobs API, re-entering this script from the workspace; the executor keeps
// the lease and writes the statuses, and a rerun skips both steps.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRayClient } from '@marin/fray';
import { startRayHead } from '@marin/fray/testing';
import type { RayHead } from '@marin/fray/testing';
import { runNode } from './helpers/run-process.js';

let head: RayHead | null = null;
beforeAll(async () => {
  head = await startRayHead({ numCpus: 2 });
}, 90_000);
afterAll(async () => {
  await head?.close();
}, 60_000);

describe('experiments/hello_world.js on Ray', () => {
  it('--remote-stats --backend ray runs the stats step as a Ray job; a rerun skips', async () => {
    const prefix = await mkdtemp(join(tmpdir(), 'hello-world-ray-'));
    try {
      const env = { RAY_ADDRESS: head!.address, USER: 'hello' };
      const first = await runNode(['hello_world.js', '--prefix', prefix, '--remote-stats', '--backend', 'ray'], { env });
      expect(first.code, first.stderr).toBe(0);
      const jobId = /Step hello_world\/stats-b5daf3 submitted as Fray job (fray-hello-hello_world-stats-b5daf3-[0-9a-f]{8})/.exec(first.stderr)?.[1];
      expect(jobId, first.stderr).toBeDefined();

      await using ray = createRayClient({ address: head!.address, jobPrefix: 'fray-hello-' });
      const job = ray.handle(jobId!);
      expect(await job.info()).toMatchObject({ state: 'SUCCEEDED', metadata: { fray_name: jobId!.replace('fray-hello-', '') } });
      expect((await job.logs()).some((l) => l.includes('hello_world/stats-b5daf3'))).toBe(true);
      const stats = join(prefix, 'hello_world', 'stats-b5daf3');
      expect(await readFile(join(stats, 'stats.json'), 'utf8')).toBe('{"sum": 4950, "min": 0, "max": 99}');
      expect(await readFile(join(stats, '.executor_status'), 'utf8')).toBe('SUCCESS');

      const second = await runNode(['hello_world.js', '--prefix', prefix, '--remote-stats', '--backend', 'ray'], { env });
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).not.toContain('submitted as Fray job');
      expect(await ray.list()).toHaveLength(1);
    } finally {
      await rm(prefix, { recursive: true, force: true });
    }
  });
});
