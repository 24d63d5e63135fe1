import { describe, expect, it } from 'vitest';
import { formatAge, formatBytes, parseGcArgs, parseSince } from './gc-command.js';

describe('marin gc arguments', () => {
  it('parses keep lists, --since ages and dates, and --delete', () => {
    const args = parseGcArgs(['--prefix', 'gs://b/p', '--keep', 'a', '--keep=b', '--since', '2026-01-31', '--delete', '--json']);
    expect(args).toMatchObject({ prefix: 'gs://b/p', keep: ['a', 'b'], delete: true, json: true });
    expect(args.since?.getTime()).toBe(Date.parse('2026-01-31'));
    expect(parseSince('2d', 10 * 86_400_000).getTime()).toBe(8 * 86_400_000);
  });

  it('rejects a bad --since and suggests the flag meant by a typo', () => {
    expect(() => parseGcArgs(['--since', 'yesterday'])).toThrow(expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT' }));
    expect(() => parseGcArgs(['--delet'])).toThrow(expect.objectContaining({ details: expect.objectContaining({ suggestions: ['--delete'] }) }));
  });

  it('formats sizes and ages for the table', () => {
    expect(formatBytes(12)).toBe('12 B');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.0 GiB');
    expect(formatAge(3 * 86_400_000 + 5)).toBe('3d');
    expect(formatAge(null)).toBe('-');
  });
});
