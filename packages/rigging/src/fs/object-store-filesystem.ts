import type { Readable, Writable } from 'node:stream';
import { fsError, mapFsErrors, notFound } from '../internal/fs-error.js';
import type { ByteRange, ConditionalFilesystem, FileInfo, LsOptions, RmOptions, VersionedBytes } from './filesystem.js';
import { hasTempSegment, isTempPath } from './temp-path.js';
import { mapLimit } from '../concurrency/map-limit.js';
import { globWith } from './glob-pattern.js';
import { lookupFilesystem, streamCopy } from './stream-copy.js';

/** Where an object-store URL points: `root` is the URL prefix that keys are appended to. */
export interface ObjectLocation {
  /** URL prefix of the bucket, e.g. `gs://b/` or `memory://`. */
  root: string;
  /** Bucket name (empty for the memory store). */
  bucket: string;
  /** Object key with trailing slashes removed (`''` at the bucket root). */
  key: string;
  /** Object key exactly as written (a trailing `/` names a directory placeholder). */
  rawKey: string;
}

/** One listed object. */
export interface ObjectMeta {
  /** Full object key. */
  key: string;
  /** Bytes. */
  size: number;
  /** Last modification, when known. */
  mtimeMs: number | null;
  /** Generation as a decimal string. */
  generation: string;
}

/**
 * Object-store semantics shared by `gs://` and `memory://`: implicit directories, placeholder
 * objects ending in `/` count as directories, listings are never cached, rename is copy + delete.
 * Subclasses supply the object primitives.
 */
export abstract class ObjectStoreFilesystem implements ConditionalFilesystem {
  /** Parses a URL of this backend. */
  protected abstract locate(url: string): ObjectLocation;
  /** The object's metadata, or `null` when absent. */
  protected abstract head(loc: ObjectLocation, key: string): Promise<ObjectMeta | null>;
  /** Lists objects under `prefix`; with `delimiter`, also the direct sub-prefixes (each ending in `/`). */
  protected abstract list(
    loc: ObjectLocation,
    prefix: string,
    opts: { delimiter: boolean; maxResults?: number },
  ): Promise<{ objects: ObjectMeta[]; prefixes: string[] }>;
  /** Whole object with its generation, or `null` when absent. */
  protected abstract getBytes(loc: ObjectLocation, key: string): Promise<VersionedBytes | null>;
  /** A stream of the object; throws RIGGING_NOT_FOUND when absent. */
  protected abstract getStream(loc: ObjectLocation, key: string, range?: ByteRange): Promise<Readable>;
  /** Writes an object; with `ifGenerationMatch` (`'0'` = must not exist) conditionally. Returns the generation. */
  protected abstract put(loc: ObjectLocation, key: string, data: Uint8Array, ifGenerationMatch?: string): Promise<string>;
  /** A write stream that commits on finish and leaves nothing when destroyed. */
  protected abstract openWrite(loc: ObjectLocation, key: string): Promise<Writable>;
  /** Deletes an object (RIGGING_NOT_FOUND when absent), conditionally with `ifGenerationMatch`. */
  protected abstract del(loc: ObjectLocation, key: string, ifGenerationMatch?: string): Promise<void>;
  /** Server-side copy within this backend. */
  protected abstract copyObject(src: ObjectLocation, srcKey: string, dst: ObjectLocation, dstKey: string): Promise<void>;
  /** Whether a URL belongs to this backend (so copies and renames stay server-side). */
  protected abstract owns(url: string): boolean;

  private fileInfo(loc: ObjectLocation, m: ObjectMeta): FileInfo {
    return { url: loc.root + m.key, type: 'file', size: m.size, mtimeMs: m.mtimeMs, version: m.generation };
  }

  private dirInfo(loc: ObjectLocation, key: string): FileInfo {
    return { url: loc.root + key.replace(/\/+$/, ''), type: 'directory', size: 0, mtimeMs: null, version: null };
  }

  private async statOrNull(url: string): Promise<FileInfo | null> {
    const loc = this.locate(url);
    if (loc.key === '') return this.dirInfo(loc, '');
    const meta = await this.head(loc, loc.key);
    if (meta !== null) return this.fileInfo(loc, meta);
    const below = await this.list(loc, `${loc.key}/`, { delimiter: false, maxResults: 1 });
    if (below.objects.length > 0) return this.dirInfo(loc, loc.key);
    return null;
  }

