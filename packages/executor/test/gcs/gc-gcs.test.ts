import { randomUUID } from 'node:crypto';
import { exists } from '@marin/rigging';
import { startFakeGcs } from '@marin/rigging/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { buildGcScenario, checkGcEndToEnd } from '../helpers/gc-scenario.js';

let gcs: Awaited<ReturnType<typeof startFakeGcs>> | undefined;

beforeAll(async () => {
  gcs = await startFakeGcs();
  // This worker, the executor process and every `marin gc` process talk to the emulator.
  process.env['STORAGE_EMULATOR_HOST'] = gcs.endpoint;
});

afterAll(async () => {
  await gcs?.close();
});

describe('marin gc on a gs:// prefix (fake-gcs-server)', () => {
  it('lists exactly the superseded outputs, deletes them and nothing reachable, never touches a RUNNING step', async () => {
    const bucket = `executor-gc-${randomUUID().slice(0, 8)}`;
    await gcs!.createBucket(bucket);
    const prefix = `gs://${bucket}/marin`;
    const scenario = await buildGcScenario(prefix);
    await using _runner = scenario.runner;
    await checkGcEndToEnd(prefix, scenario, (p) => exists(p));
  });
});
