import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ls, readBytes, rm, writeBytes } from '@marin/rigging';
import type { ControllerDatabase } from './database.js';
import { IrisError } from '../../errors.js';
import { loadSqlite, loadZstd } from '../../internal/native-deps.js';

/** Checkpoints older than this are pruned after each new one. */
export const CHECKPOINT_RETENTION_MS = 3 * 24 * 3600 * 1000;
const FILE = 'controller.sqlite3.zst';

/** One checkpoint written to remote storage. */
export interface CheckpointInfo {
  /** `<remoteStateDir>/controller-state/<epoch ms>/controller.sqlite3.zst`. */
  readonly url: string;
  /** Compressed size. */
  readonly bytes: number;
  readonly createdAtMs: number;
}

function stateRoot(remoteStateDir: string): string {
  return `${remoteStateDir.replace(/\/+$/, '')}/controller-state`;
}

/**
 * Writes a checkpoint: a hot backup of the live database (better-sqlite3's online backup, so the
 * control loop keeps writing meanwhile), zstd-compressed, to
 * `<remoteStateDir>/controller-state/<epoch ms>/controller.sqlite3.zst` through rigging (any
 * scheme it serves, `gs://` included). Checkpoints older than 3 days are then pruned; the newest is
 * never pruned.
 * @throws {IrisError} IRIS_UNAVAILABLE when the backup or the upload fails.
 */
export async function writeCheckpoint(options: { db: ControllerDatabase; remoteStateDir: string; nowMs?: number; retentionMs?: number }): Promise<CheckpointInfo> {
  const createdAtMs = options.nowMs ?? Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'iris-checkpoint-'));
  try {
    const file = join(dir, 'controller.sqlite3');
    await options.db.backup(file);
    const packed = (await zstd()).compress(readFileSync(file));
    const url = `${stateRoot(options.remoteStateDir)}/${createdAtMs}/${FILE}`;
    await writeBytes(url, packed);
    await pruneCheckpoints(options.remoteStateDir, createdAtMs - (options.retentionMs ?? CHECKPOINT_RETENTION_MS));
    return { url, bytes: packed.length, createdAtMs };
  } catch (e) {
    throw IrisError.is(e) ? e : new IrisError('IRIS_UNAVAILABLE', `cannot write a controller checkpoint to "${options.remoteStateDir}"`, { cause: e });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Checkpoint times under `remoteStateDir`, newest first. */
export async function listCheckpoints(remoteStateDir: string): Promise<number[]> {
  let entries;
  try {
    entries = await ls(stateRoot(remoteStateDir));
  } catch (e) {
    if ((e as { code?: string }).code === 'RIGGING_NOT_FOUND') return [];
    throw e;
  }
  return entries
    .map((e) => Number(e.url.replace(/\/+$/, '').split('/').pop()))
    .filter((n) => Number.isInteger(n) && n > 0)
    .sort((a, b) => b - a);
}

async function pruneCheckpoints(remoteStateDir: string, olderThanMs: number): Promise<void> {
  const [, ...older] = await listCheckpoints(remoteStateDir);
  for (const t of older) if (t < olderThanMs) await rm(`${stateRoot(remoteStateDir)}/${t}`, { recursive: true, missingOk: true });
}

/** Why the local database needs restoring, or `undefined` when it is usable. */
export function localDatabaseProblem(dbPath: string): string | undefined {
  if (!existsSync(dbPath)) return 'missing';
  const Sqlite = loadSqlite();
  try {
    const db = new Sqlite(dbPath, { readonly: true, fileMustExist: true });
    try {
      const check = db.pragma('quick_check', { simple: true });
      return check === 'ok' ? undefined : `quick_check: ${String(check)}`;
    } finally {
      db.close();
    }
  } catch (e) {
    return `unreadable: ${e instanceof Error ? e.message : String(e)}`;
  }
}

/**
 * Restores the newest checkpoint into `dbPath` when the local database is missing or fails
 * `PRAGMA quick_check`. A corrupt file is kept beside it as `<dbPath>.corrupt-<epoch ms>`.
 * Returns what was restored, or `undefined` when nothing was needed or no checkpoint exists.
 * @throws {IrisError} IRIS_UNAVAILABLE when the checkpoint cannot be read.
 */
export async function restoreCheckpointIfNeeded(options: { dbPath: string; remoteStateDir: string; warn?: (m: string) => void }): Promise<{ createdAtMs: number; reason: string } | undefined> {
  const reason = localDatabaseProblem(options.dbPath);
  if (reason === undefined) return undefined;
  const [newest] = await listCheckpoints(options.remoteStateDir);
  if (newest === undefined) return undefined;
  await installCheckpoint(options.dbPath, options.remoteStateDir, newest, reason === 'missing' ? null : `corrupt-${Date.now()}`);
  options.warn?.(`restored controller database from checkpoint ${newest} (local database ${reason})`);
  return { createdAtMs: newest, reason };
}

/**
 * Restores the checkpoint taken at `createdAtMs` into `dbPath` on an operator's request (the
 * controller must be stopped). A database already there is kept beside it as
 * `<dbPath>.replaced-<epoch ms>`, so a restore can be undone.
 * @returns where the replaced database went, or null when there was none
 * @throws {IrisError} IRIS_NOT_FOUND for a checkpoint that does not exist; IRIS_UNAVAILABLE when it cannot be read.
 */
export async function restoreCheckpoint(options: { dbPath: string; remoteStateDir: string; createdAtMs: number }): Promise<{ replaced: string | null }> {
  const all = await listCheckpoints(options.remoteStateDir);
  if (!all.includes(options.createdAtMs)) {
    throw new IrisError('IRIS_NOT_FOUND', `no checkpoint ${options.createdAtMs} under "${options.remoteStateDir}"; there are: ${all.join(', ') || 'none'}`);
  }
  const suffix = `replaced-${Date.now()}`;
  const had = existsSync(options.dbPath);
  await installCheckpoint(options.dbPath, options.remoteStateDir, options.createdAtMs, had ? suffix : null);
  return { replaced: had ? `${options.dbPath}.${suffix}` : null };
}

/** Writes checkpoint `createdAtMs` to `dbPath`, moving an existing file aside to `<dbPath>.<keepAs>` first. */
async function installCheckpoint(dbPath: string, remoteStateDir: string, createdAtMs: number, keepAs: string | null): Promise<void> {
  let raw: Buffer;
  try {
    raw = (await zstd()).decompress(await readBytes(`${stateRoot(remoteStateDir)}/${createdAtMs}/${FILE}`));
  } catch (e) {
    throw new IrisError('IRIS_UNAVAILABLE', `cannot read controller checkpoint ${createdAtMs} from "${remoteStateDir}"`, { cause: e });
  }
  if (keepAs !== null && existsSync(dbPath)) {
    // The write-ahead log goes with its database, so the kept copy opens with every committed write.
    for (const suffix of ['', '-wal']) if (existsSync(`${dbPath}${suffix}`)) renameSync(`${dbPath}${suffix}`, `${dbPath}.${keepAs}${suffix}`);
  }
  for (const suffix of ['-wal', '-shm']) rmSync(`${dbPath}${suffix}`, { force: true });
  const tmp = `${dbPath}.restore`;
  writeFileSync(tmp, raw);
  renameSync(tmp, dbPath);
}

/** The zstd binding, loaded on first use: a controller without checkpoints (and every importer of this package) never loads the native addon. */
async function zstd(): Promise<typeof import('zstd-napi')> {
  return loadZstd();
}
