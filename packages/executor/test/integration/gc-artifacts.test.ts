import { stat } from 'node:fs/promises';
import { describe, it } from 'vitest';
import { checkArtifactGc } from '../helpers/gc-artifact-scenario.js';
import { makeTempDir } from '../helpers/temp-dir.js';

describe('marin gc over artifacts on a local prefix', () => {
  it('collects unreferenced {name}/{version} artifacts with their records and keeps the live versions', { timeout: 120_000 }, async () => {
    await using tmp = await makeTempDir('exec-gc-artifacts');
    await checkArtifactGc(tmp.path, async (p) => stat(p).then(() => true, () => false));
  });
});
