import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readBloscHeader } from './blosc-frame.js';
import { decodeShardIndex, shardIndexBytes } from './shard-index.js';
import { ShardedArrayReader } from './sharded-array-reader.js';
import { ShardedArrayWriter } from './sharded-array-writer.js';
import { CHUNKS_PER_SHARD, INNER_CHUNK_ELEMENTS, parseZarrArrayMetadata, zarrArrayMetadata } from './zarr-array-metadata.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sharded-array-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function sequence(n: number, from = 0): Int32Array {
  return Int32Array.from({ length: n }, (_, i) => ((from + i) * 7919) % 100_000);
}

function sameInts(a: Int32Array, b: Int32Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

describe('ShardedArrayWriter', () => {
  it('writes Levanter zarr.json and one shard of full-length chunks with a checked index', async () => {
    const url = join(dir, 'data');
    const w = ShardedArrayWriter.create(url, { dtype: 'int32', compression: 'lz4' });
    const n = 2 * INNER_CHUNK_ELEMENTS + 1000;
    await w.append(sequence(n));
    expect(await w.finish()).toBe(n);
    expect(JSON.parse(await readFile(join(url, 'zarr.json'), 'utf8'))).toEqual(zarrArrayMetadata('int32'));
    expect(await readdir(join(url, 'c'))).toEqual(['0']);
    const shard = await readFile(join(url, 'c', '0'));
    const entries = decodeShardIndex(shard.subarray(shard.length - shardIndexBytes(CHUNKS_PER_SHARD)), CHUNKS_PER_SHARD, shard.length);
    expect(entries.filter((e) => e !== null)).toHaveLength(3);
    expect(entries[3]).toBeNull();
    for (const e of entries.slice(0, 3)) expect(readBloscHeader(shard.subarray(e!.offset, e!.offset + e!.nbytes)).nbytes).toBe(INNER_CHUNK_ELEMENTS * 4);
  });

  it('round-trips int32 and int64 through the reader, stored and lz4, reading past the end as zeros', async () => {
    for (const dtype of ['int32', 'int64'] as const) {
      for (const compression of ['lz4', 'none'] as const) {
        const url = join(dir, `${dtype}-${compression}`);
        const w = ShardedArrayWriter.create(url, { dtype, compression });
        const values = sequence(INNER_CHUNK_ELEMENTS + 5);
        await w.append(values.subarray(0, 10));
        await w.append(values.subarray(10));
        await w.finish();
        const r = await ShardedArrayReader.open(url);
        expect(r.dtype).toBe(dtype);
        expect(sameInts(await r.readInt32(0, values.length), values)).toBe(true);
        expect([...(await r.readInt32(values.length - 2, values.length + 2))]).toEqual([values.at(-2), values.at(-1), 0, 0]);
        expect([...(await r.readInt32(10 * INNER_CHUNK_ELEMENTS, 10 * INNER_CHUNK_ELEMENTS + 2))]).toEqual([0, 0]);
      }
    }
  });

  it('stores int64 values beyond 2^32 exactly', async () => {
    const url = join(dir, 'big');
    const w = ShardedArrayWriter.create(url, { dtype: 'int64', compression: 'lz4' });
    await w.append([0, 2 ** 40 + 3, 2 ** 53 - 1]);
    await w.finish();
    const r = await ShardedArrayReader.open(url);
    expect([...(await r.readNumbers(0, 3))]).toEqual([0, 2 ** 40 + 3, 2 ** 53 - 1]);
    await expect(r.readInt32(1, 2)).rejects.toMatchObject({ code: 'PIPELINE_CACHE_INVALID' });
  });

  it('patches an element of the held first chunk after later chunks were written', async () => {
    const url = join(dir, 'offsets');
    const w = ShardedArrayWriter.create(url, { dtype: 'int64', compression: 'lz4', holdFirstChunk: true });
    await w.append([0]);
    await w.append(sequence(INNER_CHUNK_ELEMENTS * 2));
    w.patch(0, 123_456);
    await w.finish();
    const r = await ShardedArrayReader.open(url);
    expect((await r.readNumbers(0, 2))[0]).toBe(123_456);
    expect((await r.readNumbers(INNER_CHUNK_ELEMENTS * 2, INNER_CHUNK_ELEMENTS * 2 + 1))[0]).toBe(sequence(1, INNER_CHUNK_ELEMENTS * 2 - 1)[0]);
  });

  it('rejects a value that does not fit the dtype', async () => {
    const w = ShardedArrayWriter.create(join(dir, 'x'), { dtype: 'int32', compression: 'lz4' });
    await expect(w.append([2 ** 31])).rejects.toThrow(RangeError);
    w.abort();
  });

  it('refuses appends after finish as PIPELINE_WRITER_CLOSED', async () => {
    const w = ShardedArrayWriter.create(join(dir, 'closed'), { dtype: 'int32', compression: 'lz4' });
    await w.append([1]);
    await w.finish();
    await expect(w.append([2])).rejects.toMatchObject({ code: 'PIPELINE_WRITER_CLOSED' });
  });

  it('works on memory:// too', async () => {
    const url = `memory://sharded-array-${Date.now()}/data`;
    const w = ShardedArrayWriter.create(url, { dtype: 'int32', compression: 'lz4' });
    await w.append(sequence(1000));
    await w.finish();
    const r = await ShardedArrayReader.open(url);
    expect(sameInts(await r.readInt32(0, 1000), sequence(1000))).toBe(true);
  });
});

describe('ShardedArrayReader', () => {
  it('reports a corrupted shard index as PIPELINE_CACHE_INVALID', async () => {
    const url = join(dir, 'data');
    const w = ShardedArrayWriter.create(url, { dtype: 'int32', compression: 'lz4' });
    await w.append(sequence(100));
    await w.finish();
    const shard = await readFile(join(url, 'c', '0'));
    shard.writeUInt8(shard.readUInt8(shard.length - 10) ^ 0xff, shard.length - 10);
    await writeFile(join(url, 'c', '0'), shard);
    const r = await ShardedArrayReader.open(url);
    await expect(r.readInt32(0, 10)).rejects.toMatchObject({ code: 'PIPELINE_CACHE_INVALID' });
  });

  it('reports a missing or foreign zarr.json as PIPELINE_CACHE_INVALID', async () => {
    await expect(ShardedArrayReader.open(join(dir, 'nothing'))).rejects.toMatchObject({ code: 'PIPELINE_CACHE_INVALID' });
    await writeFile(join(dir, 'zarr.json'), JSON.stringify({ ...zarrArrayMetadata('int32'), data_type: 'float32' }));
    await expect(ShardedArrayReader.open(dir)).rejects.toMatchObject({ code: 'PIPELINE_CACHE_INVALID' });
  });

  it('reports a layout it does not read (other inner codecs, shard index, chunking) as PIPELINE_CACHE_INVALID', () => {
    const meta = zarrArrayMetadata('int32') as { codecs: [{ configuration: { codecs: { name: string }[]; index_codecs: { name: string }[]; chunk_shape: number[] } }] };
    const variant = (change: (m: typeof meta) => void): unknown => {
      const m = structuredClone(meta);
      change(m);
      return m;
    };
    expect(() => parseZarrArrayMetadata(variant((m) => m.codecs[0].configuration.codecs.reverse()))).toThrow(expect.objectContaining({ code: 'PIPELINE_CACHE_INVALID' }));
    expect(() => parseZarrArrayMetadata(variant((m) => m.codecs[0].configuration.index_codecs.pop()))).toThrow(expect.objectContaining({ code: 'PIPELINE_CACHE_INVALID' }));
    expect(() => parseZarrArrayMetadata(variant((m) => (m.codecs[0].configuration.chunk_shape[0]! += 1)))).toThrow(expect.objectContaining({ code: 'PIPELINE_CACHE_INVALID' }));
  });
});
