import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkCoPartitioned, listPartFiles, partFileName } from './attribute-dataset.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'attributes-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function dataset(name: string, files: string[]): Promise<string> {
  await mkdir(join(dir, name), { recursive: true });
  for (const f of files) await writeFile(join(dir, name, f), '');
  return join(dir, name);
}

describe('listPartFiles()', () => {
  it('lists part-i-of-N files in order, ignoring other entries', async () => {
    const d = await dataset('src', [partFileName(1, 2), partFileName(0, 2), '.artifact', 'notes.txt']);
    expect(await listPartFiles(d)).toEqual([join(d, 'part-00000-of-00002.parquet'), join(d, 'part-00001-of-00002.parquet')]);
  });

  it('refuses an incomplete set of parts and an empty directory', async () => {
    await expect(listPartFiles(await dataset('gap', [partFileName(0, 3), partFileName(2, 3)]))).rejects.toMatchObject({ code: 'PIPELINE_INPUT_INVALID' });
    await expect(listPartFiles(await dataset('empty', []))).rejects.toMatchObject({ code: 'PIPELINE_INPUT_NOT_FOUND' });
  });
});

describe('checkCoPartitioned()', () => {
  it('returns each attribute dataset’s parts when their names match the source', async () => {
    const src = await dataset('src', [partFileName(0, 2), partFileName(1, 2)]);
    const attr = await dataset('attr', [partFileName(0, 2), partFileName(1, 2)]);
    expect(await checkCoPartitioned(src, [attr])).toEqual([[join(attr, partFileName(0, 2)), join(attr, partFileName(1, 2))]]);
  });

  it('refuses an attribute dataset partitioned differently, naming it', async () => {
    const src = await dataset('src', [partFileName(0, 2), partFileName(1, 2)]);
    const attr = await dataset('attr', [partFileName(0, 3), partFileName(1, 3), partFileName(2, 3)]);
    await expect(checkCoPartitioned(src, [attr])).rejects.toMatchObject({ code: 'PIPELINE_INPUT_INVALID', details: { path: attr } });
  });
});
