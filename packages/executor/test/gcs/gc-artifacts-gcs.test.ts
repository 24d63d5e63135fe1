import { exists } from '@marin/rigging';
import { startFakeGcs } from '@marin/rigging/testing';
import type { FakeGcsHandle } from '@marin/rigging/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { checkArtifactGc } from '../helpers/gc-artifact-scenario.js';

let gcs: FakeGcsHandle | undefined;

beforeAll(async () => {
  // This worker and every `marin gc` process talk to the emulator.
  gcs = await startFakeGcs({ setEnv: true });
});

afterAll(async () => {
  await gcs?.close();
});

describe('marin gc over artifacts on a gs:// prefix (fake-gcs-server)', () => {
  it('collects unreferenced {name}/{version} artifacts with their records and keeps the live versions', async () => {
    const prefix = `gs://${await gcs!.createUniqueBucket('executor-gc-artifacts')}/marin`;
    await checkArtifactGc(prefix, (p) => exists(p));
  });
});
