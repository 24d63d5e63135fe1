import { PassThrough, Writable } from 'node:stream';
import type { Readable } from 'node:stream';
import type { Bucket, File, FileMetadata, Storage } from '@google-cloud/storage';
import { codeForError, fsError, notFound } from '../internal/fs-error.js';
import type { ByteRange, VersionedBytes } from './filesystem.js';
import { sharedGcsClient } from './gcs-client.js';
import { ObjectStoreFilesystem } from './object-store-filesystem.js';
import type { ObjectLocation, ObjectMeta } from './object-store-filesystem.js';
import { schemeOf } from './storage-path.js';

const MAX_VERSIONED_READ_ATTEMPTS = 8;

function isCredentialsError(err: unknown): boolean {
  const msg = (err as { message?: unknown }).message;
  return typeof msg === 'string' && /default credentials|Could not load the default credentials|Unable to detect a Project Id/i.test(msg);
}

/** Rewrites library errors: credentials problems get an actionable message and no library stack. */
export function translateGcsError(err: unknown, url: string, operation: string): unknown {
  if (isCredentialsError(err)) {
    return fsError(
      'RIGGING_PERMISSION_DENIED',
      `no Google Cloud credentials for "${url}": run \`gcloud auth application-default login\`, set GOOGLE_APPLICATION_CREDENTIALS, or set STORAGE_EMULATOR_HOST for an emulator`,
      { path: url, operation, details: { reason: (err as Error).message } },
    );
  }
  const code = codeForError(err);
  if (code === 'RIGGING_CONDITIONAL_WRITE_FAILED') {
    return fsError(code, `${operation} "${url}" failed: the object's generation changed`, { path: url, operation, cause: err });
  }
  if (code === 'RIGGING_NOT_FOUND') return notFound(url, operation, err);
  if (code !== null) return fsError(code, `${operation} "${url}" failed (${code.toLowerCase().replace('rigging_', '').replace(/_/g, ' ')})`, { path: url, operation, cause: err });
  return err;
}

function statusOf(err: unknown): number | null {
  const c = (err as { code?: unknown }).code;
  return typeof c === 'number' ? c : null;
}

function metaOf(key: string, m: FileMetadata): ObjectMeta {
  return {
    key,
    size: Number(m.size ?? 0),
    mtimeMs: m.updated === undefined ? null : Date.parse(String(m.updated)),
    generation: String(m.generation ?? '0'),
  };
}

/** Options of {@link createGcsFilesystem}. */
export interface GcsFilesystemOptions {
  /** The client to use. @default the process-wide client (STORAGE_EMULATOR_HOST or ADC) */
  client?: Storage;
}

class GcsFilesystem extends ObjectStoreFilesystem {
  private readonly explicitClient: Storage | undefined;

  constructor(opts: GcsFilesystemOptions) {
    super();
    this.explicitClient = opts.client;
  }

  private get client(): Storage {
    return this.explicitClient ?? sharedGcsClient();
  }

  private bucket(loc: ObjectLocation): Bucket {
    return this.client.bucket(loc.bucket);
  }

  private file(loc: ObjectLocation, key: string, generation?: string): File {
    return this.bucket(loc).file(key, generation === undefined ? undefined : { generation });
  }

  protected locate(url: string): ObjectLocation {
    const m = /^([A-Za-z]+):\/\/([^/]+)\/?(.*)$/s.exec(url);
    if (m === null || !['gs', 'gcs'].includes((m[1] ?? '').toLowerCase())) {
      throw fsError('RIGGING_INVALID_ARGUMENT', `not a gs:// url: "${url}"`, { path: url, operation: 'locate' });
    }
    const rawKey = m[3] ?? '';
    return { root: `${(m[1] ?? 'gs').toLowerCase()}://${m[2] ?? ''}/`, bucket: m[2] ?? '', key: rawKey.replace(/\/+$/, ''), rawKey };
  }

  protected owns(url: string): boolean {
    return schemeOf(url) === 'gs';
  }

