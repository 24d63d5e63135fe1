import { exists } from '@marin/rigging';
import { startFakeGcs } from '@marin/rigging/testing';
import type { FakeGcsHandle } from '@marin/rigging/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { runGcRace } from '../helpers/gc-race.js';
import { checkGcSpellings } from '../helpers/gc-spelling.js';
import { makeTempDir } from '../helpers/temp-dir.js';

let gcs: FakeGcsHandle | undefined;

beforeAll(async () => {
  // This worker, every executor process and every `marin gc` process talk to the emulator.
  gcs = await startFakeGcs({ setEnv: true });
});

afterAll(async () => {
  await gcs?.close();
});

describe('marin gc --delete racing real executors on a gs:// prefix (fake-gcs-server)', () => {
  it('deletes nothing any executor uses and every truly stale output, round after round', { timeout: 900_000 }, async () => {
    await using tmp = await makeTempDir('exec-gc-race-gcs');
    const bucket = await gcs!.createUniqueBucket('executor-gc-race');
    await runGcRace({ rounds: 5, fillers: 150, scratch: tmp.path, prefix: async (round) => `gs://${bucket}/round-${round}`, exists: (p) => exists(p) });
  });

  it('a prefix spelled with // or /./ lists only stale outputs; references outside it are reported, never deleted', async () => {
    const bucket = await gcs!.createUniqueBucket('executor-gc-spell');
    await checkGcSpellings(`gs://${bucket}/marin`, `gs://${bucket}/elsewhere`, [`gs://${bucket}//marin`, `gs://${bucket}/marin/./`, `gs://${bucket}/./marin//`], (p) => exists(p));
  });
});
