import { describe, expect, it } from 'vitest';
import { decodeShardIndex, encodeShardIndex, shardIndexBytes } from './shard-index.js';

describe('encodeShardIndex()', () => {
  it('writes (offset, nbytes) pairs, all-ones for absent chunks, then the CRC32C', () => {
    const bytes = encodeShardIndex([{ offset: 0, nbytes: 100 }, null]);
    expect(bytes.byteLength).toBe(shardIndexBytes(2));
    const view = new DataView(bytes.buffer);
    expect(view.getBigUint64(8, true)).toBe(100n);
    expect(view.getBigUint64(16, true)).toBe(2n ** 64n - 1n);
    expect(decodeShardIndex(bytes, 2, 100)).toEqual([{ offset: 0, nbytes: 100 }, null]);
  });

  it('rejects an index whose checksum does not match', () => {
    const bytes = encodeShardIndex([{ offset: 0, nbytes: 100 }]);
    bytes[3] = 1;
    expect(() => decodeShardIndex(bytes, 1, 1 << 30)).toThrow(expect.objectContaining({ code: 'PIPELINE_CACHE_INVALID' }));
  });

  it('rejects an entry that points past the end of the shard', () => {
    expect(() => decodeShardIndex(encodeShardIndex([{ offset: 50, nbytes: 100 }]), 1, 120)).toThrow(expect.objectContaining({ code: 'PIPELINE_CACHE_INVALID' }));
    expect(() => decodeShardIndex(encodeShardIndex([{ offset: 0, nbytes: 1 }]).subarray(1), 1, 120)).toThrow(expect.objectContaining({ code: 'PIPELINE_CACHE_INVALID' }));
  });
});
