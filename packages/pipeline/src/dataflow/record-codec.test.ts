import { describe, expect, it } from 'vitest';
import { decodeFields, encodeFields } from './record-codec.js';

describe('encodeFields() / decodeFields()', () => {
  it('round-trips bigint, bytes, dates and nested JSON', () => {
    const fields = { a: 12345678901234567890n, b: new Uint8Array([0, 255]), c: new Date(1_700_000_000_000), d: { e: [1, 'x', null] }, f: null };
    expect(decodeFields(encodeFields(fields))).toEqual(fields);
  });

  it('round-trips flat records, including strings that look like tagged values', () => {
    const fields = { url: 'https://example.org/1', n: 3, ok: true, none: null, tricky: '{"$bigint":"1"}', dollar: '$bigint' };
    const encoded = encodeFields(fields);
    expect(JSON.parse(encoded)).toEqual(fields);
    expect(decodeFields(encoded)).toEqual(fields);
  });
});
