import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { compress } from 'zstd-napi';
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

  it('reads Zstandard JSON lines, multi-byte characters split across chunks included', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'jsonl-'));
    const records = Array.from({ length: 3000 }, (_, i) => ({ text: `ünïcödé ✓ 🙂 ${i}` }));
    await writeFile(join(dir, 'a.jsonl.zst'), compress(Buffer.from(records.map((r) => JSON.stringify(r)).join('\n'))));
    expect(await collect(join(dir, 'a.jsonl.zst'))).toEqual(records);
  });

  it('refuses truncated zstd and bytes that are not UTF-8, naming the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'jsonl-'));
    const whole = compress(Buffer.from(Array.from({ length: 2000 }, (_, i) => `{"text":"${i}"}`).join('\n')));
    await writeFile(join(dir, 'cut.jsonl.zst'), whole.subarray(0, Math.floor(whole.length / 2)));
    await writeFile(join(dir, 'latin1.jsonl'), Buffer.from([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d, 0x0a]));
    await expect(collect(join(dir, 'cut.jsonl.zst'))).rejects.toMatchObject({ code: 'PIPELINE_INPUT_INVALID', details: { path: join(dir, 'cut.jsonl.zst') } });
    await expect(collect(join(dir, 'latin1.jsonl'))).rejects.toMatchObject({ code: 'PIPELINE_INPUT_INVALID', details: { path: join(dir, 'latin1.jsonl') } });
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
