import type Database from 'better-sqlite3';
import { IrisError } from '../../errors.js';
import { loadSqlite } from '../../internal/native-deps.js';
import { MIGRATIONS } from './schema.js';

/** An open controller database (better-sqlite3 handle). */
export type ControllerDatabase = Database.Database;

/**
 * Opens (creating if needed) the controller database at `path` (`:memory:` for tests): WAL,
 * `synchronous=NORMAL`, foreign keys on, then applies pending migrations.
 * @throws {IrisError} IRIS_INTERNAL if the file fails `PRAGMA quick_check`; IRIS_FAILED_PRECONDITION if
 * the optional peer `better-sqlite3` is not installed.
 */
export function openControllerDatabase(path: string): ControllerDatabase {
  const Sqlite = loadSqlite();
  const db = new Sqlite(path);
  try {
    if (path !== ':memory:') {
      const check = db.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new IrisError('IRIS_INTERNAL', `controller database "${path}" failed quick_check (${String(check)}); restart with --fresh`);
      db.pragma('journal_mode = WAL');
    }
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

function migrate(db: ControllerDatabase): void {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get() !== undefined;
  let version = 0;
  if (hasMeta) {
    const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
    version = row ? Number(row.value) : 0;
  }
  if (version > MIGRATIONS.length) {
    throw new IrisError('IRIS_INTERNAL', `controller database schema version ${version} is newer than this controller (${MIGRATIONS.length})`);
  }
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(String(v + 1));
    })();
  }
}

/** Reads an integer from the `meta` table. */
export function readMetaNumber(db: ControllerDatabase, key: string, fallback: number): number {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
  return row ? Number(row.value) : fallback;
}

/** Writes an integer to the `meta` table. */
export function writeMetaNumber(db: ControllerDatabase, key: string, value: number): void {
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, String(value));
}
