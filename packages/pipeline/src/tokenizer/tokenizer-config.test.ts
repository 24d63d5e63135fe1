import { describe, expect, it } from 'vitest';
import { resolveSpecialToken } from './tokenizer-config.js';

describe('resolveSpecialToken()', () => {
  it('reads a plain string', () => {
    expect(resolveSpecialToken({ eos_token: '</s>' }, 'eos_token')).toBe('</s>');
  });

  it("reads an object's content", () => {
    expect(resolveSpecialToken({ bos_token: { __type: 'AddedToken', content: '<s>', lstrip: false } }, 'bos_token')).toBe('<s>');
  });

  it('treats a missing key, null, or an object without content as undefined', () => {
    expect(resolveSpecialToken({}, 'bos_token')).toBeUndefined();
    expect(resolveSpecialToken({ bos_token: null }, 'bos_token')).toBeUndefined();
    expect(resolveSpecialToken({ bos_token: { lstrip: true } }, 'bos_token')).toBeUndefined();
  });
});
