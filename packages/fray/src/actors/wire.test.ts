import { describe, expect, it } from 'vitest';
import { BLOB_MARKER, decodeFrame, encodeFrame } from './wire.js';

describe('actor frames', () => {
  it('round-trips JSON values with binary anywhere inside them', () => {
    const bytes = Uint8Array.from([0, 1, 2, 255]);
    const frame = encodeFrame({ method: 'score', args: [{ doc: 'a', tensor: bytes }, [Buffer.from('xy')], 3.5, null, true] });
    const back = decodeFrame(frame);
    expect(back['method']).toBe('score');
    const args = back['args'] as [{ doc: string; tensor: Buffer }, [Buffer], number, null, boolean];
    expect([...args[0].tensor]).toEqual([0, 1, 2, 255]);
    expect(args[1][0].toString()).toBe('xy');
    expect(args.slice(2)).toEqual([3.5, null, true]);
  });

  it('lays a frame out as u32be header length, JSON header with blob lengths, then the raw blobs', () => {
    const frame = encodeFrame({ method: 'm', args: [Uint8Array.from([7, 8])] });
    const headerLength = frame.readUInt32BE(0);
    expect(JSON.parse(frame.subarray(4, 4 + headerLength).toString())).toEqual({ method: 'm', args: [{ [BLOB_MARKER]: 0 }], blobs: [2] });
    expect([...frame.subarray(4 + headerLength)]).toEqual([7, 8]);
  });

  it.each([
    ['a function', [() => 1], 'args[0]'],
    ['a bigint', [{ n: 1n }], 'args[0].n'],
    ['NaN', [1, Number.NaN], 'args[1]'],
    ['a Map', [new Map()], 'args[0]'],
    ['a class instance', [new (class Model {})()], 'args[0]'],
    ['undefined in an array', [[undefined]], 'args[0][0]'],
  ])('refuses %s with FRAY_ACTOR_UNSERIALIZABLE naming where it is', (_what, args, path) => {
    expect(() => encodeFrame({ method: 'm', args })).toThrow(expect.objectContaining({ code: 'FRAY_ACTOR_UNSERIALIZABLE', details: { path } }));
  });

  it('refuses cycles but accepts the same object twice', () => {
    const shared = { a: 1 };
    expect(decodeFrame(encodeFrame({ args: [shared, shared] }))['args']).toEqual([{ a: 1 }, { a: 1 }]);
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => encodeFrame({ args: [cyclic] })).toThrow(expect.objectContaining({ code: 'FRAY_ACTOR_UNSERIALIZABLE' }));
  });

  it.each([
    ['too short', Buffer.from([0, 0])],
    ['a header overrunning the frame', Buffer.from([0, 0, 0, 9, 123])],
    ['a header that is not JSON', Buffer.concat([Buffer.from([0, 0, 0, 1]), Buffer.from('{')])],
    ['blobs overrunning the frame', Buffer.concat([Buffer.from([0, 0, 0, 13]), Buffer.from('{"blobs":[9]}')])],
    ['trailing bytes', Buffer.concat([Buffer.from([0, 0, 0, 2]), Buffer.from('{}'), Buffer.from([1])])],
  ])('rejects a malformed frame (%s) with FRAY_ACTOR_PROTOCOL', (_what, frame) => {
    expect(() => decodeFrame(frame)).toThrow(expect.objectContaining({ code: 'FRAY_ACTOR_PROTOCOL' }));
  });
});
