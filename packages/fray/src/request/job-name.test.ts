import { describe, expect, it } from 'vitest';
import { randomHex8, sanitizeJobName, validateJobName } from './job-name.js';

describe('sanitizeJobName()', () => {
  it('follows the documented job-name examples', () => {
    expect(sanitizeJobName('Tokenize Fineweb!')).toBe('tokenize-fineweb');
    expect(sanitizeJobName('tokenized/fineweb-ab12cd')).toBe('tokenized-fineweb-ab12cd');
    expect(sanitizeJobName('///')).toBe('remote_job');
    expect(sanitizeJobName('')).toBe('remote_job');
    expect(sanitizeJobName('..a.b..')).toBe('a.b');
  });

  it('always yields a valid name', () => {
    for (const label of ['x'.repeat(300), '12345', 'A:B c', '-.-']) {
      expect(validateJobName(sanitizeJobName(label))).toBe(sanitizeJobName(label));
    }
  });
});

describe('validateJobName()', () => {
  it('rejects whitespace, "/", ":", all digits, dots and over-long names', () => {
    for (const bad of ['a b', 'a/b', 'a:b', '123', '.', '..', '', 'x'.repeat(129), 'tab\t']) {
      expect(() => validateJobName(bad)).toThrow(expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' }));
    }
  });

  it('accepts a plain component', () => {
    expect(validateJobName('train-7b_v1.2')).toBe('train-7b_v1.2');
  });
});

describe('randomHex8()', () => {
  it('is eight lower-case hex characters', () => {
    expect(randomHex8()).toMatch(/^[0-9a-f]{8}$/);
  });
});
