// Behaviour every Fray backend shares; run against the local backend and against an embedded Iris cluster.
import { describe, expect, it } from 'vitest';
import { Entrypoint, JobFailed, waitAll } from '@marin/fray';
import type { Client } from '@marin/fray';

function uniqueName(base: string): string {
  return `${base}-${Math.random().toString(16).slice(2, 8)}`;
}

const node = (script: string) => Entrypoint.fromBinary('node', ['-e', script]);

/** Registers the shared client behaviour for one backend; `open` returns a fresh client per test. */
export function clientContract(backend: string, open: () => Client): void {
  describe(`Client contract (${backend})`, () => {
    it('runs a binary to succeeded and reports exit 3 as failed, raising JobFailed on wait', async () => {
      await using client = open();
      const ok = await client.submit({ name: uniqueName('c-ok'), entrypoint: node('console.log("contract out")') });
      const bad = await client.submit({ name: uniqueName('c-bad'), entrypoint: node('process.exit(3)') });
      expect(await waitAll([ok, bad], { raiseOnFailure: false })).toEqual(['succeeded', 'failed']);
      expect(await ok.logs()).toContain('contract out');
      const err = await bad.wait().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(JobFailed);
      expect(err).toMatchObject({ code: 'FRAY_JOB_FAILED', jobId: bad.jobId, failedStatus: 'failed' });
    });

    it('terminates a running binary to stopped', async () => {
      await using client = open();
      const job = await client.submit({ name: uniqueName('c-stop'), entrypoint: node('setTimeout(() => {}, 60000)') });
      await expect(job.wait({ timeoutMs: 200 })).rejects.toMatchObject({ code: 'FRAY_WAIT_TIMEOUT', jobIds: [job.jobId] });
      await job.terminate();
      expect(await job.wait({ raiseOnFailure: false })).toBe('stopped');
    });

    it('adopts an existing job by name, or throws JobAlreadyExists', async () => {
      await using client = open();
      const request = { name: uniqueName('c-same'), entrypoint: node('setTimeout(() => {}, 60000)') };
      const first = await client.submit(request);
      expect((await client.submit(request)).jobId).toBe(first.jobId);
      await expect(client.submit(request, { adoptExisting: false })).rejects.toMatchObject({ code: 'FRAY_JOB_ALREADY_EXISTS', jobName: request.name });
      await first.terminate();
    });

    it('rejects invalid names and non-portable requests before running anything', async () => {
      await using client = open();
      for (const name of ['has space', 'a/b', 'a:b', '42']) {
        await expect(client.submit({ name, entrypoint: node('') })).rejects.toMatchObject({ code: 'FRAY_INVALID_ARGUMENT' });
      }
    });
  });
}
