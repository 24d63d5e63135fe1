// An actor called through the Iris controller's endpoint proxy (for callers outside the workers' network), on a
// real embedded cluster with per-user API keys: the job's owner gets through, another user is refused.
import { readFileSync } from 'node:fs';
import { createIrisClient, startLocalCluster } from '@marin/iris';
import type { LocalClusterHandle } from '@marin/iris';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Entrypoint, connectIrisActor, createIrisBackend } from '@marin/fray';
import type { FrayLogger } from '@marin/fray';

const quiet: FrayLogger = { info: () => undefined, warn: () => undefined };
let cluster: LocalClusterHandle;
let aliceKey: string;
let bobKey: string;

beforeAll(async () => {
  cluster = await startLocalCluster({ workers: 1, cpuMillicores: 8_000, termTimeoutMs: 1000, authMode: 'api-keys', authToken: 'proxy-actors-worker-secret', bootstrapAdmin: 'root' });
  await using admin = createIrisClient({ address: cluster.address, token: readFileSync(cluster.controller.bootstrapKeyFile!, 'utf8').trim() });
  aliceKey = (await admin.createApiKey({ user: 'alice' })).key;
  bobKey = (await admin.createApiKey({ user: 'bob' })).key;
});
afterAll(async () => {
  await cluster?.close();
});

describe('connectIrisActor({ viaProxy })', () => {
  it('calls an actor through the controller, for its owner only', async () => {
    await using fray = createIrisBackend({ controller: cluster.address, token: aliceKey, inPlace: true, logger: quiet });
    const job = await fray.submit({
      name: `proxied-${Math.random().toString(16).slice(2, 8)}`,
      entrypoint: Entrypoint.fromModule({ module: 'packages/fray/test/fixtures/actors.ts', exportName: 'hostCounterInJob', args: null }),
    });
    const name = `${job.jobId}/counter`;
    await using direct = await connectIrisActor(name, { controller: cluster.address, token: aliceKey, timeoutMs: 60_000 });
    expect(await direct.call('add', 1)).toBe(1);

    // `true`: the dashboard address the controller reports; a string: that address as this caller reaches it.
    await using proxied = await connectIrisActor(name, { controller: cluster.address, token: aliceKey, viaProxy: true });
    expect(await proxied.call('add', 2)).toBe(3);
    expect((await proxied.health()).name).toBe('job-counter');
    const blob = Buffer.alloc(256 * 1024, 7);
    expect(await proxied.call('echo', blob)).toEqual(blob);
    await using byAddress = await connectIrisActor(name, { controller: cluster.address, token: aliceKey, viaProxy: cluster.dashboardUrl! });
    expect(await byAddress.call('add', 3)).toBe(6);

    // Another user's key is refused by the proxy: a non-retryable error at once, the controller's status as its cause.
    await using bob = await connectIrisActor(name, { controller: cluster.address, token: bobKey, viaProxy: true });
    const refused = await bob.callWithOptions('add', [100], { timeoutMs: 20_000 }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'FRAY_INVALID_ARGUMENT', retryable: false });
    expect((refused as { cause?: { metadata?: { get(k: string): unknown[] } } }).cause?.metadata?.get('iris-error-code')).toEqual(['IRIS_PERMISSION_DENIED']);
    expect(await direct.call('add', 0)).toBe(6); // bob's call never reached the actor

    await job.terminate();
  });
});
