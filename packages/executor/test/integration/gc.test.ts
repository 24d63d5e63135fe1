import { mkdir, realpath, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { buildGcScenario, checkGcEndToEnd } from '../helpers/gc-scenario.js';
import { checkGcSpellings } from '../helpers/gc-spelling.js';
import { makeTempDir } from '../helpers/temp-dir.js';

describe('marin gc on a local prefix', () => {
  it('lists exactly the superseded outputs, deletes them and nothing reachable, never touches a RUNNING step', { timeout: 120_000 }, async () => {
    await using tmp = await makeTempDir('exec-gc');
    const scenario = await buildGcScenario(tmp.path);
    await using _runner = scenario.runner;
    await checkGcEndToEnd(tmp.path, scenario, async (p) => stat(p).then(() => true, () => false));
  });
});

describe('marin gc compares paths canonically on a local prefix', () => {
  it('a prefix given through a symlink, with // or /./ lists only stale outputs; references outside it are reported, never deleted', { timeout: 120_000 }, async () => {
    await using tmp = await makeTempDir('exec-gc-spell');
    const base = await realpath(tmp.path);
    const prefix = join(base, 'real');
    await mkdir(prefix);
    await symlink(prefix, join(base, 'link'));
    await checkGcSpellings(prefix, join(base, 'elsewhere'), [join(base, 'link'), `${base}//real`, `${base}/./real/`, `${base}/link//./`], async (p) => stat(p).then(() => true, () => false));
  });
});
