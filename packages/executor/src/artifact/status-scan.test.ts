import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/helpers/temp-dir.js';
import type { TempDir } from '../../test/helpers/temp-dir.js';
import { STATUS_FILE } from '../status/status-store.js';
import { readStatuses } from './status-scan.js';

let tmp: TempDir;
beforeEach(async () => {
  tmp = await makeTempDir('status-scan');
});
afterEach(async () => {
  await tmp.close();
});

async function status(out: string, text: string): Promise<void> {
  await mkdir(out, { recursive: true });
  await writeFile(join(out, STATUS_FILE), text);
}

describe('readStatuses()', () => {
  it('reads each output once, index-aligned, across missing names, missing versions and built siblings', async () => {
    const p = tmp.path;
    await status(join(p, 'a/x/2026.11.25'), 'SUCCESS');
    await status(join(p, 'a/y/2026.11.25'), 'FAILED');
    await mkdir(join(p, 'a/z/2026.11.25'), { recursive: true }); // a directory without a status
    const outs = [
      join(p, 'missing/n0/2026.11.25'), // remembered as missing: the next one costs no stat
      join(p, 'missing/n1/2026.11.25'),
      join(p, 'a/x/2026.11.25'),
      join(p, 'a/z/2026.11.25'),
      join(p, 'a/x/2026.11.26'), // a missing version beside a built one
      join(p, 'a/y/2026.11.25'),
      `file://${join(p, 'a/x/2026.11.25')}`,
    ];
    expect(await readStatuses(outs)).toEqual([null, null, 'SUCCESS', null, null, 'FAILED', 'SUCCESS']);
  });

  it('sees a status written after an earlier scan found its directory missing', async () => {
    const out = join(tmp.path, 'late/n0/2026.11.25');
    expect(await readStatuses([out])).toEqual([null]);
    await status(out, 'SUCCESS');
    expect(await readStatuses([out])).toEqual(['SUCCESS']);
  });
});