  async exists(url: string): Promise<boolean> {
    return mapFsErrors(url, 'exists', async () => (await this.statOrNull(url)) !== null);
  }

  async stat(url: string): Promise<FileInfo> {
    return mapFsErrors(url, 'stat', async () => {
      const info = await this.statOrNull(url);
      if (info === null) throw notFound(url, 'stat');
      return info;
    });
  }

  async size(url: string): Promise<number> {
    return (await this.stat(url)).size;
  }

  async ls(url: string, opts: LsOptions = {}): Promise<FileInfo[]> {
    return mapFsErrors(url, 'ls', async () => {
      const loc = this.locate(url);
      if (loc.key !== '') {
        const meta = await this.head(loc, loc.key);
        if (meta !== null) return [this.fileInfo(loc, meta)];
      }
      const prefix = loc.key === '' ? '' : `${loc.key}/`;
      const { objects, prefixes } = await this.list(loc, prefix, { delimiter: true });
      const byUrl = new Map<string, FileInfo>();
      for (const p of prefixes) byUrl.set(loc.root + p.replace(/\/+$/, ''), this.dirInfo(loc, p));
      for (const o of objects) {
        if (o.key === prefix) continue; // the directory's own placeholder
        const info = o.key.endsWith('/') ? this.dirInfo(loc, o.key) : this.fileInfo(loc, o);
        if (!byUrl.has(info.url)) byUrl.set(info.url, info);
      }
      if (byUrl.size === 0 && objects.length === 0 && loc.key !== '') throw notFound(url, 'ls');
      if (opts.includeTemporary !== true) for (const u of [...byUrl.keys()]) if (isTempPath(u)) byUrl.delete(u);
      return [...byUrl.values()].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
    });
  }

  /** Relative paths of every object and implicit directory below `base`. */
  protected async walk(base: string): Promise<string[]> {
    const loc = this.locate(base);
    const prefix = loc.key === '' ? '' : `${loc.key}/`;
    const { objects } = await this.list(loc, prefix, { delimiter: false });
    const out = new Set<string>();
    for (const o of objects) {
      const rel = o.key.slice(prefix.length);
      const parts = rel.split('/');
      for (let i = 1; i < parts.length; i++) out.add(parts.slice(0, i).join('/'));
      if (!rel.endsWith('/') && rel !== '') out.add(rel);
    }
    out.delete('');
    return [...out].filter((rel) => !hasTempSegment(rel));
  }

  async glob(pattern: string): Promise<string[]> {
    return mapFsErrors(pattern, 'glob', () =>
      globWith(pattern, { exists: (u) => this.exists(u), walk: (b) => this.walk(b) }),
    );
  }

  async createReadStream(url: string, range?: ByteRange): Promise<Readable> {
    return mapFsErrors(url, 'read', () => {
      const loc = this.locate(url);
      return this.getStream(loc, loc.key, range);
    });
  }

  async createWriteStream(url: string): Promise<Writable> {
    return mapFsErrors(url, 'write', () => {
      const loc = this.locate(url);
      return this.openWrite(loc, loc.rawKey);
    });
  }

  async readBytes(url: string): Promise<Buffer> {
    return mapFsErrors(url, 'read', async () => {
      const loc = this.locate(url);
      const got = await this.getBytes(loc, loc.key);
      if (got === null) throw notFound(url, 'read');
      return got.data;
    });
  }

  async readText(url: string): Promise<string> {
    return (await this.readBytes(url)).toString('utf8');
  }

  async writeBytes(url: string, data: Uint8Array): Promise<void> {
    await mapFsErrors(url, 'write', async () => {
      const loc = this.locate(url);
      this.requireKey(loc, url, 'write');
      await this.put(loc, loc.rawKey, data);
    });
  }

  async writeText(url: string, text: string): Promise<void> {
    await this.writeBytes(url, Buffer.from(text, 'utf8'));
  }

  async mkdirs(_url: string): Promise<void> {
    // Object stores have implicit directories.
  }

  async rm(url: string, opts: RmOptions = {}): Promise<void> {
    await mapFsErrors(url, 'rm', async () => {
      const loc = this.locate(url);
      let removed = 0;
      if (loc.key !== '' && (await this.head(loc, loc.key)) !== null) {
        await this.del(loc, loc.key);
        removed++;
      }
      const prefix = loc.key === '' ? '' : `${loc.key}/`;
      if (removed === 0) {
        const { objects } = await this.list(loc, prefix, { delimiter: false, maxResults: opts.recursive === true ? undefined : 1 });
        if (objects.length > 0 && opts.recursive !== true) {
          throw fsError('RIGGING_INVALID_ARGUMENT', `cannot rm directory "${url}" without recursive: true`, { path: url, operation: 'rm' });
        }
        await mapLimit(objects, 16, (o) => this.del(loc, o.key).catch(ignoreNotFound));
        removed += objects.length;
      }
      if (removed === 0 && opts.missingOk !== true) throw notFound(url, 'rm');
    });
  }

