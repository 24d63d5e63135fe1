import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { IrisError } from '../../errors.js';
import { sqliteModulePath } from '../../internal/native-deps.js';
import type { ControllerDatabase } from './database.js';

/** Row cap when the caller names none, and the most a caller may ask for. */
export const QUERY_DEFAULT_ROWS = 1000;
export const QUERY_MAX_ROWS = 10_000;
/** Deadline when the caller names none, and the longest a caller may ask for. */
export const QUERY_DEFAULT_TIMEOUT_MS = 10_000;
export const QUERY_MAX_TIMEOUT_MS = 60_000;
/** A result stops growing past this much row text, whatever the row cap (rows of log lines are large). */
export const QUERY_MAX_BYTES = 32 * 1024 * 1024;

/** What a query returns: column names, rows as JSON arrays, and whether the cap cut it. */
export interface StateQueryResult {
  readonly columns: string[];
  readonly rows: string[];
  readonly truncated: boolean;
  readonly elapsedMs: number;
}

// Runs in a child process so a runaway query can be stopped (better-sqlite3 is synchronous, and a
// worker thread inside one native step cannot be terminated) without blocking the controller. It
// opens its own read-only connection: to the database file, or to a private copy of an in-memory
// database written for it. The request comes on stdin, the answer goes to stdout, both JSON.
const CHILD_SOURCE = `
let input = '';
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
  const req = JSON.parse(input);
  const Database = require(req.sqlite);
  const out = (m) => process.stdout.write(JSON.stringify(m));
  const db = new Database(req.path, { readonly: true, fileMustExist: true });
  try {
    db.pragma('query_only = ON');
    let stmt;
    try {
      stmt = db.prepare(req.sql);
    } catch (e) {
      return out({ error: e.message });
    }
    if (!stmt.readonly || !stmt.reader) return out({ error: 'only a single read-only statement that returns rows (SELECT, WITH ... SELECT, a read-only PRAGMA) may run' });
    const value = (v) => (Buffer.isBuffer(v) ? v.toString('hex') : typeof v === 'bigint' ? v.toString() : v);
    db.exec('BEGIN');
    const rows = [];
    let truncated = false;
    let bytes = 0;
    for (const row of stmt.raw(true).iterate()) {
      if (rows.length === req.maxRows || bytes > req.maxBytes) { truncated = true; break; }
      const text = JSON.stringify(row.map(value));
      bytes += text.length;
      rows.push(text);
    }
    db.exec('COMMIT');
    out({ columns: stmt.columns().map((c) => c.name), rows, truncated });
  } catch (e) {
    out({ error: e.message });
  } finally {
    db.close();
  }
});
`;

/**
 * Runs one read-only SQL statement against a consistent snapshot of the controller's database (one
 * read transaction on a separate connection), with a row cap and a deadline.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for SQL that is not one read-only statement returning rows,
 * or that fails; IRIS_DEADLINE_EXCEEDED when it runs past its deadline (the query is stopped).
 */
export async function queryState(db: ControllerDatabase, request: { sql: string; maxRows: number; timeoutMs: number }): Promise<StateQueryResult> {
  if (request.sql.trim() === '') throw new IrisError('IRIS_INVALID_ARGUMENT', 'empty query');
  const maxRows = Math.min(request.maxRows > 0 ? request.maxRows : QUERY_DEFAULT_ROWS, QUERY_MAX_ROWS);
  const timeoutMs = Math.min(request.timeoutMs > 0 ? request.timeoutMs : QUERY_DEFAULT_TIMEOUT_MS, QUERY_MAX_TIMEOUT_MS);
  const started = Date.now();
  let copy: string | undefined;
  if (db.memory) {
    copy = join(mkdtempSync(join(tmpdir(), 'iris-query-')), 'snapshot.sqlite3');
    writeFileSync(copy, db.serialize());
  }
  const child = spawn(process.execPath, ['-e', CHILD_SOURCE], { stdio: ['pipe', 'pipe', 'pipe'] });
  try {
    const reply = await new Promise<{ columns: string[]; rows: string[]; truncated: boolean } | { error: string }>((resolve, reject) => {
      let out = '';
      let err = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new IrisError('IRIS_DEADLINE_EXCEEDED', `query ran past its ${timeoutMs} ms deadline and was stopped`));
      }, timeoutMs);
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.once('error', (e) => {
        clearTimeout(timer);
        reject(new IrisError('IRIS_INTERNAL', `query process failed: ${e.message}`, { cause: e }));
      });
      child.once('close', (code) => {
        clearTimeout(timer);
        try {
          resolve(JSON.parse(out) as never);
        } catch {
          reject(new IrisError('IRIS_INTERNAL', `query process exited ${code}: ${err.trim().split('\n').at(-1) ?? ''}`));
        }
      });
      child.stdin.end(JSON.stringify({ sqlite: sqliteModulePath(), path: copy ?? db.name, sql: request.sql, maxRows, maxBytes: QUERY_MAX_BYTES }));
    });
    if ('error' in reply) throw new IrisError('IRIS_INVALID_ARGUMENT', `query: ${reply.error}`);
    return { ...reply, elapsedMs: Date.now() - started };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (copy !== undefined) rmSync(dirname(copy), { recursive: true, force: true });
  }
}