  private async call<T>(loc: ObjectLocation, key: string, operation: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw translateGcsError(err, loc.root + key, operation);
    }
  }

  protected async head(loc: ObjectLocation, key: string): Promise<ObjectMeta | null> {
    if (key.endsWith('/')) return null;
    try {
      const [m] = await this.file(loc, key).getMetadata();
      return metaOf(key, m);
    } catch (err) {
      if (statusOf(err) === 404) return null;
      throw translateGcsError(err, loc.root + key, 'stat');
    }
  }

  protected async list(
    loc: ObjectLocation,
    prefix: string,
    opts: { delimiter: boolean; maxResults?: number },
  ): Promise<{ objects: ObjectMeta[]; prefixes: string[] }> {
    return this.call(loc, prefix, 'ls', async () => {
      const objects: ObjectMeta[] = [];
      const prefixes: string[] = [];
      let pageToken: string | undefined;
      do {
        const [files, next, response] = await this.bucket(loc).getFiles({
          prefix,
          autoPaginate: false,
          maxResults: opts.maxResults ?? 1000,
          ...(opts.delimiter ? { delimiter: '/' } : {}),
          ...(pageToken === undefined ? {} : { pageToken }),
        });
        for (const f of files) objects.push(metaOf(f.name, f.metadata));
        const got = (response as { prefixes?: string[] } | undefined)?.prefixes;
        if (got !== undefined) prefixes.push(...got);
        pageToken = (next as { pageToken?: string } | null)?.pageToken;
        if (opts.maxResults !== undefined && objects.length >= opts.maxResults) break;
      } while (pageToken !== undefined);
      return { objects, prefixes };
    });
  }

  protected async getBytes(loc: ObjectLocation, key: string): Promise<VersionedBytes | null> {
    if (key.endsWith('/') || key === '') return null;
    for (let attempt = 1; ; attempt++) {
      const meta = await this.head(loc, key);
      if (meta === null) return null;
      try {
        // Pin the generation we just saw, so data and version always belong together.
        const [data] = await this.file(loc, key, meta.generation).download();
        return { data, version: meta.generation };
      } catch (err) {
        if (statusOf(err) === 404 && attempt < MAX_VERSIONED_READ_ATTEMPTS) continue; // replaced mid-read
        throw translateGcsError(err, loc.root + key, 'read');
      }
    }
  }

  protected async getStream(loc: ObjectLocation, key: string, range?: ByteRange): Promise<Readable> {
    const meta = await this.head(loc, key);
    if (meta === null) throw notFound(loc.root + key, 'read');
    const url = loc.root + key;
    const stream = this.file(loc, key, meta.generation).createReadStream({
      ...(range?.start === undefined ? {} : { start: range.start }),
      ...(range?.end === undefined ? {} : { end: range.end }),
    });
    // Map late failures (object replaced, network) the same way as early ones.
    const out = new PassThrough({ highWaterMark: 8 * 1024 * 1024 });
    stream.on('error', (err) => out.destroy(translateGcsError(err, url, 'read') as Error));
    out.on('close', () => stream.destroy());
    stream.pipe(out);
    return out;
  }

  protected async put(loc: ObjectLocation, key: string, data: Uint8Array, ifGenerationMatch?: string): Promise<string> {
    return this.call(loc, key, ifGenerationMatch === undefined ? 'write' : 'conditional-write', async () => {
      const file = this.file(loc, key);
      await file.save(Buffer.from(data.buffer, data.byteOffset, data.byteLength), {
        resumable: false,
        validation: false,
        ...(ifGenerationMatch === undefined ? {} : { preconditionOpts: { ifGenerationMatch: Number(ifGenerationMatch) } }),
      });
      return String(file.metadata.generation ?? '0');
    });
  }

  protected async openWrite(loc: ObjectLocation, key: string): Promise<Writable> {
    const url = loc.root + key;
    const upstream = this.file(loc, key).createWriteStream({ resumable: false, validation: false });
    let failure: Error | undefined;
    // The upload commits when upstream finishes; a destroyed wrapper aborts it, so nothing appears.
    const out = new Writable({
      highWaterMark: 8 * 1024 * 1024,
      write(chunk: Buffer, _enc, cb) {
        if (failure !== undefined) return cb(failure);
        if (upstream.write(chunk)) cb();
        else upstream.once('drain', () => cb());
      },
      final(cb) {
        if (failure !== undefined) return cb(failure);
        upstream.once('finish', () => cb());
        upstream.once('error', (err: Error) => cb(translateGcsError(err, url, 'write') as Error));
        upstream.end();
      },
      destroy(err, cb) {
        if (!upstream.writableFinished) upstream.destroy(err ?? new Error('write aborted'));
        cb(err);
      },
    });
    upstream.on('error', (err: Error) => {
      failure = translateGcsError(err, url, 'write') as Error;
      if (!out.writableEnded) out.destroy(failure);
    });
    return out;
  }

  protected async del(loc: ObjectLocation, key: string, ifGenerationMatch?: string): Promise<void> {
    await this.call(loc, key, ifGenerationMatch === undefined ? 'rm' : 'conditional-delete', async () => {
      await this.file(loc, key).delete(ifGenerationMatch === undefined ? {} : { ifGenerationMatch: Number(ifGenerationMatch) });
    });
  }

  protected async copyObject(src: ObjectLocation, srcKey: string, dst: ObjectLocation, dstKey: string): Promise<void> {
    await this.call(src, srcKey, 'copy', async () => {
      await this.file(src, srcKey).copy(this.file(dst, dstKey));
    });
  }
}

/**
 * A `Filesystem` for `gs://` (alias `gcs://`) on `@google-cloud/storage`: implicit directories,
 * uncached listings, generation preconditions for conditional writes and deletes.
 *
 * @example
 * const fs = createGcsFilesystem({ client: createGcsClient({ endpoint: 'http://127.0.0.1:4443' }) });
 */
export function createGcsFilesystem(opts: GcsFilesystemOptions = {}): ObjectStoreFilesystem {
  return new GcsFilesystem(opts);
}
