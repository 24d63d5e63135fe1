import { afterEach, describe, expect, it } from 'vitest';
import { LogQuery } from '../../gen/iris/v1/controller.js';
import { LogSource } from '../../gen/iris/v1/types.js';
import type { LogEntry } from '../../gen/iris/v1/types.js';
import { openControllerDatabase } from './database.js';
import type { ControllerDatabase } from './database.js';
import { SqliteLogStore } from './log-store.js';

let db: ControllerDatabase | undefined;
afterEach(() => db?.close());

function entry(taskId: string, seq: number, data: string, extra: Partial<LogEntry> = {}): LogEntry {
  return { taskId, attemptId: 0, attemptUid: `${taskId}-uid`, seq, timestampMs: 1000 + seq, source: LogSource.LOG_SOURCE_STDOUT, level: 20, data, ...extra };
}

function store() {
  db = openControllerDatabase(':memory:');
  const logs = new SqliteLogStore(db);
  logs.append([
    entry('/u/j/0', 0, 'hello'),
    entry('/u/j/0', 1, 'ERROR boom', { level: 40, source: LogSource.LOG_SOURCE_STDERR }),
    entry('/u/j/1', 0, 'other task'),
    entry('/u/j/0', 0, 'retry attempt', { attemptId: 1, attemptUid: 'second', timestampMs: 5000 }),
    entry('/u/j/c/0', 0, 'child line'),
    entry('/u/jj/0', 0, 'sibling tree'),
    entry('/u/j/0', 2, 'build step', { source: LogSource.LOG_SOURCE_BUILD }),
  ]);
  return logs;
}
const q = (p: Partial<LogQuery>) => LogQuery.fromPartial(p);

describe('SqliteLogStore', () => {
  it('ignores duplicate (attempt_uid, seq) pushes', () => {
    const logs = store();
    expect(logs.append([entry('/u/j/0', 0, 'hello'), entry('/u/j/0', 1, 'ERROR boom')])).toBe(0);
    expect(logs.query(q({ taskId: '/u/j/0' })).entries).toHaveLength(4);
  });
  it('fetches by task, by job with and without children, and by attempt', () => {
    const logs = store();
    expect(logs.query(q({ taskId: '/u/j/1' })).entries.map((e) => e.data)).toEqual(['other task']);
    expect(logs.query(q({ jobId: '/u/j' })).entries.map((e) => e.data)).toContain('child line');
    expect(logs.query(q({ jobId: '/u/j' })).entries.map((e) => e.data)).not.toContain('sibling tree');
    expect(logs.query(q({ jobId: '/u/j', includeChildren: false })).entries.map((e) => e.data)).not.toContain('child line');
    expect(logs.query(q({ taskId: '/u/j/0', attemptId: 1 })).entries.map((e) => e.data)).toEqual(['retry attempt']);
  });
  it('filters by since, substring and min level; keeps sources', () => {
    const logs = store();
    expect(logs.query(q({ jobId: '/u/j', sinceMs: 4000 })).entries.map((e) => e.data)).toEqual(['retry attempt']);
    expect(logs.query(q({ jobId: '/u/j', substring: 'boom' })).entries.map((e) => e.data)).toEqual(['ERROR boom']);
    expect(logs.query(q({ jobId: '/u/j', minLevel: 40 })).entries.map((e) => [e.data, e.source])).toEqual([['ERROR boom', LogSource.LOG_SOURCE_STDERR]]);
  });
  it('tails the last matches in time order and pages by cursor', () => {
    const logs = store();
    expect(logs.query(q({ taskId: '/u/j/0', tail: true, maxLines: 2 })).entries.map((e) => e.data)).toEqual(['retry attempt', 'build step']);
    const first = logs.query(q({ jobId: '/u/j', maxLines: 2 }));
    expect(first.truncated).toBe(true);
    const second = logs.query(q({ jobId: '/u/j', maxLines: 2, cursor: first.cursor }));
    expect([...first.entries, ...second.entries].map((e) => e.data)).toEqual(['hello', 'ERROR boom', 'other task', 'retry attempt']);
  });
  it('rejects a query with neither task nor job', () => {
    expect(() => store().query(q({}))).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
  });
  it('caps a page at about 1 MiB of text and pages the rest by cursor', () => {
    const logs = store();
    const big = 'x'.repeat(60 * 1024);
    logs.append(Array.from({ length: 40 }, (_, i) => entry('/u/big/0', i, big)));
    const first = logs.query(q({ jobId: '/u/big', maxLines: 10_000 }));
    expect(first.truncated).toBe(true);
    expect(first.entries.length).toBeLessThan(40);
    expect(first.entries.reduce((n, e) => n + e.data.length, 0)).toBeLessThanOrEqual(1024 * 1024);
    let seen = first.entries.length;
    let cursor = first.cursor;
    for (;;) {
      const next = logs.query(q({ jobId: '/u/big', maxLines: 10_000, cursor }));
      seen += next.entries.length;
      cursor = next.cursor;
      if (!next.truncated) break;
    }
    expect(seen).toBe(40);
  });
});
