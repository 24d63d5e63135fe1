import { createHash } from 'node:crypto';
import { createReadStream as fsCreateReadStream } from 'node:fs';
import { constants as fsConstants, copyFile, cp, open, readFile, readdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Writable } from 'node:stream';
import type { Readable } from 'node:stream';
import { fsError, mapFsErrors, wrapFsError } from '../internal/fs-error.js';
import { withLocalGuard } from './local-guard.js';
import type { ByteRange, ConditionalFilesystem, FileInfo, LsOptions, RmOptions, VersionedBytes } from './filesystem.js';
import { globWith } from './glob-pattern.js';
import { schemeOf } from './storage-path.js';
import { lookupFilesystem, streamCopy } from './stream-copy.js';
import { hasTempSegment, isTempPath, uniqueTempPath } from './temp-path.js';
import { ensureDir } from './ensure-dir.js';

/** The OS path of a bare path or `file://` URL. */
export function localPathOf(url: string): string {
  const m = /^file:\/\/(.*)$/is.exec(url);
  if (m === null) return url;
  const rest = m[1] ?? '';
  return rest.startsWith('/') ? rest : `/${rest}`;
}

function childUrl(base: string, name: string): string {
  const b = base.replace(/(?<=[^/])\/+$/, '');
  return b === '' ? name : b.endsWith('/') ? `${b}${name}` : `${b}/${name}`;
}


function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

function isLocalUrl(url: string): boolean {
  const s = schemeOf(url);
  return s === null || s === 'file';
}

