import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { verifyBundleArchive } from '../bundle/bundle-archive.js';
import { IrisError } from '../errors.js';
import type { ControllerDatabase } from './database.js';

const BUNDLE_ID = /^[0-9a-f]{64}$/;

/** Bundle archives kept beside the controller database (`<stateDir>/bundles/<id>.tar.gz`). */
export class BundleStore {
  constructor(
    private readonly db: ControllerDatabase,
    private readonly dir: string,
  ) {}

  private pathOf(bundleId: string): string {
    if (!BUNDLE_ID.test(bundleId)) throw new IrisError('IRIS_INVALID_ARGUMENT', `bundle_id "${bundleId}" is not a sha256 hex digest`);
    return join(this.dir, `${bundleId}.tar.gz`);
  }

  /** True when the archive is stored. */
  has(bundleId: string): boolean {
    return this.db.prepare('SELECT 1 FROM bundles WHERE bundle_id = ?').get(bundleId) !== undefined && existsSync(this.pathOf(bundleId));
  }

  /**
   * Verifies an uploaded archive against its id (the manifest hash) and stores it.
   * @throws {IrisError} IRIS_INVALID_ARGUMENT if the archive does not match `bundleId`.
   */
  async put(bundleId: string, archive: Buffer, now: number): Promise<void> {
    const path = this.pathOf(bundleId);
    try {
      await verifyBundleArchive(archive, bundleId);
    } catch (e) {
      throw new IrisError('IRIS_INVALID_ARGUMENT', `bundle "${bundleId}" does not match its content`, { cause: e });
    }
    await mkdir(this.dir, { recursive: true });
    const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(tmp, archive);
    await rename(tmp, path);
    this.db
      .prepare('INSERT INTO bundles (bundle_id, size_bytes, created_at_ms, last_used_ms) VALUES (?, ?, ?, ?) ON CONFLICT(bundle_id) DO UPDATE SET last_used_ms = excluded.last_used_ms')
      .run(bundleId, archive.length, now, now);
  }

  /**
   * Reads a stored archive.
   * @throws {IrisError} IRIS_NOT_FOUND if it is not stored.
   */
  async get(bundleId: string, now: number): Promise<Buffer> {
    if (!this.has(bundleId)) throw new IrisError('IRIS_NOT_FOUND', `bundle "${bundleId}" not found`);
    this.db.prepare('UPDATE bundles SET last_used_ms = ? WHERE bundle_id = ?').run(now, bundleId);
    return readFile(this.pathOf(bundleId));
  }
}
