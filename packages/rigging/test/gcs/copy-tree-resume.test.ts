import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { copyTree, listFilesRecursive } from '../../src/fs/copy-tree.js';
import { filesystemFor } from '../../src/fs/registry.js';
import { writeBytes, writeText } from '../../src/fs/verbs.js';
import { createTestBucket, gcsEndpoint } from '../helpers/gcs-buckets.js';

const RUNNER = fileURLToPath(new URL('../helpers/copy-tree-runner.ts', import.meta.url));
const FILES = 125;

describe('copyTree() to gs:// after an interrupted copy', () => {
  it('resumes a SIGKILLed copy to exactly the source objects, removing staged leftovers, and never lists staging names', async () => {
    const bucket = await createTestBucket('tree-resume');
    const dir = await mkdtemp(join(tmpdir(), 'rigging-gcs-resume-'));
    try {
      const src = join(dir, 'src');
      const expected: string[] = [];
      for (let i = 0; i < FILES; i++) {
        const rel = `shard-${i % 5}/part-${String(i).padStart(3, '0')}.bin`;
        await writeBytes(join(src, rel), Buffer.alloc(32 * 1024, i));
        expected.push(rel);
      }
      expected.sort();
      const dst = `gs://${bucket}/copy`;
      const fs = filesystemFor(dst);
      const raw = async (): Promise<string[]> =>
        (await listFilesRecursive(fs, dst, { includeTemporary: true }).catch(() => [])).map((f) => f.rel);

      // A real copy process, killed part-way through.
      const child = spawn(process.execPath, ['--conditions=@marin/source', '--import', 'tsx', RUNNER, src, dst, '2'], {
        env: { ...process.env, STORAGE_EMULATOR_HOST: gcsEndpoint() },
        stdio: 'ignore',
      });
      const exited = new Promise((resolve) => child.on('exit', resolve));
      while ((await raw()).length < 20) await sleep(20);
      child.kill('SIGKILL');
      await exited;
      const partial = await raw();
      expect(partial.length).toBeLessThan(FILES);

      // What an earlier, staging copy killed between upload and rename leaves behind.
      const staged = expected.slice(-5).map((rel) => `${rel}.tmp.${'0f'.repeat(16)}`);
      for (const t of staged) await writeText(`${dst}/${t}`, 'partial');
      expect((await fs.ls(`${dst}/shard-4`)).some((e) => e.url.includes('.tmp.'))).toBe(false);

      const resumed = await copyTree(src, dst);
      expect(resumed.removedTemporary).toBe(5);
      expect(resumed.copiedFiles + resumed.skippedFiles).toBe(FILES);
      expect(await raw()).toEqual(expected);
      expect(await copyTree(src, dst)).toEqual({ copiedFiles: 0, skippedFiles: FILES, copiedBytes: 0, removedTemporary: 0 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
