import { chmod, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { computeOutputPath } from '@marin/executor';
import { createLocalClient, withClient } from '@marin/fray';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTokenCache } from '../../src/cache/index.js';
import { quickstartDataPath, tokenizerLocation } from '../../src/assets.js';
import { readJsonlRecords } from '../../src/formats/jsonl-records.js';
import { defaultTokenize } from '../../src/steps/tokenize/default-tokenize.js';
import { tokenize } from '../../src/steps/tokenize/tokenize.js';
import { writeParquetPart } from '../../src/formats/parquet-part-writer.js';
import { compress } from 'zstd-napi';
import { loadLevanterTokenizer } from '../../src/tokenizer/levanter-tokenizer.js';
import { runLevanterPython } from '../helpers/levanter-python.js';

const ORACLE = join(import.meta.dirname, '..', 'python', 'tokenize_step_oracle.py');
const TRAIN = join(quickstartDataPath(), 'train');
const VALIDATION = join(quickstartDataPath(), 'validation');

async function files(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((f) => f.endsWith('.jsonl.gz')).sort().map((f) => join(dir, f));
}

async function texts(paths: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) for await (const { record } of readJsonlRecords(p)) out.push(record['text'] as string);
  return out;
}

const signal = new AbortController().signal;

describe('tokenize step', () => {
  let work = '';
  let cache = '';
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'tokenize-step-'));
    cache = join(work, 'cache');
    // min_part_bytes 1: every input file becomes its own part, so the sharded layout has several parts.
    await tokenize(
      { train_paths: [TRAIN], validation_paths: [VALIDATION], cache_path: cache, tokenizer: 'marin-tiny-bpe', max_workers: 8, min_part_bytes: 1 },
      { signal },
    );
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('writes each split as parts plus a sharded ledger whose rows are the tokenizer’s ids, in input order', async () => {
    const tokenizer = await loadLevanterTokenizer(tokenizerLocation('marin-tiny-bpe'));
    for (const [split, dir, parts] of [['train', TRAIN, 2], ['validation', VALIDATION, 1]] as const) {
      const ledger = JSON.parse(await readFile(join(cache, split, 'shard_ledger.json'), 'utf8')) as Record<string, unknown>;
      expect(ledger).toMatchObject({ is_finished: true, layout: 'sharded' });
      expect(Object.keys(ledger['shard_rows'] as object)).toHaveLength(parts);
      const expected = await tokenizer.encodeDocuments(await texts(await files(dir)));
      const opened = await openTokenCache(cache, split);
      expect(opened.numRows).toBe(expected.length);
      for (let i = 0; i < expected.length; i++) expect(Array.from(await opened.row(i))).toEqual(Array.from(expected[i] ?? []));
      expect(opened.numTokens).toBe(expected.reduce((s, r) => s + r.length, 0));
    }
  });

  it('is read by Levanter’s loader (sharded ledger validated) with the ids Levanter’s own cache builder produces', async () => {
    const out = join(work, 'oracle.json');
    const spec = {
      tokenizer_dir: tokenizerLocation('marin-tiny-bpe'),
      ts_cache: cache,
      work_dir: join(work, 'oracle'),
      splits: { train: await files(TRAIN), validation: await files(VALIDATION) },
      out,
    };
    await writeFile(join(work, 'oracle-spec.json'), JSON.stringify(spec));
    await runLevanterPython(await readFile(ORACLE, 'utf8'), [join(work, 'oracle-spec.json')], { MARIN_PREFIX: work });
    const result = JSON.parse(await readFile(out, 'utf8')) as Record<string, Record<string, unknown>>;
    for (const split of ['train', 'validation']) {
      const r = result[split];
      expect(r).toMatchObject({ is_sharded: true, mismatched_rows: [] });
      expect(r?.['rows']).toBe(r?.['levanter_rows']);
      expect(r?.['tokens']).toBe(r?.['levanter_tokens']);
      expect(r?.['rows']).toBeGreaterThan(0);
    }
  }, 180_000);

  it('leaves finished parts and splits alone on a rerun', async () => {
    const ledger = join(cache, 'train', 'shard_ledger.json');
    const partLedger = join(cache, 'train', 'part-00000-of-00002', 'shard_ledger.json');
    const before = [(await stat(ledger)).mtimeMs, (await stat(partLedger)).mtimeMs];
    await tokenize({ train_paths: [TRAIN], cache_path: cache, tokenizer: 'marin-tiny-bpe', max_workers: 8, min_part_bytes: 1 }, { signal });
    expect([(await stat(ledger)).mtimeMs, (await stat(partLedger)).mtimeMs]).toEqual(before);
  });

  it('resumes after a part failed: finished parts are kept, the split appears only when complete', async () => {
    const dir = join(work, 'resume-input');
    const out = join(work, 'resume-cache');
    await rm(dir, { recursive: true, force: true });
    const { mkdir } = await import('node:fs/promises');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'a.jsonl.gz'), gzipSync('{"text":"first document"}\n{"text":"second"}\n'));
    await writeFile(join(dir, 'b.jsonl.gz'), gzipSync('{"text":"fine"}\n{"body":"no text key"}\n'));
    const config = { train_paths: [dir], cache_path: out, tokenizer: 'marin-tiny-bpe', max_workers: 8, min_part_bytes: 1 };
    await expect(tokenize(config, { signal })).rejects.toMatchObject({ code: 'PIPELINE_INPUT_INVALID', details: { line: 2 } });
    await expect(stat(join(out, 'train', 'shard_ledger.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(openTokenCache(out, 'train')).rejects.toMatchObject({ code: 'PIPELINE_CACHE_INVALID' });
    const finished = join(out, 'train', 'part-00000-of-00002', 'shard_ledger.json');
    const mtime = (await stat(finished)).mtimeMs;

    await writeFile(join(dir, 'b.jsonl.gz'), gzipSync('{"text":"fine"}\n{"text":"fixed"}\n'));
    await tokenize(config, { signal });
    expect((await stat(finished)).mtimeMs).toBe(mtime);
    expect((await openTokenCache(out, 'train')).numRows).toBe(4);
  });

  it('runs each part as a Fray job when given resources', async () => {
    const out = join(work, 'fray-cache');
    await using client = createLocalClient();
    await withClient(client, () =>
      tokenize(
        { train_paths: [TRAIN], cache_path: out, tokenizer: 'marin-tiny-bpe', min_part_bytes: 1, max_workers: 8, resources: { cpu: 1 } },
        { signal },
      ),
    );
    const local = await openTokenCache(cache, 'train');
    const viaJobs = await openTokenCache(out, 'train');
    expect(viaJobs.numTokens).toBe(local.numTokens);
    expect(Array.from(await viaJobs.tokens(0, 500))).toEqual(Array.from(await local.tokens(0, 500)));
  });

  it('fails with clear codes on a bad tokenizer or an unwritable cache path, writing nothing', async () => {
    const badTok = join(work, 'bad-tokenizer');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(badTok, { recursive: true });
    await writeFile(join(badTok, 'tokenizer.json'), '{"version": "1.0", "model": ');
    await expect(tokenize({ train_paths: [TRAIN], cache_path: join(work, 'c2'), tokenizer: badTok }, { signal })).rejects.toMatchObject({
      code: 'PIPELINE_TOKENIZER_INVALID',
    });
    const readOnly = join(work, 'read-only');
    await mkdir(readOnly, { recursive: true });
    await chmod(readOnly, 0o500);
    try {
      // root ignores permission bits, so a path under a regular file stands in for an unwritable prefix there.
      const target = process.getuid?.() === 0 ? join(TRAIN, 'data-00000-of-00002.jsonl.gz', 'cache') : join(readOnly, 'cache');
      await expect(tokenize({ train_paths: [TRAIN], cache_path: target, tokenizer: 'marin-tiny-bpe' }, { signal })).rejects.toMatchObject({
        code: 'PIPELINE_OUTPUT_NOT_WRITABLE',
      });
    } finally {
      await chmod(readOnly, 0o700);
    }
  });
});

