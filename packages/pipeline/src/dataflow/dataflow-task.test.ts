import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dataflowTask, readTaskResult } from './dataflow-task.js';
import type { DataflowTaskArgs } from './dataflow-task.js';

interface Args extends DataflowTaskArgs {
  parts: { url: string; bytes: number }[];
  num_shards: number;
}

describe('dataflowTask()', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dataflow-task-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('skips a task whose marker was written for the same arguments, and runs it again when they changed', async () => {
    const runs: number[] = [];
    const task = dataflowTask<Args, number>(async (args) => {
      runs.push(args.num_shards);
      return args.parts.reduce((a, p) => a + p.bytes, 0) * args.num_shards;
    });
    const done_url = join(dir, 'map', 'map-00000.done.json');
    const args: Args = { done_url, parts: [{ url: 'a.parquet', bytes: 10 }], num_shards: 2 };
    await task(args);
    await task(args);
    expect(runs).toEqual([2]);
    expect(await readTaskResult(done_url)).toBe(20);
    expect(JSON.parse(await readFile(done_url, 'utf8'))).toEqual({ args: expect.stringMatching(/^[0-9a-f]{32}$/), result: 20 });

    // The input was rewritten (another size), then the shard count changed: each marker is stale.
    await task({ ...args, parts: [{ url: 'a.parquet', bytes: 12 }] });
    await task({ ...args, parts: [{ url: 'a.parquet', bytes: 12 }], num_shards: 3 });
    expect(runs).toEqual([2, 2, 3]);
    expect(await readTaskResult(done_url)).toBe(36);
  });
});
