import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { verifyBundleArchive } from '../../bundle/bundle-archive.js';
import type { BundleLimits } from '../../bundle/bundle-limits.js';
import { IrisError } from '../../errors.js';
import type { ControllerDatabase } from './database.js';

const BUNDLE_ID = /^[0-9a-f]{64}$/;

/**
 * Checks a bundle id's form (a sha256 hex digest), as every RPC naming a bundle does before looking it up.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for anything else
 */
export function checkBundleId(bundleId: string, field = 'bundle_id'): void {
  if (!BUNDLE_ID.test(bundleId)) throw new IrisError('IRIS_INVALID_ARGUMENT', `${field} "${bundleId.slice(0, 80)}" is not a sha256 hex digest (64 lower-case hex digits)`);
}

/** An upload being received: chunks are verified as they arrive, so a bomb is refused long before its end. */
export interface BundleUpload {
  /** Feeds the next chunk (ignored once the upload was refused). */
  write(chunk: Buffer): void;
  /**
   * Rejects as soon as the content is refused, while chunks are still arriving; never resolves
   * otherwise. Callers answer the client at once with the error.
   */
  readonly refused: Promise<never>;
  /**
   * Ends the upload: waits for the verification to finish and stores the archive.
   * @throws {IrisError} as `verifyBundleArchive`
   */
  finish(now: number): Promise<void>;
  /** Drops the upload (the client went away). */
  abort(): void;
}

/** Bundle archives kept beside the controller database (`<stateDir>/bundles/<id>.tar.gz`). */
export class BundleStore {
  constructor(
    private readonly db: ControllerDatabase,
    private readonly dir: string,
    private readonly limits: Partial<BundleLimits> = {},
  ) {}

  private pathOf(bundleId: string): string {
    checkBundleId(bundleId);
    return join(this.dir, `${bundleId}.tar.gz`);
  }

  /**
   * True when the archive is stored.
   * @throws {IrisError} IRIS_INVALID_ARGUMENT for a malformed id
   */
  has(bundleId: string): boolean {
    const path = this.pathOf(bundleId);
    return this.db.prepare('SELECT 1 FROM bundles WHERE bundle_id = ?').get(bundleId) !== undefined && existsSync(path);
  }

  /**
   * Starts receiving the archive of `bundleId`: each chunk goes through the streaming verifier
   * (limits on inflated bytes and entries, entry types, paths, clashes) as it arrives.
   * @throws {IrisError} IRIS_INVALID_ARGUMENT for a malformed id
   */
  startUpload(bundleId: string): BundleUpload {
    const path = this.pathOf(bundleId);
    const feed = new PassThrough();
    feed.on('error', () => undefined); // the verifier reports what went wrong
    const chunks: Buffer[] = [];
    let size = 0;
    const verified = verifyBundleArchive(feed, bundleId, { limits: this.limits });
    // Settled either way; `refused` and `finish` hand the outcome on.
    verified.catch(() => undefined);
    const refused = verified.then(
      () => new Promise<never>(() => undefined),
      (e: unknown) => Promise.reject(e),
    );
    refused.catch(() => undefined);
    return {
      write: (chunk) => {
        chunks.push(chunk);
        size += chunk.length;
        if (!feed.destroyed && !feed.writableEnded) feed.write(chunk);
      },
      refused,
      finish: async (now) => {
        if (!feed.destroyed) feed.end();
        await verified;
        await mkdir(this.dir, { recursive: true });
        const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
        await writeFile(tmp, Buffer.concat(chunks, size));
        await rename(tmp, path);
        this.db
          .prepare('INSERT INTO bundles (bundle_id, size_bytes, created_at_ms, last_used_ms) VALUES (?, ?, ?, ?) ON CONFLICT(bundle_id) DO UPDATE SET last_used_ms = excluded.last_used_ms')
          .run(bundleId, size, now, now);
      },
      abort: () => {
        chunks.length = 0;
        feed.destroy();
      },
    };
  }

  /**
   * Reads a stored archive.
   * @throws {IrisError} IRIS_INVALID_ARGUMENT for a malformed id; IRIS_NOT_FOUND if it is not stored.
   */
  async get(bundleId: string, now: number): Promise<Buffer> {
    if (!this.has(bundleId)) throw new IrisError('IRIS_NOT_FOUND', `bundle "${bundleId}" not found`);
    this.db.prepare('UPDATE bundles SET last_used_ms = ? WHERE bundle_id = ?').run(now, bundleId);
    return readFile(this.pathOf(bundleId));
  }
}
