import type { Readable, Writable } from 'node:stream';

/** What `stat` and `ls` report about one path. */
export interface FileInfo {
  /** The full URL in the caller's scheme. */
  url: string;
  /** Implicit object-store prefixes report `'directory'`. */
  type: 'file' | 'directory';
  /** Bytes; 0 for directories. */
  size: number;
  /** Last modification time, when the backend knows it. */
  mtimeMs: number | null;
  /** GCS generation (decimal), memory counter, or `null` on local disks. */
  version: string | null;
}

/** A byte range for {@link Filesystem.createReadStream}; `end` is inclusive, as in `fs.createReadStream`. */
export interface ByteRange {
  /** First byte. @default 0 */
  start?: number;
  /** Last byte, inclusive. @default end of file */
  end?: number;
}

/** Options of {@link Filesystem.ls}. */
export interface LsOptions {
  /**
   * Also list staging names (`<name>.tmp.<32 hex>`) left by writes in flight or interrupted; only
   * cleanup code wants them. @default false
   */
  includeTemporary?: boolean;
}

/** Options of {@link Filesystem.rm}. */
export interface RmOptions {
  /** Remove a directory and everything below it. @default false */
  recursive?: boolean;
  /** Do not throw when the path is missing. @default false */
  missingOk?: boolean;
}

/**
 * One storage backend. URLs go in and come out as full strings in the caller's scheme.
 * Writes are all-or-nothing: content becomes visible only when a write finishes.
 */
export interface Filesystem {
  /** Whether a file or (possibly implicit) directory exists. */
  exists(url: string): Promise<boolean>;
  /** @throws {RiggingError} RIGGING_NOT_FOUND if missing. */
  stat(url: string): Promise<FileInfo>;
  /** File size in bytes. @throws {RiggingError} RIGGING_NOT_FOUND if missing. */
  size(url: string): Promise<number>;
  /**
   * Direct children sorted by URL; a file lists as itself. Staging names of unfinished writes
   * (`*.tmp.<32 hex>`) are left out unless `includeTemporary`.
   * @throws {RiggingError} RIGGING_NOT_FOUND if missing.
   */
  ls(url: string, opts?: LsOptions): Promise<FileInfo[]>;
  /** Brace-expanded glob with `*`, `?`, `[...]` and `**`; unique sorted URLs, never staging names. */
  glob(pattern: string): Promise<string[]>;
  /** A stream of the file's bytes. @throws {RiggingError} RIGGING_NOT_FOUND if missing. */
  createReadStream(url: string, range?: ByteRange): Promise<Readable>;
  /** A stream whose content appears atomically when it finishes; destroying it leaves nothing. */
  createWriteStream(url: string): Promise<Writable>;
  /** @throws {RiggingError} RIGGING_NOT_FOUND if missing. */
  readBytes(url: string): Promise<Buffer>;
  /** UTF-8 text. @throws {RiggingError} RIGGING_NOT_FOUND if missing. */
  readText(url: string): Promise<string>;
  /** Replaces the file atomically, creating local parent directories. */
  writeBytes(url: string, data: Uint8Array): Promise<void>;
  /** UTF-8 text, replacing the file atomically. */
  writeText(url: string, text: string): Promise<void>;
  /** Creates a directory and its parents (a no-op on object stores). */
  mkdirs(url: string): Promise<void>;
  /** @throws {RiggingError} RIGGING_NOT_FOUND if missing and not `missingOk`. */
  rm(url: string, opts?: RmOptions): Promise<void>;
  /** Moves a file or directory, replacing the destination. */
  rename(src: string, dst: string): Promise<void>;
  /** Copies one file (server-side on one backend, streamed across backends). */
  copy(src: string, dst: string): Promise<void>;
}

/** A stored object's bytes and opaque version token. */
export interface VersionedBytes {
  /** The object's content. */
  data: Buffer;
  /** GCS generation, memory counter, or sha256 of the content locally. */
  version: string;
}

/**
 * A backend that can compare-and-swap single objects; leases and `conditionalObject` need it.
 * `gs://`, `memory://` and local disks implement it.
 */
export interface ConditionalFilesystem extends Filesystem {
  /** The object with its version, or `null` when absent. */
  readVersioned(url: string): Promise<VersionedBytes | null>;
  /**
   * Writes only if the current version equals `expectedVersion` (`null` = must not exist).
   * @returns the new version.
   * @throws {RiggingError} RIGGING_CONDITIONAL_WRITE_FAILED on a mismatch.
   */
  writeConditional(url: string, data: Uint8Array, expectedVersion: string | null): Promise<string>;
  /**
   * Deletes only if the current version equals `expectedVersion`.
   * @throws {RiggingError} RIGGING_CONDITIONAL_WRITE_FAILED on a mismatch or when absent.
   */
  deleteConditional(url: string, expectedVersion: string): Promise<void>;
}

/** True when `fs` supports compare-and-swap writes. */
export function isConditionalFilesystem(fs: Filesystem): fs is ConditionalFilesystem {
  const c = fs as Partial<ConditionalFilesystem>;
  return typeof c.readVersioned === 'function' && typeof c.writeConditional === 'function' && typeof c.deleteConditional === 'function';
}
