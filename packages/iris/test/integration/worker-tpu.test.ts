import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TaskState } from '../../src/gen/iris/v1/types.js';
import { probeGpus } from '../../src/worker/gpu-probe.js';
import { startWorker } from '../../src/worker/worker-daemon.js';
import type { WorkerHandle } from '../../src/worker/worker-daemon.js';
import { runSpec, runWithSpec, startFakeController } from '../helpers/worker-fake-controller.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'iris-worker-tpu-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('simulated TPU workers', () => {
  it('a v5litepod-16 slice registers 4 workers whose tasks see TPU_WORKER_ID 0..3', async () => {
    await using controller = await startFakeController();
    const workers: WorkerHandle[] = [];
    try {
      for (let i = 0; i < 4; i += 1) {
        workers.push(
          await startWorker({
            controllerAddress: controller.address,
            workerId: `slice-a-${i}`,
            cacheDir: join(dir, `w${i}`),
            tpu: { variant: 'v5e-16', name: 'slice-a', workerId: i },
            registerRetryInitialMs: 50,
            logFlushIntervalMs: 50,
          }),
        );
      }
      await Promise.all(workers.map((w) => w.waitForRegistration()));
      for (let i = 0; i < 4; i += 1) {
        const reg = controller.registrations.find((r) => r.workerId === `slice-a-${i}`);
        expect(reg?.metadata?.device).toEqual({ kind: { $case: 'tpu', value: { variant: 'v5litepod-16', topology: '', count: 4 } } });
        expect(reg?.metadata?.attributes).toMatchObject({
          'device-type': { v: { $case: 'stringValue', value: 'tpu' } },
          'device-variant': { v: { $case: 'stringValue', value: 'v5litepod-16' } },
          'tpu-name': { v: { $case: 'stringValue', value: 'slice-a' } },
          'tpu-worker-id': { v: { $case: 'intValue', value: i } },
          'tpu-vm-count': { v: { $case: 'intValue', value: 4 } },
          simulated: { v: { $case: 'stringValue', value: 'true' } },
        });
      }
      const hosts = ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4'];
      const specs = workers.map((_, i) =>
        runSpec([process.execPath, '-e', 'console.log(["TPU_NAME","TPU_WORKER_ID","TPU_WORKER_HOSTNAMES","TPU_ACCELERATOR_TYPE","IRIS_GANG_RANK"].map(k => process.env[k]).join(" "))'], {
          jobId: '/alice/tpu',
          taskId: `/alice/tpu/${i}`,
          taskIndex: i,
          numTasks: 4,
          gang: { groupValue: 'slice-a', rank: i, groupSize: 4, sliceIndex: 0, numSlices: 1, peerHosts: hosts },
        }),
      );
      await Promise.all(
        specs.map((spec, i) =>
          controller.reconcileUntil(`slice-a-${i}`, [runWithSpec(spec)], (o) => o[0]?.state === TaskState.TASK_STATE_SUCCEEDED),
        ),
      );
      const seen = specs.map((spec) => controller.logs.find((e) => e.attemptUid === spec.attemptUid && e.data.startsWith('slice-a'))?.data);
      expect(seen).toEqual([0, 1, 2, 3].map((i) => `slice-a ${i} ${hosts.join(',')} v5litepod-16 ${i}`));
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
  });
});

describe('GPU workers', () => {
  it('probe nvidia-smi and advertise the canonical variant and count', async () => {
    const bin = join(dir, 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'nvidia-smi'), '#!/bin/sh\necho "NVIDIA H100 80GB HBM3"\necho "NVIDIA H100 80GB HBM3"\n');
    await chmod(join(bin, 'nvidia-smi'), 0o755);
    expect(await probeGpus('nvidia-smi', { ...process.env, PATH: `${bin}:${process.env['PATH'] ?? ''}` })).toEqual({ variant: 'h100', count: 2 });
    expect(await probeGpus(join(dir, 'no-such-tool'))).toBeNull();
    const savedPath = process.env['PATH'];
    process.env['PATH'] = `${bin}:${savedPath ?? ''}`;
    try {
      await using controller = await startFakeController();
      await using worker = await startWorker({ controllerAddress: controller.address, workerId: 'gpu-0', cacheDir: join(dir, 'gpu'), registerRetryInitialMs: 50 });
      await worker.waitForRegistration();
      expect(worker.attributes).toMatchObject({ 'device-type': 'gpu', 'device-variant': 'h100', 'gpu-count': 2 });
      expect(controller.registrations[0]?.metadata?.device).toEqual({ kind: { $case: 'gpu', value: { variant: 'h100', count: 2 } } });
    } finally {
      process.env['PATH'] = savedPath;
    }
  });
});
