import { resolve } from 'node:path';
import { RiggingError } from '../errors.js';
import { StoragePath } from '../fs/storage-path.js';
import { loadDataConfig } from './data-config.js';
import { marinPrefix } from './marin-prefix.js';
import { marinRegion, regionFromPrefix } from './region.js';

/** Options of {@link marinTempBucket}. */
export interface TempBucketOptions {
  /** A data prefix whose region decides where the temp path lives. */
  sourcePrefix?: string;
  /** Where TTL adjustments are reported. @default console.warn */
  warn?: (message: string) => void;
}

function allowedTtl(ttlDays: number, allowed: readonly number[], warn: (m: string) => void): number {
  if (!(ttlDays > 0)) {
    throw new RiggingError('RIGGING_INVALID_ARGUMENT', `ttlDays must be positive, got ${ttlDays}`, {
      details: { path: '', operation: 'marinTempBucket', ttlDays },
    });
  }
  if (allowed.includes(ttlDays)) return ttlDays;
  const up = allowed.find((d) => d >= ttlDays);
  const max = allowed[allowed.length - 1] ?? ttlDays;
  if (up === undefined) {
    warn(`temp TTL ${ttlDays}d is above the maximum; using ${max}d`);
    return max;
  }
  warn(`temp TTL ${ttlDays}d is not an allowed value; rounding up to ${up}d`);
  return up;
}

/**
 * A temporary-storage URL with a bucket lifecycle TTL: `gs://<bucket>/<temp.path>/ttl=<N>d[/<prefix>]`
 * when the region has a configured bucket, else `<marinPrefix>/<temp.path>[/<prefix>]`
 * (`file://` prepended to a local prefix). The TTL is rounded up to an allowed value, clamped to the maximum.
 *
 * @throws {RiggingError} RIGGING_INVALID_ARGUMENT if `ttlDays <= 0`.
 * @example await marinTempBucket(3, 'foo') // 'gs://marin-us-central1/tmp/ttl=3d/foo' in us-central1
 */
export async function marinTempBucket(ttlDays: number, prefix = '', opts: TempBucketOptions = {}): Promise<string> {
  const config = loadDataConfig();
  const ttl = allowedTtl(ttlDays, config.temp.ttlDays, opts.warn ?? ((m) => console.warn(m)));
  const rel = prefix.replace(/^\/+/, '').replace(/\/+$/, '');
  let region: string | null = null;
  if (opts.sourcePrefix !== undefined) region = regionFromPrefix(opts.sourcePrefix);
  else if (process.env['MARIN_PREFIX']) region = regionFromPrefix(await marinPrefix());
  else if ((await marinPrefix()).startsWith('gs://')) region = await marinRegion();
  const bucket = region === null ? undefined : config.regionBuckets.find((b) => b.region === region && b.store === 'gcs');
  if (bucket !== undefined) {
    const base = `gs://${bucket.bucket}/${config.temp.path}/ttl=${ttl}d`;
    return rel === '' ? base : `${base}/${rel}`;
  }
  let base = `${await marinPrefix()}/${config.temp.path}`;
  if (StoragePath.parse(base).scheme === null) base = `file://${resolve(base)}`;
  return rel === '' ? base : `${base}/${rel}`;
}
