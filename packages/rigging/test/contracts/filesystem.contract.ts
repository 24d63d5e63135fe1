import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import type { Filesystem } from '../../src/fs/filesystem.js';
import { createMemoryFilesystem } from '../../src/fs/memory-filesystem.js';

/** A fresh, empty location on one backend. */
export interface FilesystemFixture extends AsyncDisposable {
  /** The backend under test. */
  fs: Filesystem;
  /** A URL prefix with nothing below it. */
  root: string;
}

const enc = (s: string): Buffer => Buffer.from(s, 'utf8');

/** The `Filesystem` behaviours every backend must share (`src/fs/DESIGN.md` lists them). */
export function filesystemContract(name: string, open: () => Promise<FilesystemFixture>): void {
  describe(`Filesystem (${name})`, () => {
    it('round-trips bytes and text', async () => {
      await using f = await open();
      const bytes = Buffer.from([0, 1, 2, 255, 10]);
      await f.fs.writeBytes(`${f.root}/a/b.bin`, bytes);
      await f.fs.writeText(`${f.root}/a/c.txt`, 'héllo\n');
      expect(await f.fs.readBytes(`${f.root}/a/b.bin`)).toEqual(bytes);
      expect(await f.fs.readText(`${f.root}/a/c.txt`)).toBe('héllo\n');
      await f.fs.writeText(`${f.root}/a/c.txt`, 'replaced');
      expect(await f.fs.readText(`${f.root}/a/c.txt`)).toBe('replaced');
    });

    it('reports files and implicit directories through exists, stat and size', async () => {
      await using f = await open();
      await f.fs.writeText(`${f.root}/d/e/f.txt`, '12345');
      expect(await f.fs.exists(`${f.root}/d/e/f.txt`)).toBe(true);
      expect(await f.fs.exists(`${f.root}/d/e`)).toBe(true);
      expect(await f.fs.exists(`${f.root}/d`)).toBe(true);
      expect(await f.fs.exists(`${f.root}/d/nope`)).toBe(false);
      expect(await f.fs.exists(`${f.root}/d/e/f.tx`)).toBe(false);
      const file = await f.fs.stat(`${f.root}/d/e/f.txt`);
      expect(file).toMatchObject({ url: `${f.root}/d/e/f.txt`, type: 'file', size: 5 });
      expect(await f.fs.size(`${f.root}/d/e/f.txt`)).toBe(5);
      expect(await f.fs.stat(`${f.root}/d/e`)).toMatchObject({ type: 'directory', size: 0 });
    });

    it('throws RIGGING_NOT_FOUND for a missing path', async () => {
      await using f = await open();
      const missing = `${f.root}/no/such/object`;
      await expect(f.fs.stat(missing)).rejects.toMatchObject({ code: 'RIGGING_NOT_FOUND', details: { path: missing } });
      await expect(f.fs.size(missing)).rejects.toMatchObject({ code: 'RIGGING_NOT_FOUND' });
      await expect(f.fs.ls(missing)).rejects.toMatchObject({ code: 'RIGGING_NOT_FOUND' });
      await expect(f.fs.readBytes(missing)).rejects.toMatchObject({ code: 'RIGGING_NOT_FOUND' });
      await expect(f.fs.readText(missing)).rejects.toMatchObject({ code: 'RIGGING_NOT_FOUND' });
      await expect(f.fs.createReadStream(missing)).rejects.toMatchObject({ code: 'RIGGING_NOT_FOUND' });
      await expect(f.fs.rm(missing)).rejects.toMatchObject({ code: 'RIGGING_NOT_FOUND' });
      await f.fs.rm(missing, { missingOk: true });
    });

    it('lists direct children sorted by URL, and a file as itself', async () => {
      await using f = await open();
      for (const p of ['z.txt', 'a.txt', 'sub/x.txt', 'sub/deeper/y.txt', 'm/n.txt']) await f.fs.writeText(`${f.root}/${p}`, p);
      const entries = await f.fs.ls(f.root);
      expect(entries.map((e) => [e.url, e.type])).toEqual([
        [`${f.root}/a.txt`, 'file'],
        [`${f.root}/m`, 'directory'],
        [`${f.root}/sub`, 'directory'],
        [`${f.root}/z.txt`, 'file'],
      ]);
      expect((await f.fs.ls(`${f.root}/sub`)).map((e) => e.url)).toEqual([`${f.root}/sub/deeper`, `${f.root}/sub/x.txt`]);
      expect(await f.fs.ls(`${f.root}/a.txt`)).toMatchObject([{ url: `${f.root}/a.txt`, type: 'file', size: 5 }]);
    });

    it('globs with *, ?, **, [...], {a,b} and {1..3}, dropping missing literals', async () => {
      await using f = await open();
      const files = ['data/a1.json', 'data/a2.json', 'data/b3.json', 'data/c.txt', 'data/x/y/deep.json', 'data/x/z.json', 'other/q.json'];
      for (const p of files) await f.fs.writeText(`${f.root}/${p}`, p);
      const g = async (pattern: string) => (await f.fs.glob(`${f.root}/${pattern}`)).map((u) => u.slice(f.root.length + 1));
      expect(await g('data/*.json')).toEqual(['data/a1.json', 'data/a2.json', 'data/b3.json']);
      expect(await g('data/a?.json')).toEqual(['data/a1.json', 'data/a2.json']);
      expect(await g('data/[ab][13].json')).toEqual(['data/a1.json', 'data/b3.json']);
      expect(await g('data/**/*.json')).toEqual(['data/a1.json', 'data/a2.json', 'data/b3.json', 'data/x/y/deep.json', 'data/x/z.json']);
      expect(await g('data/{a,b}{1..3}.json')).toEqual(['data/a1.json', 'data/a2.json', 'data/b3.json']);
      expect(await g('{data,other}/{c.txt,q.json,missing.txt}')).toEqual(['data/c.txt', 'other/q.json']);
      expect(await g('{data/*.txt,data/c.txt}')).toEqual(['data/c.txt']);
      expect(await g('nowhere/*')).toEqual([]);
    });

    it('makes a streamed write visible only when it finishes', async () => {
      await using f = await open();
      const url = `${f.root}/stream/out.bin`;
      const chunks = [Buffer.alloc(70_000, 1), Buffer.alloc(70_000, 2)];
      await pipeline(Readable.from(chunks), await f.fs.createWriteStream(url));
      expect(await f.fs.readBytes(url)).toEqual(Buffer.concat(chunks));
      const ranged = await f.fs.createReadStream(url, { start: 69_999, end: 70_000 });
      const got: Buffer[] = [];
      for await (const c of ranged) got.push(c as Buffer);
      expect(Buffer.concat(got)).toEqual(Buffer.from([1, 2]));
    });

    it('leaves nothing behind when a write stream is destroyed mid-way', async () => {
      await using f = await open();
      const url = `${f.root}/partial/out.bin`;
      const w = await f.fs.createWriteStream(url);
      await new Promise<void>((resolve, reject) => w.write(Buffer.alloc(1000, 7), (e) => (e ? reject(e) : resolve())));
      const closed = new Promise<void>((resolve) => w.on('close', () => resolve()));
      w.on('error', () => undefined);
      w.destroy(new Error('upstream failed'));
      await closed;
      expect(await f.fs.exists(url)).toBe(false);
      expect(await f.fs.glob(`${f.root}/partial/*`)).toEqual([]);
    });

    it('removes a tree recursively and refuses a directory without recursive', async () => {
      await using f = await open();
      await f.fs.writeText(`${f.root}/t/a.txt`, 'a');
      await f.fs.writeText(`${f.root}/t/s/b.txt`, 'b');
      await f.fs.writeText(`${f.root}/keep.txt`, 'k');
      await expect(f.fs.rm(`${f.root}/t`)).rejects.toMatchObject({ code: 'RIGGING_INVALID_ARGUMENT' });
      await f.fs.rm(`${f.root}/t`, { recursive: true });
      expect(await f.fs.exists(`${f.root}/t`)).toBe(false);
      expect(await f.fs.exists(`${f.root}/t/s/b.txt`)).toBe(false);
      await f.fs.rm(`${f.root}/keep.txt`);
      expect(await f.fs.exists(`${f.root}/keep.txt`)).toBe(false);
    });

    it('renames files and directories, replacing the destination', async () => {
      await using f = await open();
      await f.fs.writeText(`${f.root}/f1.txt`, 'one');
      await f.fs.writeText(`${f.root}/f2.txt`, 'two');
      await f.fs.rename(`${f.root}/f1.txt`, `${f.root}/f2.txt`);
      expect(await f.fs.exists(`${f.root}/f1.txt`)).toBe(false);
      expect(await f.fs.readText(`${f.root}/f2.txt`)).toBe('one');

      await f.fs.writeText(`${f.root}/src/a.txt`, 'a');
      await f.fs.writeText(`${f.root}/src/n/b.txt`, 'b');
      await f.fs.writeText(`${f.root}/dst/old.txt`, 'old');
      await f.fs.rename(`${f.root}/src`, `${f.root}/dst`);
      expect(await f.fs.exists(`${f.root}/src`)).toBe(false);
      expect(await f.fs.readText(`${f.root}/dst/a.txt`)).toBe('a');
      expect(await f.fs.readText(`${f.root}/dst/n/b.txt`)).toBe('b');
      expect(await f.fs.exists(`${f.root}/dst/old.txt`)).toBe(false);
    });

    it('copies a file on the same backend and to another backend', async () => {
      await using f = await open();
      await f.fs.writeBytes(`${f.root}/c/src.bin`, enc('payload'));
      await f.fs.copy(`${f.root}/c/src.bin`, `${f.root}/c2/dst.bin`);
      expect(await f.fs.readText(`${f.root}/c2/dst.bin`)).toBe('payload');
      expect(await f.fs.readText(`${f.root}/c/src.bin`)).toBe('payload');
      const other = `memory://contract-copy-${Math.random().toString(16).slice(2)}/x.bin`;
      await f.fs.copy(`${f.root}/c/src.bin`, other);
      expect(await createMemoryFilesystem().readText(other)).toBe('payload');
      await createMemoryFilesystem().copy(other, `${f.root}/c3/back.bin`);
      expect(await f.fs.readText(`${f.root}/c3/back.bin`)).toBe('payload');
      await createMemoryFilesystem().rename(other, `${f.root}/c4/moved.bin`);
      expect(await f.fs.readText(`${f.root}/c4/moved.bin`)).toBe('payload');
      expect(await createMemoryFilesystem().exists(other)).toBe(false);
    });

    it('creates directories with mkdirs without failing on object stores', async () => {
      await using f = await open();
      await f.fs.mkdirs(`${f.root}/made/here`);
      await f.fs.writeText(`${f.root}/made/here/x.txt`, 'x');
      expect(await f.fs.exists(`${f.root}/made/here`)).toBe(true);
    });
  });
}
