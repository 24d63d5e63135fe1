import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverInputs, groupIntoParts } from './input-discovery.js';

async function tree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'discover-'));
  for (const [rel, body] of Object.entries(files)) {
    await mkdir(join(root, rel, '..'), { recursive: true });
    await writeFile(join(root, rel), body);
  }
  return root;
}

describe('discoverInputs()', () => {
  it('expands a directory to its document files, sorted, skipping dot-files and provenance.json', async () => {
    const root = await tree({
      'b/data-1.jsonl.gz': 'xx',
      'a/data-0.jsonl': 'x',
      'c.json.gz': 'xxx',
      'provenance.json': '{}',
      '.metrics/part.jsonl': '{}',
      '.hidden.jsonl': '{}',
      'notes.txt': 'n',
    });
    const found = await discoverInputs([root]);
    expect(found.map((f) => f.url.slice(root.length + 1))).toEqual(['a/data-0.jsonl', 'b/data-1.jsonl.gz', 'c.json.gz']);
    expect(found.map((f) => f.bytes)).toEqual([1, 2, 3]);
  });

  it('accepts files, globs and braces, deduplicated', async () => {
    const root = await tree({ 'x/1.jsonl': '{}', 'x/2.jsonl': '{}', 'y/3.jsonl': '{}' });
    const found = await discoverInputs([`${root}/x/*.jsonl`, `${root}/{x/1,y/3}.jsonl`]);
    expect(found.map((f) => f.url.slice(root.length + 1))).toEqual(['x/1.jsonl', 'x/2.jsonl', 'y/3.jsonl']);
  });

  it('reports a path that matches nothing as PIPELINE_INPUT_NOT_FOUND', async () => {
    const root = await tree({ 'notes.txt': 'n' });
    await expect(discoverInputs([root])).rejects.toMatchObject({ code: 'PIPELINE_INPUT_NOT_FOUND', details: { path: root } });
    await expect(discoverInputs([join(root, 'missing.jsonl')])).rejects.toMatchObject({ code: 'PIPELINE_INPUT_NOT_FOUND' });
  });

  it('expands a directory to zstd JSON lines and parquet files too', async () => {
    const root = await tree({ 'a.jsonl.zst': 'z', 'b.parquet': 'p', 'c.json.zstd': 'z' });
    const found = await discoverInputs([root]);
    expect(found.map((f) => f.url.slice(root.length + 1))).toEqual(['a.jsonl.zst', 'b.parquet', 'c.json.zstd']);
  });

  it('refuses a named file of another format with PIPELINE_UNSUPPORTED_FORMAT', async () => {
    const root = await tree({ 'a.csv': 'x' });
    await expect(discoverInputs([join(root, 'a.csv')])).rejects.toMatchObject({ code: 'PIPELINE_UNSUPPORTED_FORMAT', details: { path: join(root, 'a.csv') } });
  });
});

describe('groupIntoParts()', () => {
  const files = (sizes: number[]) => sizes.map((bytes, i) => ({ url: `f${i}`, bytes }));

  it('keeps tiny inputs in one part', () => {
    expect(groupIntoParts(files([10, 20, 30]), 4, 100_000_000)).toHaveLength(1);
  });

  it('cuts large inputs into parts of at least total / max_workers, in order', () => {
    const parts = groupIntoParts(files([50, 50, 50, 50, 50, 50, 50, 50]), 4, 1);
    expect(parts.map((p) => p.map((f) => f.url))).toEqual([['f0', 'f1'], ['f2', 'f3'], ['f4', 'f5'], ['f6', 'f7']]);
  });

  it('lets the last part be smaller', () => {
    expect(groupIntoParts(files([60, 60, 60]), 2, 1).map((p) => p.length)).toEqual([2, 1]);
  });
});
