import { describe, expect, it } from 'vitest';
import { ServedLossAccumulator, decodeScoredBatch, encodeSequences } from './served-loss.js';

function batch(logprob: number[], tokens: number[], bytes: number[]) {
  return { logprob: Float64Array.from(logprob), tokens: Int32Array.from(tokens), bytes: Int32Array.from(bytes) };
}

function reply(logprob: number[], tokens: number[], bytes: number[]) {
  return {
    logprob: Buffer.from(Float64Array.from(logprob).buffer),
    tokens: Buffer.from(Int32Array.from(tokens).buffer),
    bytes: Buffer.from(Int32Array.from(bytes).buffer),
  };
}

describe('ServedLossAccumulator', () => {
  it('reports the loss as total loss over total tokens and bits per byte as the token-weighted mean of each batch (Levanter\'s eval)', () => {
    const acc = new ServedLossAccumulator();
    acc.add(batch([-10, -20], [5, 5], [20, 20])); // loss 30 over 10 tokens, 40 bytes
    acc.add(batch([-6], [2], [3])); // loss 6 over 2 tokens, 3 bytes
    const t = acc.totals();
    expect(t.loss).toBeCloseTo(36 / 12, 12);
    expect(t.bpb).toBeCloseTo(((30 / 40) * Math.LOG2E * 10 + (6 / 3) * Math.LOG2E * 2) / 12, 12);
    expect(t.pooledBpb).toBeCloseTo((36 / 43) * Math.LOG2E, 12);
    expect(t).toMatchObject({ sequences: 3, tokens: 12, bytes: 43, batches: 2 });
  });

  it('gives a batch with no scored token no weight', () => {
    const acc = new ServedLossAccumulator();
    acc.add(batch([-4], [2], [4]));
    acc.add(batch([0, 0], [0, 0], [0, 0]));
    expect(acc.totals()).toMatchObject({ loss: 2, tokens: 2, batches: 2, sequences: 3 });
  });
});

describe('encodeSequences() / decodeScoredBatch()', () => {
  it('lays sequences back to back as little-endian int32 with their lengths', () => {
    const { tokens, lengths } = encodeSequences([Int32Array.from([1, 2, 3]), Int32Array.from([70000])]);
    expect([...new Int32Array(tokens.buffer, tokens.byteOffset, 4)]).toEqual([1, 2, 3, 70000]);
    expect(tokens.readInt32LE(12)).toBe(70000);
    expect([lengths.readInt32LE(0), lengths.readInt32LE(4)]).toEqual([3, 1]);
  });

  it('decodes the reply blobs, and refuses a reply of the wrong shape', () => {
    const decoded = decodeScoredBatch(reply([-1.5, -2.25], [3, 4], [5, 6]), 2);
    expect(decoded).not.toBeNull();
    expect([...(decoded?.logprob ?? [])]).toEqual([-1.5, -2.25]);
    expect([...(decoded?.tokens ?? [])]).toEqual([3, 4]);
    expect([...(decoded?.bytes ?? [])]).toEqual([5, 6]);
    expect(decodeScoredBatch(reply([-1.5], [3], [5]), 2)).toBeNull();
    expect(decodeScoredBatch({ logprob: [1], tokens: [1], bytes: [1] }, 1)).toBeNull();
    expect(decodeScoredBatch(null, 0)).toBeNull();
  });
});
