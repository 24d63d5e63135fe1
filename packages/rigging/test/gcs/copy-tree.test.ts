import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyTree } from '../../src/fs/copy-tree.js';
import { fetchFileAtomic } from '../../src/fs/fetch-file-atomic.js';
import { readText, writeText } from '../../src/fs/verbs.js';
import { createTestBucket } from '../helpers/gcs-buckets.js';

describe('copyTree() on gs://', () => {
  it('copies gs:// → local → gs:// and resumes by size', async () => {
    const bucket = await createTestBucket('tree');
    const dir = await mkdtemp(join(tmpdir(), 'rigging-gcs-tree-'));
    try {
      await writeText(`gs://${bucket}/src/a.txt`, 'aa');
      await writeText(`gs://${bucket}/src/d/b.txt`, 'bbb');
      expect(await copyTree(`gs://${bucket}/src`, `${dir}/local`)).toEqual({ copiedFiles: 2, skippedFiles: 0, copiedBytes: 5, removedTemporary: 0 });
      expect(await readText(`${dir}/local/d/b.txt`)).toBe('bbb');
      expect(await copyTree(`${dir}/local`, `gs://${bucket}/dst`)).toMatchObject({ copiedFiles: 2 });
      expect(await copyTree(`gs://${bucket}/src`, `gs://${bucket}/dst`, { mode: 'resume' })).toEqual({ copiedFiles: 0, skippedFiles: 2, copiedBytes: 0, removedTemporary: 0 });
      expect(await copyTree(`gs://${bucket}/src`, `gs://${bucket}/dst`, { mode: 'overwrite' })).toMatchObject({ copiedFiles: 2 });
      expect(await fetchFileAtomic(`gs://${bucket}/src/a.txt`, `${dir}/fetched.txt`)).toBe(true);
      expect(await fetchFileAtomic(`gs://${bucket}/src/none.txt`, `${dir}/none.txt`)).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