describe('tokenize step on parquet and zstd inputs', () => {
  it('tokenizes parquet (all row groups, text column only) and .jsonl.zst files like the same texts in JSON lines', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tokenize-formats-'));
    try {
      const all = await texts(await files(TRAIN));
      const half = Math.floor(all.length / 2);
      await writeParquetPart(join(dir, 'in', 'a.parquet'), all.slice(0, half).map((text, i) => ({ id: BigInt(i), text, meta: { n: i } })), {
        columns: [{ name: 'id', type: 'int64' }, { name: 'text', type: 'string' }, { name: 'meta', type: 'json' }],
        rowGroupRows: 5,
      });
      await writeFile(join(dir, 'in', 'b.jsonl.zst'), compress(Buffer.from(all.slice(half).map((text) => `${JSON.stringify({ text })}\n`).join(''))));
      await tokenize({ train_paths: [join(dir, 'in')], cache_path: join(dir, 'cache'), tokenizer: 'marin-tiny-bpe' }, { signal });
      const tokenizer = await loadLevanterTokenizer(tokenizerLocation('marin-tiny-bpe'));
      const expected = await tokenizer.encodeDocuments(all);
      const opened = await openTokenCache(join(dir, 'cache'), 'train');
      expect(opened.numRows).toBe(expected.length);
      for (let i = 0; i < expected.length; i++) expect(Array.from(await opened.row(i))).toEqual(Array.from(expected[i] ?? []));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('defaultTokenize()', () => {
  const pathOf = (step: ReturnType<typeof defaultTokenize>): Promise<string> => computeOutputPath(step.name, step.config, { prefix: '/p' });

  it('names the step tokenized/{name}; the tokenizer, format and sample count change the output path, resources do not', async () => {
    const base = defaultTokenize('demo', '/data/train', 'marin-tiny-bpe');
    expect(base.name).toBe('tokenized/demo');
    expect(await pathOf(base)).toMatch(/^\/p\/tokenized\/demo-[0-9a-f]{6}$/);
    const same = [defaultTokenize('demo', '/data/train', 'marin-tiny-bpe', { resources: { cpu: 2 }, maxWorkers: 9, compression: 'none' })];
    for (const s of same) expect(await pathOf(s)).toBe(await pathOf(base));
    const different = [
      defaultTokenize('demo', '/data/train', 'other-tokenizer'),
      defaultTokenize('demo', '/data/train', 'marin-tiny-bpe', { textKey: 'body' }),
      defaultTokenize('demo', '/data/train', 'marin-tiny-bpe', { sampleCount: 10 }),
    ];
    for (const d of different) expect(await pathOf(d)).not.toBe(await pathOf(base));
  });

  it('puts the dataset in train_paths, or validation_paths with isValidation, and adds validation data', () => {
    const v = defaultTokenize('demo', '/data/val', 'marin-tiny-bpe', { isValidation: true });
    expect(v.config.train_paths).toEqual([]);
    expect(v.config.validation_paths).toEqual(['/data/val']);
    const both = defaultTokenize('demo', ['/a', '/b'], 'marin-tiny-bpe', { validation: '/v' });
    expect(both.config.train_paths).toEqual(['/a', '/b']);
    expect(both.config.validation_paths).toEqual(['/v']);
  });
});
