import { RiggingError } from '../errors.js';
import { isConditionalFilesystem } from '../fs/filesystem.js';
import type { ConditionalFilesystem, VersionedBytes } from '../fs/filesystem.js';
import { filesystemFor } from '../fs/registry.js';
import { schemeOf } from '../fs/storage-path.js';

/**
 * The compare-and-swap backend for `url`.
 * @throws {RiggingError} RIGGING_UNSUPPORTED for schemes without conditional writes (never a silent
 *   last-writer-wins).
 */
export function conditionalFilesystemFor(url: string, operation: string): ConditionalFilesystem {
  const fs = filesystemFor(url);
  if (schemeOf(url) === 'mirror' || !isConditionalFilesystem(fs)) {
    throw new RiggingError('RIGGING_UNSUPPORTED', `conditional writes are not supported for "${url}" (scheme "${schemeOf(url) ?? 'file'}")`, {
      details: { path: url, operation },
    });
  }
  return fs;
}

/** Compare-and-swap bytes at one URL. */
export interface ConditionalObject {
  /** The URL this object lives at. */
  readonly url: string;
  /** The bytes and their opaque version, or `null` when absent. */
  read(): Promise<VersionedBytes | null>;
  /**
   * Writes `data` only if the current version is `expectedVersion` (`null` = create-only).
   * @returns the new version.
   * @throws {RiggingError} RIGGING_CONDITIONAL_WRITE_FAILED on a mismatch.
   */
  write(data: Uint8Array | string, expectedVersion: string | null): Promise<string>;
}

/**
 * Compare-and-swap access to the object at `url`: GCS generations, memory counters, or sha256 of
 * the content under the local guard section.
 * @throws {RiggingError} RIGGING_UNSUPPORTED for other schemes.
 *
 * @example
 * const obj = conditionalObject('gs://b/state.json');
 * const cur = await obj.read();
 * await obj.write('{"n": 1}', cur?.version ?? null);
 */
export function conditionalObject(url: string): ConditionalObject {
  const fs = conditionalFilesystemFor(url, 'conditionalObject');
  return {
    url,
    read: () => fs.readVersioned(url),
    write: (data, expectedVersion) =>
      fs.writeConditional(url, typeof data === 'string' ? Buffer.from(data, 'utf8') : data, expectedVersion),
  };
}
