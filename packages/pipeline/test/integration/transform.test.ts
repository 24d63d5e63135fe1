import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Executor, silentLogger } from '@marin/executor';
import {
  Entrypoint,
  MODULE_ARGS_FILE,
  MODULE_RUNNER_FILE,
  createLocalClient,
  findWorkspaceRoot,
  moduleRunnerArgs,
  moduleRunnerNodeFlags,
  moduleRunnerSource,
  withClient,
} from '@marin/fray';
import type { Client, JobRequest } from '@marin/fray';
import { describe, expect, it } from 'vitest';
import { quickstartDataPath } from '../../src/assets.js';
import { defaultTransform } from '../../src/steps/transform/default-transform.js';
import { parseMarkdownConfig } from '../../src/steps/transform/html-to-markdown.js';
import { htmlToMd } from '../../src/steps/transform/transform.js';
import { writeParquetPart } from '../../src/formats/parquet-part-writer.js';
import { compress } from 'zstd-napi';

interface TempDir extends AsyncDisposable {
  path: string;
}

async function tempDir(): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), 'pipeline-transform-'));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
}

const page = (title: string): string =>
  `<html><head><title>${title}</title></head><body><article><p>${title} has a harbor, a market and a mill by the river.</p></article></body></html>`;
const jsonl = (records: object[]): string => records.map((r) => `${JSON.stringify(r)}\n`).join('');

/** The first half of a gzip file: complete records at first, then the stream just stops. */
const truncated = (data: Buffer): Buffer => data.subarray(0, Math.floor(data.length / 2));

async function writeInputs(dir: string, files: Record<string, Buffer>): Promise<string> {
  const input = join(dir, 'in');
  for (const [name, data] of Object.entries(files)) {
    await mkdir(dirname(join(input, name)), { recursive: true });
    await writeFile(join(input, name), data);
  }
  return input;
}