async function atomicWriteFile(path: string, data: Uint8Array): Promise<void> {
  await ensureDir(dirname(path));
  const tmp = uniqueTempPath(path);
  try {
    await writeFile(tmp, data);
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}

/** A write stream into a temp sibling that is renamed into place on finish and removed on destroy. */
async function openAtomicWriteStream(path: string): Promise<Writable> {
  await ensureDir(dirname(path));
  const tmp = uniqueTempPath(path);
  const fh: FileHandle = await open(tmp, 'w');
  let settled = false;
  // The rename of a finishing stream; a destroy that arrives meanwhile waits for it, so 'close' is only
  // emitted once no more file operations are in flight (callers clean up after 'close').
  let finishing: Promise<unknown> = Promise.resolve();
  return new Writable({
    highWaterMark: 8 * 1024 * 1024,
    write(chunk: Buffer, _enc, cb) {
      fh.write(chunk).then(() => cb(), cb);
    },
    writev(chunks, cb) {
      fh.writev(chunks.map((c) => c.chunk as Buffer)).then(() => cb(), cb);
    },
    final(cb) {
      settled = true;
      finishing = fh
        .close()
        .then(() => rename(tmp, path))
        .then(
          () => cb(),
          (err: unknown) => {
            void rm(tmp, { force: true }).finally(() => cb(err as Error));
          },
        );
    },
    destroy(err, cb) {
      if (settled) {
        void finishing.finally(() => cb(err));
        return;
      }
      settled = true;
      void fh
        .close()
        .catch(() => undefined)
        .then(() => rm(tmp, { force: true }))
        .catch(() => undefined)
        .then(() => cb(err));
    },
  });
}

class LocalFilesystem implements ConditionalFilesystem {
  private async info(url: string): Promise<FileInfo> {
    const st = await stat(localPathOf(url));
    const type = st.isDirectory() ? 'directory' : 'file';
    return { url, type, size: type === 'file' ? st.size : 0, mtimeMs: st.mtimeMs, version: null };
  }

  async exists(url: string): Promise<boolean> {
    try {
      await stat(localPathOf(url));
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return false;
      throw wrapFsError(err, url, 'exists');
    }
  }

  async stat(url: string): Promise<FileInfo> {
    return mapFsErrors(url, 'stat', () => this.info(url));
  }

  async size(url: string): Promise<number> {
    return (await this.stat(url)).size;
  }

  async ls(url: string, opts: LsOptions = {}): Promise<FileInfo[]> {
    return mapFsErrors(url, 'ls', async () => {
      const self = await this.info(url);
      if (self.type === 'file') return [self];
      const names = (await readdir(localPathOf(url))).filter((n) => opts.includeTemporary === true || !isTempPath(n));
      const infos = await Promise.all(
        names.map((n) => this.info(childUrl(url, n)).catch(() => null)), // vanished meanwhile
      );
      return infos.filter((i): i is FileInfo => i !== null).sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
    });
  }

  private async walk(base: string): Promise<string[]> {
    const path = localPathOf(base === '' ? '.' : base);
    try {
      const entries = await readdir(path, { recursive: true });
      return entries.map((e) => e.split('\\').join('/')).filter((e) => !hasTempSegment(e));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return [];
      throw err;
    }
  }

  async glob(pattern: string): Promise<string[]> {
    return mapFsErrors(pattern, 'glob', () =>
      globWith(pattern, { exists: (u) => this.exists(u), walk: (b) => this.walk(b) }),
    );
  }

  async createReadStream(url: string, range?: ByteRange): Promise<Readable> {
    return mapFsErrors(url, 'read', async () => {
      const path = localPathOf(url);
      const st = await stat(path);
      if (st.isDirectory()) throw fsError('RIGGING_INVALID_ARGUMENT', `cannot read directory "${url}"`, { path: url, operation: 'read' });
      return fsCreateReadStream(path, { start: range?.start, end: range?.end, highWaterMark: 8 * 1024 * 1024 });
    });
  }

  async createWriteStream(url: string): Promise<Writable> {
    return mapFsErrors(url, 'write', () => openAtomicWriteStream(localPathOf(url)));
  }

  async readBytes(url: string): Promise<Buffer> {
    return mapFsErrors(url, 'read', () => readFile(localPathOf(url)));
  }

  async readText(url: string): Promise<string> {
    return (await this.readBytes(url)).toString('utf8');
  }

  async writeBytes(url: string, data: Uint8Array): Promise<void> {
    await mapFsErrors(url, 'write', () => atomicWriteFile(localPathOf(url), data));
  }

  async writeText(url: string, text: string): Promise<void> {
    await this.writeBytes(url, Buffer.from(text, 'utf8'));
  }

  async mkdirs(url: string): Promise<void> {
    await mapFsErrors(url, 'mkdirs', async () => {
      await ensureDir(localPathOf(url));
    });
  }

  async rm(url: string, opts: RmOptions = {}): Promise<void> {
    await mapFsErrors(url, 'rm', async () => {
      const path = localPathOf(url);
      let st;
      try {
        st = await stat(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT' && opts.missingOk === true) return;
        throw err;
      }
      if (st.isDirectory() && opts.recursive !== true) {
        throw fsError('RIGGING_INVALID_ARGUMENT', `cannot rm directory "${url}" without recursive: true`, { path: url, operation: 'rm' });
      }
      await rm(path, { recursive: true, force: true });
    });
  }

  async rename(src: string, dst: string): Promise<void> {
    await mapFsErrors(src, 'rename', async () => {
      if (!isLocalUrl(dst)) {
        const dstFs = lookupFilesystem(dst);
        const info = await this.info(src);
        if (info.type === 'file') await streamCopy(this, src, dstFs, dst);
        else {
          await dstFs.rm(dst, { recursive: true, missingOk: true });
          for (const rel of await this.walk(src)) {
            const child = childUrl(src, rel);
            if ((await this.info(child)).type === 'file') await streamCopy(this, child, dstFs, childUrl(dst, rel));
          }
        }
        await this.rm(src, { recursive: true });
        return;
      }
      const from = localPathOf(src);
      const to = localPathOf(dst);
      const srcStat = await stat(from);
      await ensureDir(dirname(to));
      const dstStat = await stat(to).catch(() => null);
      // fs.rename cannot replace a non-empty directory, and a file cannot replace a directory.
      if (dstStat !== null && (dstStat.isDirectory() || srcStat.isDirectory())) await rm(to, { recursive: true, force: true });
      try {
        await rename(from, to);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
        await cp(from, to, { recursive: true });
        await rm(from, { recursive: true, force: true });
      }
    });
  }

  async copy(src: string, dst: string): Promise<void> {
    await mapFsErrors(src, 'copy', async () => {
      if (!isLocalUrl(dst)) {
        await streamCopy(this, src, lookupFilesystem(dst), dst);
        return;
      }
      const to = localPathOf(dst);
      await ensureDir(dirname(to));
      const tmp = uniqueTempPath(to);
      try {
        // Clone where the filesystem can (like `cp --reflink=auto`), else an in-kernel copy.
        await copyFile(localPathOf(src), tmp, fsConstants.COPYFILE_FICLONE);
        await rename(tmp, to);
      } catch (err) {
        await rm(tmp, { force: true }).catch(() => undefined);
        throw err;
      }
    });
  }

  async readVersioned(url: string): Promise<VersionedBytes | null> {
    return mapFsErrors(url, 'read', async () => {
      try {
        const data = await readFile(localPathOf(url));
        return { data, version: sha256(data) };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    });
  }

  async writeConditional(url: string, data: Uint8Array, expectedVersion: string | null): Promise<string> {
    return mapFsErrors(url, 'conditional-write', () =>
      withLocalGuard(localPathOf(url), async () => {
        const current = await this.readVersioned(url);
        if ((current?.version ?? null) !== expectedVersion) {
          throw fsError('RIGGING_CONDITIONAL_WRITE_FAILED', `conditional write to "${url}" failed: the object changed since it was read`, {
            path: url,
            operation: 'conditional-write',
          });
        }
        await atomicWriteFile(localPathOf(url), data);
        return sha256(data);
      }),
    );
  }

  async deleteConditional(url: string, expectedVersion: string): Promise<void> {
    await mapFsErrors(url, 'conditional-delete', () =>
      withLocalGuard(localPathOf(url), async () => {
        const current = await this.readVersioned(url);
        if (current === null || current.version !== expectedVersion) {
          throw fsError('RIGGING_CONDITIONAL_WRITE_FAILED', `conditional delete of "${url}" failed: the object changed since it was read`, {
            path: url,
            operation: 'conditional-delete',
          });
        }
        await unlink(localPathOf(url));
      }),
    );
  }

  /** Holds nothing. */
  async close(): Promise<void> {}

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** A `Filesystem` for bare paths and `file://` URLs on `node:fs/promises`, with atomic writes. */
export function createLocalFilesystem(): ConditionalFilesystem & AsyncDisposable {
  return new LocalFilesystem();
}
