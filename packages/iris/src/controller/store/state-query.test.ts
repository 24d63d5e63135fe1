import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openControllerDatabase } from './database.js';
import { QUERY_MAX_BYTES, queryState } from './state-query.js';

const dir = mkdtempSync(join(tmpdir(), 'iris-query-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(['file', 'memory'])('queryState on a %s database', (kind) => {
  const db = openControllerDatabase(kind === 'file' ? join(dir, 'controller.sqlite3') : ':memory:');
  db.exec("INSERT INTO meta (key, value) VALUES ('q1', 'a'), ('q2', 'b'), ('q3', x'00ff')");

  it('returns columns and rows as JSON arrays, blobs as hex', async () => {
    const r = await queryState(db, { sql: "SELECT key, value FROM meta WHERE key LIKE 'q%' ORDER BY key", maxRows: 0, timeoutMs: 0 });
    expect(r.columns).toEqual(['key', 'value']);
    expect(r.rows.map((row) => JSON.parse(row))).toEqual([
      ['q1', 'a'],
      ['q2', 'b'],
      ['q3', '00ff'],
    ]);
    expect(r.truncated).toBe(false);
  });

  it('stops at the row cap and says so', async () => {
    const r = await queryState(db, { sql: "SELECT key FROM meta WHERE key LIKE 'q%' ORDER BY key", maxRows: 2, timeoutMs: 0 });
    expect(r.rows).toHaveLength(2);
    expect(r.truncated).toBe(true);
  });

  it('stops at the byte cap too, whatever the row cap', async () => {
    const sql = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) SELECT i, printf('%.*c', 300000, 'x') FROM n`;
    const r = await queryState(db, { sql, maxRows: 10_000, timeoutMs: 30_000 });
    expect(r.truncated).toBe(true);
    expect(r.rows.length).toBeLessThan(200);
    expect(r.rows.join('').length).toBeLessThan(QUERY_MAX_BYTES + 400_000);
  }, 60_000);

  it('refuses writes, several statements and bad SQL, and changes nothing', async () => {
    for (const sql of ["DELETE FROM meta WHERE key = 'q1'", "UPDATE meta SET value = 'x'", 'SELECT 1; DROP TABLE meta', 'SELEC nonsense', '  ', "ATTACH DATABASE 'x.db' AS x"]) {
      await expect(queryState(db, { sql, maxRows: 0, timeoutMs: 0 }), sql).rejects.toMatchObject({ code: 'IRIS_INVALID_ARGUMENT' });
    }
    expect(db.prepare("SELECT COUNT(*) AS n FROM meta WHERE key LIKE 'q%'").get()).toEqual({ n: 3 });
  });

  it('stops a query that runs past its deadline', async () => {
    const forever = 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT COUNT(*) FROM n';
    await expect(queryState(db, { sql: forever, maxRows: 0, timeoutMs: 300 })).rejects.toMatchObject({ code: 'IRIS_DEADLINE_EXCEEDED' });
    // The controller's own connection still answers.
    expect(db.prepare('SELECT 1 AS one').get()).toEqual({ one: 1 });
  });
});
