import { resolve } from 'node:path';
import { z } from 'zod';
import { IrisError } from '../errors.js';
import { packBundleArchive } from './bundle-archive.js';
import { listBundleFiles } from './bundle-files.js';
import { bundleIdOf, readBundleFiles } from './bundle-manifest.js';
import type { BundleFile } from './bundle-manifest.js';

/** Default cap on a bundle's uncompressed size (`IRIS_MAX_BUNDLE_BYTES` overrides it). */
export const DEFAULT_MAX_BUNDLE_BYTES = 100 * 1024 * 1024;

/** Options of {@link createBundle}. */
export const CreateBundleOptionsSchema = z.object({
  /** The workspace root to pack (usually the git top level). */
  root: z.string().min(1),
  /**
   * Largest total uncompressed size accepted.
   * @default `IRIS_MAX_BUNDLE_BYTES`, else 100 MiB
   */
  maxBytes: z.number().int().positive().optional(),
});

/** What callers pass to {@link createBundle}. */
export type CreateBundleOptions = z.input<typeof CreateBundleOptionsSchema>;

/** A packed workspace, content-addressed by its manifest. */
export interface Bundle {
  /** sha256 hex of the manifest; equal for equal file sets, whatever the archive bytes. */
  id: string;
  /** Absolute path of the packed workspace. */
  root: string;
  /** The packed files, sorted by path. */
  files: BundleFile[];
  /** Sum of the files' sizes. */
  totalBytes: number;
  /** The gzip'd tar to upload. */
  archive: Buffer;
}

/**
 * Packs a workspace for shipping to workers: the files `git ls-files` reports (or a walk outside
 * git), minus `.git/`, `node_modules/`, `.nx/`, `dist/` and `*.log`, as a deterministic gzip'd tar
 * whose id is the sha256 of the manifest.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT if the options are malformed or the files exceed the cap
 *   (`details.largest` lists the ten largest files)
 */
export async function createBundle(options: CreateBundleOptions): Promise<Bundle> {
  const parsed = CreateBundleOptionsSchema.safeParse(options);
  if (!parsed.success) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', `invalid bundle options: ${z.prettifyError(parsed.error)}`, { cause: parsed.error });
  }
  const root = resolve(parsed.data.root);
  const maxBytes = parsed.data.maxBytes ?? maxBytesFromEnv();
  const paths = await listBundleFiles(root);
  const files = await readBundleFiles(root, paths);
  const totalBytes = files.reduce((sum, f) => sum + f.sizeBytes, 0);
  if (totalBytes > maxBytes) {
    const largest = [...files].sort((a, b) => b.sizeBytes - a.sizeBytes).slice(0, 10);
    const list = largest.map((f) => `${f.path} (${f.sizeBytes} bytes)`).join(', ');
    throw new IrisError(
      'IRIS_INVALID_ARGUMENT',
      `bundle of "${root}" is ${totalBytes} bytes, over the ${maxBytes} byte cap; largest files: ${list}; ignore them in .gitignore or raise IRIS_MAX_BUNDLE_BYTES`,
      { details: { totalBytes, maxBytes, largest: largest.map((f) => ({ path: f.path, sizeBytes: f.sizeBytes })) } },
    );
  }
  const archive = await packBundleArchive(root, paths);
  return { id: bundleIdOf(files), root, files, totalBytes, archive };
}

function maxBytesFromEnv(): number {
  const raw = process.env['IRIS_MAX_BUNDLE_BYTES'];
  if (raw === undefined || raw === '') return DEFAULT_MAX_BUNDLE_BYTES;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', `IRIS_MAX_BUNDLE_BYTES must be a positive integer, got "${raw}"`);
  }
  return value;
}
