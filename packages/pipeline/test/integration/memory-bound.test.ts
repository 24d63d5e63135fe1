// Normalize streams: run in a child Node process over far more parquet than one row group, its peak resident
// memory (`process.resourceUsage().maxRSS`, reported by the child) stays bounded by its settings, not by the input.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeParquetPart } from '../../src/formats/parquet-part-writer.js';
import type { MemoryChildTask } from '../helpers/memory-child.js';

const MiB = 1024 * 1024;
const CHILD = join(dirname(fileURLToPath(import.meta.url)), '..', 'helpers', 'memory-child.ts');

interface ChildReport {
  baselineRssBytes: number;
  peakRssBytes: number;
  result: Record<string, number>;
}

/** Runs one stage in a child Node process with `nodeFlags` and returns what it reports. */
function runChild(task: MemoryChildTask, nodeFlags: string[]): Promise<ChildReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, '--conditions=@marin/source', '--import', 'tsx', CHILD, JSON.stringify(task)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`memory child exited ${code}:\n${stderr.slice(-3000)}`));
      else resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as ChildReport);
    });
  });
}

/** `count` documents of 800 pseudo-words (about 4.7 KB each), from a fixed linear congruential stream. */
function* documents(count: number): Generator<{ id: bigint; text: string; url: string }> {
  const words = Array.from({ length: 5000 }, (_, i) => `w${(i * 7919).toString(36)}`);
  let s = 12345;
  for (let i = 0; i < count; i++) {
    let text = `document ${i}`;
    for (let w = 0; w < 800; w++) {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      text += ` ${words[s % 5000]}`;
    }
    yield { id: BigInt(i), text, url: `https://example.org/${i}` };
  }
}

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipeline-memory-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('memory bounds (child processes)', () => {
  it('normalize reads 91 MiB of parquet in 1 MiB row groups with a 64 MiB JS heap, and adds at most 64 MiB of resident memory', async () => {
    const input = join(dir, 'raw', 'data.parquet');
    const count = 17_000;
    const written = await writeParquetPart(input, documents(count), {
      columns: [
        { name: 'id', type: 'int64' },
        { name: 'text', type: 'string' },
        { name: 'url', type: 'string' },
      ],
      codec: 'uncompressed',
      rowGroupBytes: MiB,
    });
    const inputBytes = (await stat(input)).size;
    expect(inputBytes).toBeGreaterThan(90 * MiB);
    expect(written.rowGroups).toBeGreaterThan(80);

    // The old-space cap is below the input's size: a normalize that held its input could not finish. The small
    // young generation keeps V8 from letting garbage pile up, so RSS measures what the stage holds.
    const report = await runChild(
      {
        stage: 'normalize',
        options: {
          input_path: join(dir, 'raw'),
          output_path: join(dir, 'normalized'),
          // Memory per task follows these: a row group per map task, the shuffle spill, one row group per run
          // merged (runs are at most a spill), the output row group; partitions of ~4 MiB keep the runs small.
          target_partition_bytes: 4 * MiB,
          spill_bytes: 4 * MiB,
          row_group_bytes: 2 * MiB,
          map_task_bytes: 16 * MiB,
          max_parallelism: 1,
        },
      },
      ['--max-old-space-size=64', '--max-semi-space-size=2'],
    );
    expect(report.result).toMatchObject({ 'normalize/records_in': count, 'normalize/unique_records_out': count });
    // Measured: 38 MiB above a 102 MiB baseline (the child's modules loaded; peak 140 MiB), for 91 MiB of input.
    expect(report.peakRssBytes - report.baselineRssBytes).toBeLessThan(64 * MiB);
    expect(report.peakRssBytes).toBeLessThan(report.baselineRssBytes + inputBytes);
  }, 240_000);

  it('normalize carries a 100 MB single document through in well under 1.5 GiB', async () => {
    const input = join(dir, 'big');
    await mkdir(input, { recursive: true });
    const big = `${'word '.repeat(10_000_000)}${' '.repeat(1000)}${'x'.repeat(49_999_000)}`;
    await writeFile(join(input, 'a.jsonl'), `${JSON.stringify({ id: 'big', text: big })}\n${JSON.stringify({ id: 'small', text: 'small' })}\n`);
    const report = await runChild({ stage: 'normalize', options: { input_path: input, output_path: join(dir, 'big-normalized') } }, []);
    expect(report.result).toMatchObject({ 'normalize/unique_records_out': 2, datakit_normalize_compacted_whitespace: 1 });
    // Measured: 0.83 GiB, the document held in a few forms at once (line, parsed text, compacted text, UTF-8
    // bytes, compressed page) — memory follows the largest document, not the dataset.
    expect(report.peakRssBytes).toBeLessThan(1.5 * 1024 * MiB);
  }, 240_000);
});