async function readShard(path: string): Promise<Record<string, unknown>[]> {
  return gunzipSync(await readFile(path))
    .toString('utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Every file under `dir` (relative), temp siblings included; `[]` when `dir` does not exist. */
async function filesUnder(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
  } catch {
    return [];
  }
}

describe('the transform step', () => {
  it('turns the quickstart train and validation data into Markdown shards through the executor', async () => {
    await using dir = await tempDir();
    const train = defaultTransform('quickstart-train', join(quickstartDataPath(), 'train'));
    const validation = defaultTransform('quickstart-validation', join(quickstartDataPath(), 'validation'));
    const paths = await new Executor({ prefix: dir.path, logger: silentLogger }).run([train, validation], { progress: 'plain' });
    const trainOut = paths.get(train) as string;
    const validationOut = paths.get(validation) as string;
    const shards = (await filesUnder(trainOut)).filter((f) => f.endsWith('.jsonl.gz')).sort();
    expect(shards).toEqual(['data-00000-of-00002.jsonl.gz', 'data-00001-of-00002.jsonl.gz']);
    const records = [...(await readShard(join(trainOut, shards[0] as string))), ...(await readShard(join(trainOut, shards[1] as string)))];
    expect(records).toHaveLength(48);
    for (const record of records) {
      expect(Object.keys(record)).toEqual(['id', 'source', 'format', 'metadata', 'text']);
      expect(record).toMatchObject({ source: 'quickstart', format: 'md', metadata: { url: expect.stringMatching(/^https:\/\//) } });
      expect(record['text']).toMatch(/^# .+\n\n/);
      expect(record['text']).toContain('| Year | Population | Boats |');
    }
    expect(await readShard(join(validationOut, 'data-00000-of-00001.jsonl.gz'))).toHaveLength(12);
  });

  it('skips output shards that exist and writes the missing ones', async () => {
    await using dir = await tempDir();
    const input = await writeInputs(dir.path, {
      'a.jsonl.gz': gzipSync(jsonl([{ id: 'a', source: 's', text: page('A') }])),
      'b.jsonl.gz': gzipSync(jsonl([{ id: 'b', source: 's', text: page('B') }])),
    });
    const output = join(dir.path, 'out');
    await htmlToMd({ input_path: input, output_path: output });
    const first = join(output, 'data-00000-of-00002.jsonl.gz');
    const second = join(output, 'data-00001-of-00002.jsonl.gz');
    const before = (await stat(first)).mtimeMs;
    await rm(second);
    await new Promise((r) => setTimeout(r, 20));
    await htmlToMd({ input_path: input, output_path: output });
    expect((await stat(first)).mtimeMs).toBe(before);
    expect((await readShard(second)).map((r) => r['id'])).toEqual(['b']);
  });

  it.each([
    ['a line that is not JSON', gzipSync(`${JSON.stringify({ id: 'a', source: 's', text: page('A') })}\n{"id": "b", "text"\n`)],
    ['a record without the text key', gzipSync(jsonl([{ id: 'a', source: 's', text: page('A') }, { id: 'b', source: 's', html: page('B') }]))],
    ['a truncated gzip stream', truncated(gzipSync(jsonl(Array.from({ length: 50 }, (_, i) => ({ id: `d${i}`, source: 's', text: page(`T${i}`) })))))],
  ])('fails with PIPELINE_INPUT_INVALID on %s and leaves no output file', async (_what, data) => {
    await using dir = await tempDir();
    const input = await writeInputs(dir.path, { 'bad.jsonl.gz': data });
    const output = join(dir.path, 'out');
    const failure = htmlToMd({ input_path: input, output_path: output });
    await expect(failure).rejects.toMatchObject({ code: 'PIPELINE_INPUT_INVALID', details: { path: join(input, 'bad.jsonl.gz') } });
    expect(await filesUnder(output)).toEqual([]);
  });

  it('names the line of a malformed record', async () => {
    await using dir = await tempDir();
    const input = await writeInputs(dir.path, { 'bad.jsonl.gz': gzipSync(`${jsonl([{ id: 'a', source: 's', text: page('A') }])}\n[1]\n`) });
    await expect(htmlToMd({ input_path: input, output_path: join(dir.path, 'out') })).rejects.toMatchObject({
      code: 'PIPELINE_INPUT_INVALID',
      details: { line: 3 },
    });
  });
});

describe('the transform step on parquet and zstd inputs', () => {
  it('converts parquet and .jsonl.zst HTML records like gzip JSON lines, one output shard per input', async () => {
    await using dir = await tempDir();
    const input = await writeInputs(dir.path, { 'b.jsonl.zst': compress(Buffer.from(jsonl([{ id: 'b', source: 's', text: page('B') }]))) });
    await writeParquetPart(join(input, 'a.parquet'), [{ id: 'a', source: 's', text: page('A'), metadata: { n: 1n } }], {
      columns: [
        { name: 'id', type: 'string' },
        { name: 'source', type: 'string' },
        { name: 'text', type: 'string' },
        { name: 'metadata', type: 'parquet', elements: [{ name: 'metadata', repetition_type: 'OPTIONAL', num_children: 1 }, { name: 'n', type: 'INT64', repetition_type: 'OPTIONAL' }] },
      ],
    });
    const output = join(dir.path, 'out');
    await htmlToMd({ input_path: input, output_path: output });
    expect(await readShard(join(output, 'data-00000-of-00002.jsonl.gz'))).toEqual([
      { id: 'a', source: 's', format: 'md', metadata: { n: 1 }, text: expect.stringContaining('# A') },
    ]);
    expect(await readShard(join(output, 'data-00001-of-00002.jsonl.gz'))).toEqual([
      { id: 'b', source: 's', format: 'md', metadata: {}, text: expect.stringContaining('# B') },
    ]);
  });
});

describe('the transform step on Fray', () => {
  it('runs each group of shards as a module job of @marin/pipeline on a local client', async () => {
    await using dir = await tempDir();
    const input = await writeInputs(dir.path, {
      'a.jsonl.gz': gzipSync(jsonl([{ id: 'a', source: 's', text: page('A') }])),
      'b.jsonl.gz': gzipSync(jsonl([{ id: 'b', source: 's', text: page('B') }])),
      'c.jsonl.gz': gzipSync(jsonl([{ id: 'c', source: 's', text: page('C') }])),
    });
    const output = join(dir.path, 'documents-abc123');
    await using local = createLocalClient({ logger: silentLogger });
    const submitted: JobRequest[] = [];
    const client: Client = { ...local, submit: (request, options) => (submitted.push(request), local.submit(request, options)) };
    await withClient(client, () => htmlToMd({ input_path: input, output_path: output, resources: { cpu: 1, ram: '1g' }, shards_per_job: 2 }));
    expect(submitted.map((r) => r.entrypoint)).toEqual([
      expect.objectContaining({ kind: 'module', module: '@marin/pipeline', exportName: 'transformShards' }),
      expect.objectContaining({ kind: 'module', module: '@marin/pipeline', exportName: 'transformShards' }),
    ]);
    expect((await filesUnder(output)).sort()).toEqual(['data-00000-of-00003.jsonl.gz', 'data-00001-of-00003.jsonl.gz', 'data-00002-of-00003.jsonl.gz']);
    expect((await readShard(join(output, 'data-00002-of-00003.jsonl.gz')))[0]).toMatchObject({ id: 'c', text: expect.stringContaining('# C') });
  });

  it('runs the transformShards export from source in a subprocess, as a remote Fray task does', async () => {
    await using dir = await tempDir();
    const input = await writeInputs(dir.path, { 'a.jsonl.gz': gzipSync(jsonl([{ id: 'a', source: 's', text: page('A') }])) });
    const output = join(dir.path, 'out', 'data-00000-of-00001.jsonl.gz');
    const entrypoint = Entrypoint.fromModule({
      module: '@marin/pipeline',
      exportName: 'transformShards',
      args: { shards: [{ input: join(input, 'a.jsonl.gz'), output }], extract_method: 'readability', config: parseMarkdownConfig({}) },
    });
    await writeFile(join(dir.path, MODULE_RUNNER_FILE), moduleRunnerSource());
    await writeFile(join(dir.path, MODULE_ARGS_FILE), moduleRunnerArgs(entrypoint));
    const workspace = findWorkspaceRoot(process.cwd());
    const child = spawn(process.execPath, [...moduleRunnerNodeFlags('@marin/pipeline'), join(dir.path, MODULE_RUNNER_FILE), join(dir.path, MODULE_ARGS_FILE)], {
      cwd: workspace,
      env: { ...process.env, FRAY_WORKSPACE: workspace },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ exitCode, stderr }).toEqual({ exitCode: 0, stderr: '' });
    expect(await readShard(output)).toEqual([{ id: 'a', source: 's', format: 'md', metadata: {}, text: expect.stringContaining('# A') }]);
  });
});
