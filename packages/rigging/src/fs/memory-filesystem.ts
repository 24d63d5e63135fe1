import { Readable, Writable } from 'node:stream';
import { fsError, notFound } from '../internal/fs-error.js';
import type { ByteRange, VersionedBytes } from './filesystem.js';
import { ObjectStoreFilesystem } from './object-store-filesystem.js';
import type { ObjectLocation, ObjectMeta } from './object-store-filesystem.js';
import { schemeOf } from './storage-path.js';

interface MemoryObject {
  bytes: Buffer;
  generation: number;
  mtimeMs: number;
}

// Process-global, like Marin's fsspec memory filesystem: every handle sees the same objects.
const STORE = new Map<string, MemoryObject>();
let generationCounter = 0;

/** Clears the process-global `memory://` store (call between tests). */
export function resetMemoryFilesystem(): void {
  STORE.clear();
}

function keyOf(url: string): string {
  const m = /^memory:\/\/(.*)$/is.exec(url);
  if (m === null) {
    throw fsError('RIGGING_INVALID_ARGUMENT', `not a memory:// url: "${url}"`, { path: url, operation: 'locate' });
  }
  return (m[1] ?? '').replace(/^\/+/, '');
}

class MemoryFilesystem extends ObjectStoreFilesystem {
  protected locate(url: string): ObjectLocation {
    const rawKey = keyOf(url);
    return { root: 'memory://', bucket: '', key: rawKey.replace(/\/+$/, ''), rawKey };
  }

  protected owns(url: string): boolean {
    return schemeOf(url) === 'memory';
  }

  private meta(key: string, o: MemoryObject): ObjectMeta {
    return { key, size: o.bytes.length, mtimeMs: o.mtimeMs, generation: String(o.generation) };
  }

  protected async head(_loc: ObjectLocation, key: string): Promise<ObjectMeta | null> {
    const o = STORE.get(key);
    return o === undefined || key.endsWith('/') ? null : this.meta(key, o);
  }

  protected async list(
    _loc: ObjectLocation,
    prefix: string,
    opts: { delimiter: boolean; maxResults?: number },
  ): Promise<{ objects: ObjectMeta[]; prefixes: string[] }> {
    const objects: ObjectMeta[] = [];
    const prefixes = new Set<string>();
    for (const key of [...STORE.keys()].sort()) {
      if (!key.startsWith(prefix)) continue;
      const o = STORE.get(key);
      if (o === undefined) continue;
      const rest = key.slice(prefix.length);
      const slash = rest.indexOf('/');
      if (opts.delimiter && slash >= 0 && slash < rest.length - 1) prefixes.add(prefix + rest.slice(0, slash + 1));
      else objects.push(this.meta(key, o));
      if (opts.maxResults !== undefined && objects.length >= opts.maxResults) break;
    }
    return { objects, prefixes: [...prefixes] };
  }

  protected async getBytes(_loc: ObjectLocation, key: string): Promise<VersionedBytes | null> {
    const o = STORE.get(key);
    if (o === undefined || key.endsWith('/')) return null;
    return { data: Buffer.from(o.bytes), version: String(o.generation) };
  }

  protected async getStream(loc: ObjectLocation, key: string, range?: ByteRange): Promise<Readable> {
    const o = STORE.get(key);
    if (o === undefined) throw notFound(loc.root + key, 'read');
    const start = range?.start ?? 0;
    const end = range?.end === undefined ? o.bytes.length : range.end + 1;
    return Readable.from([Buffer.from(o.bytes.subarray(start, end))]);
  }

  protected async put(loc: ObjectLocation, key: string, data: Uint8Array, ifGenerationMatch?: string): Promise<string> {
    if (ifGenerationMatch !== undefined) {
      const current = STORE.get(key);
      const currentGen = current === undefined ? '0' : String(current.generation);
      if (currentGen !== ifGenerationMatch) {
        throw fsError('RIGGING_CONDITIONAL_WRITE_FAILED', `conditional write to "${loc.root + key}" failed: version is ${currentGen}, expected ${ifGenerationMatch}`, {
          path: loc.root + key,
          operation: 'conditional-write',
        });
      }
    }
    const generation = ++generationCounter;
    STORE.set(key, { bytes: Buffer.from(data), generation, mtimeMs: Date.now() });
    return String(generation);
  }

  protected async openWrite(loc: ObjectLocation, key: string): Promise<Writable> {
    const chunks: Buffer[] = [];
    return new Writable({
      write: (chunk: Buffer, _enc, cb) => {
        chunks.push(Buffer.from(chunk));
        cb();
      },
      final: (cb) => {
        this.put(loc, key, Buffer.concat(chunks)).then(() => cb(), cb);
      },
    });
  }

  protected async del(loc: ObjectLocation, key: string, ifGenerationMatch?: string): Promise<void> {
    const o = STORE.get(key);
    if (o === undefined) throw notFound(loc.root + key, 'rm');
    if (ifGenerationMatch !== undefined && String(o.generation) !== ifGenerationMatch) {
      throw fsError('RIGGING_CONDITIONAL_WRITE_FAILED', `conditional delete of "${loc.root + key}" failed: version is ${o.generation}, expected ${ifGenerationMatch}`, {
        path: loc.root + key,
        operation: 'conditional-delete',
      });
    }
    STORE.delete(key);
  }

  protected async copyObject(src: ObjectLocation, srcKey: string, dst: ObjectLocation, dstKey: string): Promise<void> {
    const o = STORE.get(srcKey);
    if (o === undefined) throw notFound(src.root + srcKey, 'copy');
    await this.put(dst, dstKey, o.bytes);
  }
}

/**
 * A `Filesystem` over the process-global `memory://` object store: object-store semantics
 * (implicit directories, generations, conditional writes) with no I/O. All handles share one store.
 *
 * @example
 * await using fs = createMemoryFilesystem();
 * await fs.writeText('memory://t/a.txt', 'hi');
 */
export function createMemoryFilesystem(): ObjectStoreFilesystem {
  return new MemoryFilesystem();
}
