import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readJsonlRecords } from './jsonl-records.js';

async function collect(url: string): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  for await (const { record } of readJsonlRecords(url)) out.push(record);
  return out;
}

describe('readJsonlRecords()', () => {
  it('reads plain and gzip JSON lines, skipping blank lines', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'jsonl-'));
    const body = '{"text":"a"}\n\n{"text":"b"}\r\n{"text":"c"}';
    await writeFile(join(dir, 'a.jsonl'), body);
    await writeFile(join(dir, 'b.jsonl.gz'), gzipSync(body));
    expect(await collect(join(dir, 'a.jsonl'))).toEqual([{ text: 'a' }, { text: 'b' }, { text: 'c' }]);
    expect(await collect(join(dir, 'b.jsonl.gz'))).toEqual([{ text: 'a' }, { text: 'b' }, { text: 'c' }]);
  });

  it('names the line of a record that is not JSON or not an object', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'jsonl-'));
    await writeFile(join(dir, 'bad.jsonl'), '{"text":"a"}\nnot json\n');
    await writeFile(join(dir, 'arr.jsonl'), '[1,2]\n');
    await expect(collect(join(dir, 'bad.jsonl'))).rejects.toMatchObject({ code: 'PIPELINE_INPUT_INVALID', details: { line: 2 } });
    await expect(collect(join(dir, 'arr.jsonl'))).rejects.toMatchObject({ code: 'PIPELINE_INPUT_INVALID', details: { line: 1 } });
  });

  it('reports truncated gzip as PIPELINE_INPUT_INVALID', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'jsonl-'));
    const gz = gzipSync(Array.from({ length: 2000 }, (_, i) => JSON.stringify({ text: `document ${i} ${'x'.repeat(i % 50)}` })).join('\n'));
    await writeFile(join(dir, 'cut.jsonl.gz'), gz.subarray(0, Math.floor(gz.length / 2)));
    await expect(collect(join(dir, 'cut.jsonl.gz'))).rejects.toMatchObject({ code: 'PIPELINE_INPUT_INVALID' });
  });
});
