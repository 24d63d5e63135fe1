// The actor contract on a real local Ray head: each actor is a Ray job (Jobs API) hosting the actor's gRPC
// endpoint; its address comes from the ready line in the job's log, restarts are new jobs.
import { afterAll, beforeAll } from 'vitest';
import { createJobActorBackend, createRayClient, silentLogger } from '@marin/fray';
import { startRayHead } from '@marin/fray/testing';
import type { RayHead } from '@marin/fray/testing';
import { actorContract, pythonEntries } from '../contracts/actor.contract.js';

let head: RayHead | undefined;

beforeAll(async () => {
  // Many actors at once: each Ray job reserves a logical CPU for its entrypoint only when asked, so 8 is plenty.
  head = await startRayHead({ numCpus: 8 });
}, 200_000); // the head may take up to 150 s under a full test run (startTimeoutMs)
afterAll(async () => {
  await head?.close();
});

actorContract('ray, a job hosting the endpoint', {
  open: () =>
    createJobActorBackend({
      client: createRayClient({ address: head?.address ?? '', python: head?.python ?? 'python', logger: silentLogger, jobPrefix: `a${Date.now().toString(36)}-` }),
      ownsClient: true,
    }),
  readyTimeoutMs: 10_000,
});

// Python entries: each Ray job gets the fixtures' lock as its pythonEnv (built on the node by Fray's launcher) and
// runs the Python host as the child of runActorHost, whose ready line carries the Python process's address.
actorContract('ray, a job hosting the endpoint, Python entries', {
  open: () =>
    createJobActorBackend({
      client: createRayClient({ address: head?.address ?? '', python: head?.python ?? 'python', logger: silentLogger, jobPrefix: `p${Date.now().toString(36)}-` }),
      ownsClient: true,
    }),
  readyTimeoutMs: 10_000,
  entries: pythonEntries(),
});
