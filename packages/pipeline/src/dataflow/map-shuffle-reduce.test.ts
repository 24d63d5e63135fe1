import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dataflowTask } from './dataflow-task.js';
import type { DataflowTaskArgs } from './dataflow-task.js';
import { partitionOfKey } from './partition-of.js';
import { runTasks } from './run-tasks.js';
import { readShufflePartition } from './shuffle-reader.js';
import { createShuffleWriter, shuffleFilesOf } from './shuffle-writer.js';
import type { ShuffleMapOutput } from './shuffle-writer.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dataflow-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const signal = new AbortController().signal;
const COLUMNS = [
  { name: 'word', type: 'string' },
  { name: 'n', type: 'int64' },
] as const;

interface MapArgs extends DataflowTaskArgs {
  words: string[];
  shuffle_dir: string;
  name: string;
}
interface ReduceArgs extends DataflowTaskArgs {
  files: string[];
}

/** Word count: maps emit (word, 1) into 3 partitions sorted by word; reducers merge and sum. */
function wordCount(calls: string[], failOn: string | null = null) {
  const map = dataflowTask<MapArgs, { shuffle: ShuffleMapOutput }>(async (args) => {
    calls.push(args.name);
    if (args.name === failOn) throw new Error(`map ${args.name} failed`);
    // a tiny spill budget makes several sorted runs per partition
    const w = createShuffleWriter({ dir: args.shuffle_dir, mapTask: args.name, numPartitions: 3, columns: [...COLUMNS], sortKey: 'word', spillBytes: 64 });
    for (const word of args.words) await w.add(partitionOfKey(word, 3), { word, n: 1n });
    return { shuffle: await w.close() };
  });
  const reduce = dataflowTask<ReduceArgs, Record<string, number>>(async (args) => {
    const counts: Record<string, number> = {};
    let last = '';
    for await (const r of readShufflePartition({ files: args.files, sortKey: 'word', signal })) {
      const word = r['word'] as string;
      expect(word >= last).toBe(true);
      last = word;
      counts[word] = (counts[word] ?? 0) + Number(r['n']);
    }
    return counts;
  });
  return { map, reduce };
}

const TEXT = ['the cat sat on the mat', 'the dog sat on the log', 'a cat and a dog'];
const common = { workDir: '', exportName: 'unused', maxParallelism: 2, signal, jobNamePrefix: 'wc' };

async function run(calls: string[], failOn: string | null = null): Promise<Record<string, number>> {
  const { map, reduce } = wordCount(calls, failOn);
  const workDir = join(dir, 'work');
  const maps = await runTasks<MapArgs, { shuffle: ShuffleMapOutput }>({
    ...common,
    workDir,
    phase: 'map',
    task: map,
    tasks: TEXT.map((t, i) => ({ name: `m${i}`, args: { words: t.split(' '), shuffle_dir: join(workDir, 'shuffle'), name: `m${i}` } })),
  });
  const reduced = await runTasks<ReduceArgs, Record<string, number>>({
    ...common,
    workDir,
    phase: 'reduce',
    task: reduce,
    tasks: [0, 1, 2].map((p) => ({ name: `r${p}`, args: { files: shuffleFilesOf(maps.map((m) => m.shuffle), p) } })),
  });
  return Object.assign({}, ...reduced) as Record<string, number>;
}

describe('map / shuffle / reduce on storage files', () => {
  it('counts words across map tasks through sorted, spilled shuffle runs', async () => {
    const counts = await run([]);
    expect(counts).toEqual({ the: 4, cat: 2, sat: 2, on: 2, mat: 1, dog: 2, log: 1, a: 2, and: 1 });
    const runs = (await readdir(join(dir, 'work/shuffle'), { recursive: true })).filter((f) => f.endsWith('.parquet'));
    expect(runs.length).toBeGreaterThan(9);
  });

  it('resumes: a rerun after a failed task runs only the unfinished tasks and gives the same result', async () => {
    const first: string[] = [];
    await expect(run(first, 'm2')).rejects.toThrow('map m2 failed');
    expect((await readdir(join(dir, 'work/map'))).sort()).toEqual(['m0.done.json', 'm1.done.json']);
    const second: string[] = [];
    expect(await run(second)).toEqual({ the: 4, cat: 2, sat: 2, on: 2, mat: 1, dog: 2, log: 1, a: 2, and: 1 });
    expect(second).toEqual(['m2']);
    const third: string[] = [];
    await run(third);
    expect(third).toEqual([]);
  });

  it('hands a task that reduces itself its spilled runs and what is still in memory, merged in order', async () => {
    // records keep a rich field in memory; only spilled ones are encoded through toRow
    const w = createShuffleWriter({
      dir: join(dir, 'shuffle'),
      mapTask: 'single',
      numPartitions: 2,
      columns: [
        { name: 'word', type: 'string' },
        { name: 'pos', type: 'string' },
      ],
      sortKey: 'word',
      spillBytes: 120,
      toRow: (r) => ({ word: r['word'], pos: JSON.stringify(r['pos']) }),
    });
    const words = 'the cat sat on the mat and the dog sat on the log'.split(' ');
    for (const [i, word] of words.entries()) await w.add(word.length % 2, { word, pos: { i } });
    const { output, buffered } = w.closeInMemory();
    expect(output.records).toBe(words.length);
    expect(output.files.flat().length).toBeGreaterThan(0);
    expect(buffered.flat().length).toBeGreaterThan(0);
    for (const rows of buffered) for (const r of rows) expect(typeof r['pos']).toBe('object');
    const merged: { word: string; i: number }[] = [];
    for (const p of [0, 1]) {
      for await (const r of readShufflePartition({ files: output.files[p] ?? [], sortKey: 'word', buffered: buffered[p] ?? [], signal })) {
        const pos = typeof r['pos'] === 'string' ? (JSON.parse(r['pos']) as { i: number }) : (r['pos'] as { i: number });
        merged.push({ word: r['word'] as string, i: pos.i });
      }
    }
    // every record once; each partition sorted by word, equal words in the order they were added
    const expected = [0, 1].flatMap((p) =>
      words
        .map((word, i) => ({ word, i }))
        .filter((r) => r.word.length % 2 === p)
        .sort((a, b) => (a.word < b.word ? -1 : a.word > b.word ? 1 : a.i - b.i)),
    );
    expect(merged).toEqual(expected);
  });
});