  async rename(src: string, dst: string): Promise<void> {
    await mapFsErrors(src, 'rename', async () => {
      if (!this.owns(dst)) {
        const info = await this.stat(src);
        const dstFs = lookupFilesystem(dst);
        if (info.type === 'file') await streamCopy(this, src, dstFs, dst);
        else {
          await dstFs.rm(dst, { recursive: true, missingOk: true });
          for (const rel of await this.filesBelow(src)) await streamCopy(this, `${src.replace(/\/+$/, '')}/${rel}`, dstFs, `${dst.replace(/\/+$/, '')}/${rel}`);
        }
        await this.rm(src, { recursive: true });
        return;
      }
      const s = this.locate(src);
      const d = this.locate(dst);
      const meta = s.key === '' ? null : await this.head(s, s.key);
      if (meta !== null) {
        await this.copyObject(s, s.key, d, d.key);
        await this.del(s, s.key);
        return;
      }
      const prefix = s.key === '' ? '' : `${s.key}/`;
      const { objects } = await this.list(s, prefix, { delimiter: false });
      if (objects.length === 0) throw notFound(src, 'rename');
      await this.rm(dst, { recursive: true, missingOk: true });
      const dPrefix = d.key === '' ? '' : `${d.key}/`;
      await mapLimit(objects, 16, (o) => this.copyObject(s, o.key, d, dPrefix + o.key.slice(prefix.length)));
      await mapLimit(objects, 16, (o) => this.del(s, o.key).catch(ignoreNotFound));
    });
  }

  private async filesBelow(url: string): Promise<string[]> {
    const loc = this.locate(url);
    const prefix = loc.key === '' ? '' : `${loc.key}/`;
    const { objects } = await this.list(loc, prefix, { delimiter: false });
    return objects.filter((o) => !o.key.endsWith('/')).map((o) => o.key.slice(prefix.length));
  }

  async copy(src: string, dst: string): Promise<void> {
    await mapFsErrors(src, 'copy', async () => {
      if (!this.owns(dst)) {
        await streamCopy(this, src, lookupFilesystem(dst), dst);
        return;
      }
      const s = this.locate(src);
      const d = this.locate(dst);
      this.requireKey(d, dst, 'copy');
      await this.copyObject(s, s.key, d, d.key);
    });
  }

  async readVersioned(url: string): Promise<VersionedBytes | null> {
    return mapFsErrors(url, 'read', () => {
      const loc = this.locate(url);
      return this.getBytes(loc, loc.key);
    });
  }

  async writeConditional(url: string, data: Uint8Array, expectedVersion: string | null): Promise<string> {
    return mapFsErrors(url, 'conditional-write', () => {
      const loc = this.locate(url);
      this.requireKey(loc, url, 'conditional-write');
      return this.put(loc, loc.key, data, expectedVersion ?? '0');
    });
  }

  async deleteConditional(url: string, expectedVersion: string): Promise<void> {
    await mapFsErrors(url, 'conditional-delete', async () => {
      const loc = this.locate(url);
      try {
        await this.del(loc, loc.key, expectedVersion);
      } catch (err) {
        if ((err as { code?: unknown }).code === 'RIGGING_NOT_FOUND') {
          throw fsError('RIGGING_CONDITIONAL_WRITE_FAILED', `conditional delete of "${url}" failed: the object is gone`, {
            path: url,
            operation: 'conditional-delete',
            cause: err,
          });
        }
        throw err;
      }
    });
  }

  /** Disposes nothing: the store outlives the handle. */
  async close(): Promise<void> {}

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private requireKey(loc: ObjectLocation, url: string, operation: string): void {
    if (loc.key === '') {
      throw fsError('RIGGING_INVALID_ARGUMENT', `cannot ${operation} "${url}": it names a bucket, not an object`, { path: url, operation });
    }
  }
}

function ignoreNotFound(err: unknown): void {
  if ((err as { code?: unknown }).code !== 'RIGGING_NOT_FOUND') throw err;
}
