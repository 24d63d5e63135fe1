import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createIrisBackend, withClient } from '@marin/fray';
import type { IrisBackend } from '@marin/fray';
import { startLocalCluster } from '@marin/iris';
import type { LocalClusterHandle } from '@marin/iris';
import { exists } from '@marin/rigging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partFileName } from '../../src/attributes/attribute-dataset.js';
import { computeMinhashAttrs, minhashPartTask } from '../../src/curation/minhash/minhash-attrs.js';
import type { MinhashPartArgs } from '../../src/curation/minhash/minhash-attrs.js';
import { parseMinHashParams } from '../../src/curation/minhash/minhash-params.js';
import { runTasks } from '../../src/dataflow/run-tasks.js';
import { partJobName } from '../../src/fanout/run-parts.js';
import { writeParquetPart } from '../../src/formats/parquet-part-writer.js';

// Tasks as Iris jobs on one embedded cluster, which keeps finished jobs by name: a rerun must not adopt the failed
// job of its earlier attempt, and two steps whose parts share names must each run their own.
let cluster: LocalClusterHandle;
let backend: IrisBackend;
let dir: string;
const quiet = { info: () => undefined, warn: () => undefined };
const COLUMNS = [
  { name: 'id', type: 'string' as const, nullable: false },
  { name: 'text', type: 'string' as const, nullable: false },
];
const rows = Array.from({ length: 50 }, (_, i) => ({ id: `doc-${String(i).padStart(3, '0')}`, text: `document number ${i} says ${'word '.repeat(i % 7)}` }));
const RESOURCES = { cpu: 0.5, ram: '512m' };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'run-parts-iris-'));
  cluster = await startLocalCluster({ workers: 1, cpuMillicores: 2000, termTimeoutMs: 1000 });
  backend = createIrisBackend({ irisClient: cluster.client(), inPlace: true, logger: quiet });
}, 60_000);

afterAll(async () => {
  await backend?.close();
  await cluster?.close();
  await rm(dir, { recursive: true, force: true });
}, 60_000);

describe('runTasks as Iris jobs', () => {
  it('reruns a task whose job failed on the same cluster, instead of adopting the failed job', async () => {
    const source = join(dir, 'late', partFileName(0, 1));
    const output = join(dir, 'late-minhash', partFileName(0, 1));
    const run = (): Promise<unknown[]> =>
      withClient(backend, () =>
        runTasks<MinhashPartArgs, Record<string, number>>({
          phase: 'minhash',
          workDir: join(dir, 'late-minhash', '.work'),
          tasks: [{ name: 'part-00000-of-00001', args: { source_url: source, output_url: output, params: parseMinHashParams({}) as MinhashPartArgs['params'], text_field: 'text' } }],
          task: minhashPartTask,
          exportName: 'minhashPartTask',
          resources: RESOURCES,
          maxParallelism: 1,
          signal: new AbortController().signal,
          jobNamePrefix: 'late',
        }),
      );
    // The input is missing: the job fails (as a killed task's job does).
    await expect(run()).rejects.toMatchObject({ code: 'FRAY_JOB_FAILED' });
    await writeParquetPart(source, rows, { columns: COLUMNS });
    const [counters] = await run();
    expect(counters).toMatchObject({ documents: 50 });
    expect(await exists(output)).toBe(true);
  }, 180_000);

  it('runs the parts of two steps with the same part names as separate jobs', async () => {
    const source = join(dir, 'docs');
    await writeParquetPart(join(source, partFileName(0, 1)), rows, { columns: COLUMNS });
    for (const out of ['first', 'second']) {
      const manifest = await withClient(backend, () => computeMinhashAttrs({ source, outputDir: join(dir, out), resources: RESOURCES, maxParallelism: 1 }));
      expect(manifest.counters.documents).toBe(50);
      expect(await exists(join(dir, out, partFileName(0, 1)))).toBe(true);
    }
  }, 180_000);
});

describe('partJobName()', () => {
  it('is stable for the same part, differs with its args, and stays a valid name under 128 characters', () => {
    const part = { name: 'part-00000-of-00004', args: { output: 'gs://b/x' } };
    expect(partJobName('minhash-minhash', part)).toBe(partJobName('minhash-minhash', { ...part }));
    expect(partJobName('minhash-minhash', part)).toMatch(/^minhash-minhash-part-00000-of-00004-[0-9a-f]{8}$/);
    expect(partJobName('minhash-minhash', { ...part, args: { output: 'gs://b/y' } })).not.toBe(partJobName('minhash-minhash', part));
    const long = partJobName('x'.repeat(200), part);
    expect(long.length).toBeLessThanOrEqual(128);
    expect(long).toMatch(/^x+-[0-9a-f]{8}$/);
  });
});
