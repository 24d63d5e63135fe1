import { exists } from '@marin/rigging';
import { startFakeGcs } from '@marin/rigging/testing';
import type { FakeGcsHandle } from '@marin/rigging/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { buildGcScenario, checkGcEndToEnd } from '../helpers/gc-scenario.js';

let gcs: FakeGcsHandle | undefined;

beforeAll(async () => {
  // This worker, the executor process and every `marin gc` process talk to the emulator.
  gcs = await startFakeGcs({ setEnv: true });
});

afterAll(async () => {
  await gcs?.close();
});

describe('marin gc on a gs:// prefix (fake-gcs-server)', () => {
  it('lists exactly the superseded outputs, deletes them and nothing reachable, never touches a RUNNING step', async () => {
    const prefix = `gs://${await gcs!.createUniqueBucket('executor-gc')}/marin`;
    const scenario = await buildGcScenario(prefix);
    await using _runner = scenario.runner;
    await checkGcEndToEnd(prefix, scenario, (p) => exists(p));
  });
});
