// The actor contract on a real embedded Iris cluster: each actor is an Iris job that registers its endpoint with
// the controller; handles resolve it there.
import { startLocalCluster } from '@marin/iris';
import type { LocalClusterHandle } from '@marin/iris';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Entrypoint, connectIrisActor, createIrisActorBackend, createIrisBackend, createJobActorBackend } from '@marin/fray';
import type { FrayLogger } from '@marin/fray';
import { actorContract, pythonEntries } from '../contracts/actor.contract.js';

const quiet: FrayLogger = { info: () => undefined, warn: () => undefined };
let cluster: LocalClusterHandle;

beforeAll(async () => {
  cluster = await startLocalCluster({ workers: 2, cpuMillicores: 16_000, termTimeoutMs: 1000 });
});
afterAll(async () => {
  await cluster.close();
});

actorContract('iris, in place', { open: () => createIrisActorBackend({ controller: cluster.address, inPlace: true, logger: quiet }), readyTimeoutMs: 8_000 });

// Python entries: the actor job runs with the fixtures' lock as its pythonEnv (built by the worker) and starts the
// Python host as its child, registering the endpoint for it.
actorContract('iris, in place, Python entries', {
  open: () => createIrisActorBackend({ controller: cluster.address, inPlace: true, logger: quiet }),
  readyTimeoutMs: 8_000,
  entries: pythonEntries(),
});

// The generic job backend (the one Ray uses: address from the job's log, restarts as new jobs) over Iris jobs.
actorContract('iris jobs through the job backend', {
  open: () => createJobActorBackend({ client: createIrisBackend({ controller: cluster.address, inPlace: true, logger: quiet }), ownsClient: true }),
  readyTimeoutMs: 8_000,
});

// Python entries through the job backend (Ray's path: the address from the ready line in the job's log, restarts as
// new jobs, the lock as each job's pythonEnv), here over Iris jobs.
actorContract('iris jobs through the job backend, Python entries', {
  open: () => createJobActorBackend({ client: createIrisBackend({ controller: cluster.address, inPlace: true, logger: quiet }), ownsClient: true }),
  readyTimeoutMs: 8_000,
  entries: pythonEntries(),
});

describe('Iris actor endpoints', () => {
  it('registers the endpoint "<job id>/actor" while the actor serves and drops it with the task', async () => {
    await using backend = createIrisActorBackend({ controller: cluster.address, inPlace: true, logger: quiet });
    const actor = await backend.createActor({ module: 'packages/fray/test/fixtures/actors.ts', exportName: 'Counter' }, { name: 'endpoint-probe' });
    await using iris = cluster.client();
    const mine = async () => (await iris.listEndpoints({ prefix: '/' })).filter((e) => e.metadata['actor'] === 'endpoint-probe');
    const registered = await mine();
    expect(registered).toHaveLength(1);
    expect(registered[0]?.name).toMatch(/\/actor$/);
    expect(await actor.call('add', 1)).toBe(1);
    await actor.close();
    await expect.poll(async () => (await mine()).length, { timeout: 30_000, interval: 200 }).toBe(0);
  });

  it('finds an actor a running job hosts with hostActor({ irisEndpoint }) through connectIrisActor', async () => {
    await using fray = createIrisBackend({ controller: cluster.address, inPlace: true, logger: quiet });
    const job = await fray.submit({
      name: `host-in-job-${Math.random().toString(16).slice(2, 8)}`,
      entrypoint: Entrypoint.fromModule({ module: 'packages/fray/test/fixtures/actors.ts', exportName: 'hostCounterInJob', args: null }),
    });
    await using actor = await connectIrisActor(`${job.jobId}/counter`, { controller: cluster.address, timeoutMs: 60_000 });
    expect(await actor.call('add', 2)).toBe(2);
    expect((await actor.health()).name).toBe('job-counter');
    await job.terminate();
    await using iris = cluster.client();
    await expect.poll(async () => (await iris.listEndpoints({ exact: `${job.jobId}/counter` })).length, { timeout: 30_000, interval: 200 }).toBe(0);
    await expect(connectIrisActor('/nobody/none/counter', { controller: cluster.address, timeoutMs: 300 })).rejects.toMatchObject({ code: 'FRAY_ACTOR_NOT_READY' });
  });
});
