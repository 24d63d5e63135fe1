import { describe, expect, it } from 'vitest';
import { shuffleBytes } from './byte-shuffle.js';
import { decodeBloscFrame, encodeBloscFrame, encodeBloscFrameAsync, readBloscHeader } from './blosc-frame.js';
import { compressLz4Block } from './lz4-block.js';

const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);

function tokens(n: number): Uint8Array {
  const ids = new Int32Array(n);
  for (let i = 0; i < n; i++) ids[i] = (i * 2_654_435_761) % 50_257;
  return new Uint8Array(ids.buffer);
}

describe('encodeBloscFrame()', () => {
  it('writes a stored frame as header (flags 0x02, blocksize = nbytes, cbytes = nbytes + 16) plus the bytes', () => {
    const src = tokens(1000);
    const frame = encodeBloscFrame(src, { typesize: 4, compression: 'none' });
    expect([...frame.subarray(0, 4)]).toEqual([2, 1, 0x02, 4]);
    expect(readBloscHeader(frame)).toMatchObject({ nbytes: 4000, blocksize: 4000, cbytes: 4016 });
    expect(same(frame.subarray(16), src)).toBe(true);
  });

  it('writes shuffled, unsplit LZ4 blocks that decode to the input', () => {
    const src = tokens(262_144);
    const frame = encodeBloscFrame(src, { typesize: 4, compression: 'lz4', blocksize: 65_536 });
    const h = readBloscHeader(frame);
    expect(h).toMatchObject({ flags: 0x01 | 0x10 | (1 << 5), typesize: 4, nbytes: src.byteLength, blocksize: 65_536, cbytes: frame.byteLength });
    expect(frame.byteLength).toBeLessThan(src.byteLength);
    expect(same(decodeBloscFrame(frame), src)).toBe(true);
  });

  it('handles a leftover block smaller than the block size', () => {
    const src = tokens(10_001);
    expect(same(decodeBloscFrame(encodeBloscFrame(src, { typesize: 4, compression: 'lz4', blocksize: 4096 })), src)).toBe(true);
  });

  it('falls back to a stored frame when the data does not compress', () => {
    const src = new Uint8Array(4096);
    for (let i = 0; i < src.length; i++) src[i] = Math.floor(Math.random() * 256);
    const frame = encodeBloscFrame(src, { typesize: 4, compression: 'lz4' });
    expect(readBloscHeader(frame).flags & 0x02).toBe(0x02);
    expect(same(decodeBloscFrame(frame), src)).toBe(true);
  });
});

describe('decodeBloscFrame()', () => {
  it('decodes split blocks (one LZ4 stream per shuffled byte plane), as c-blosc writes by default', () => {
    const typesize = 8;
    const values = new BigInt64Array(4096).map((_, i) => BigInt(i % 300));
    const src = new Uint8Array(values.buffer);
    const blocksize = 16_384;
    const parts: Uint8Array[] = [];
    const nblocks = src.byteLength / blocksize;
    const header = new Uint8Array(16 + 4 * nblocks);
    const hv = new DataView(header.buffer);
    let pos = header.byteLength;
    for (let b = 0; b < nblocks; b++) {
      hv.setInt32(16 + 4 * b, pos, true);
      const shuffled = shuffleBytes(src.subarray(b * blocksize, (b + 1) * blocksize), typesize);
      const neblock = blocksize / typesize;
      for (let s = 0; s < typesize; s++) {
        const plane = shuffled.subarray(s * neblock, (s + 1) * neblock);
        const packed = compressLz4Block(plane);
        const stream = packed.byteLength < neblock ? packed : plane;
        const len = new Uint8Array(4);
        new DataView(len.buffer).setInt32(0, stream.byteLength, true);
        parts.push(len, stream);
        pos += 4 + stream.byteLength;
      }
    }
    header.set([2, 1, 0x01 | (1 << 5), typesize]);
    hv.setUint32(4, src.byteLength, true);
    hv.setUint32(8, blocksize, true);
    hv.setUint32(12, pos, true);
    const frame = new Uint8Array(pos);
    frame.set(header);
    let at = header.byteLength;
    for (const p of parts) {
      frame.set(p, at);
      at += p.byteLength;
    }
    expect(same(decodeBloscFrame(frame), src)).toBe(true);
  });

  it('rejects a truncated frame as PIPELINE_CACHE_INVALID', () => {
    const frame = encodeBloscFrame(tokens(1000), { typesize: 4, compression: 'lz4' });
    expect(() => decodeBloscFrame(frame.subarray(0, 40))).toThrow(expect.objectContaining({ code: 'PIPELINE_CACHE_INVALID' }));
    expect(() => decodeBloscFrame(frame.subarray(0, 8))).toThrow(expect.objectContaining({ code: 'PIPELINE_CACHE_INVALID' }));
  });

  it('rejects a frame of another format version, codec or with bit shuffle as PIPELINE_CACHE_INVALID', () => {
    const frame = encodeBloscFrame(tokens(1000), { typesize: 4, compression: 'lz4' });
    const with_ = (at: number, value: number): Uint8Array => {
      const copy = frame.slice();
      copy[at] = value;
      return copy;
    };
    expect(() => decodeBloscFrame(with_(0, 9))).toThrow(expect.objectContaining({ code: 'PIPELINE_CACHE_INVALID' }));
    expect(() => decodeBloscFrame(with_(2, (frame[2]! & 0x1f) | (3 << 5)))).toThrow(expect.objectContaining({ code: 'PIPELINE_CACHE_INVALID' }));
    expect(() => decodeBloscFrame(with_(2, frame[2]! | 0x04))).toThrow(expect.objectContaining({ code: 'PIPELINE_CACHE_INVALID' }));
  });
});

describe('encodeBloscFrameAsync()', () => {
  it('produces the same frame as the synchronous encoder', async () => {
    const src = tokens(100_000);
    const opts = { typesize: 4, compression: 'lz4', blocksize: 65_536 } as const;
    expect(same(await encodeBloscFrameAsync(src, opts), encodeBloscFrame(src, opts))).toBe(true);
  });
});
