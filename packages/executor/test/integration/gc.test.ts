import { stat } from 'node:fs/promises';
import { describe, it } from 'vitest';
import { buildGcScenario, checkGcEndToEnd } from '../helpers/gc-scenario.js';
import { makeTempDir } from '../helpers/temp-dir.js';

describe('marin gc on a local prefix', () => {
  it('lists exactly the superseded outputs, deletes them and nothing reachable, never touches a RUNNING step', { timeout: 120_000 }, async () => {
    await using tmp = await makeTempDir('exec-gc');
    const scenario = await buildGcScenario(tmp.path);
    await using _runner = scenario.runner;
    await checkGcEndToEnd(tmp.path, scenario, async (p) => stat(p).then(() => true, () => false));
  });
});
