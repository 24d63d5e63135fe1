import { Client, credentials, status } from '@grpc/grpc-js';
import type { ServiceError } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { startLocalCluster } from '../../src/cluster/local-cluster.js';

describe('failures the job causes fail fast', () => {
  it('ends a job whose binary does not exist FAILED after one attempt, spending no worker-failure retries', async () => {
    await using cluster = await startLocalCluster({ workers: 1 });
    await using client = cluster.client();
    const jobId = await client.launchJob({ name: '/alice/missing-binary', command: ['/no/such/program'] });
    const job = await client.waitForJob(jobId, { timeoutMs: 30_000 });
    expect(job).toMatchObject({ state: 'FAILED', failureCount: 1, preemptionCount: 0 });
    expect(job.tasks[0]!.attempts).toHaveLength(1);
    expect(job.tasks[0]!.attempts[0]).toMatchObject({ state: 'FAILED', exitCode: 127, isWorkerFailure: false });
  });

  it('refuses a job naming a bundle the controller does not have with IRIS_NOT_FOUND', async () => {
    await using cluster = await startLocalCluster({ workers: 1 });
    await using client = cluster.client();
    await expect(client.launchJob({ name: '/alice/no-bundle', command: ['true'] }, { bundle: { bundleId: 'a'.repeat(64) } })).rejects.toMatchObject({
      code: 'IRIS_NOT_FOUND',
    });
  });

  it('answers a request that does not decode with INVALID_ARGUMENT, not INTERNAL', async () => {
    await using cluster = await startLocalCluster({ workers: 1 });
    const raw = new Client(cluster.address, credentials.createInsecure());
    const err = await new Promise<ServiceError | null>((resolve) => {
      raw.makeUnaryRequest(
        '/iris.v1.ControllerService/LaunchJob',
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), // field 1 claims 4 GiB of string
        (e) => resolve(e),
      );
    });
    raw.close();
    expect(err).toMatchObject({ code: status.INVALID_ARGUMENT });
    expect(err?.metadata.get('iris-error-code')).toEqual(['IRIS_INVALID_ARGUMENT']);
  });
});
