import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { runGcRace } from '../helpers/gc-race.js';
import { makeTempDir } from '../helpers/temp-dir.js';

describe('marin gc --delete racing real executors on a local prefix', () => {
  it('deletes nothing any executor uses and every truly stale output, round after round', { timeout: 600_000 }, async () => {
    await using tmp = await makeTempDir('exec-gc-race');
    await runGcRace({
      rounds: 5,
      fillers: 300,
      scratch: tmp.path,
      prefix: async (round) => {
        const p = join(tmp.path, `round-${round}`);
        await mkdir(p);
        return p;
      },
      exists: (p) => stat(p).then(() => true, () => false),
    });
  });
});
