import { exists, writeText } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { formatAge, formatBytes, gcCommand, parseGcArgs, parseSince } from './gc-command.js';

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

  it('parses --wait in seconds and rejects a non-positive or non-numeric one', () => {
    expect(parseGcArgs(['--delete', '--wait', '2.5']).waitS).toBe(2.5);
    expect(parseGcArgs(['--wait=120']).waitS).toBe(120);
    for (const bad of ['0', '-1', 'soon', '']) {
      expect(() => parseGcArgs(['--wait', bad]), bad).toThrow(expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT', details: expect.objectContaining({ usage: true }) }));
    }
  });

  it('refuses, before walking or marking anything, a --wait that does not exceed the lease staleness', async () => {
    const prefix = 'memory://gc-command-wait';
    await writeText(`${prefix}/a-000001/.executor_status`, 'SUCCESS');
    let out = '';
    let err = '';
    const io = { stdout: { write: (c: string) => (out += c) }, stderr: { write: (c: string) => (err += c) }, env: { MARIN_LEASE_TIMEOUT_S: '5', MARIN_LEASE_HEARTBEAT_S: '1' } };
    expect(await gcCommand(['--prefix', prefix, '--delete', '--wait', '5'], io)).toBe(2);
    expect(err.trim().split('\n')).toHaveLength(1);
    expect(out).toBe('');
    expect(await exists(`${prefix}/a-000001/.executor_gc_tombstone`)).toBe(false);
  });

  it('formats sizes and ages for the table', () => {
    expect(formatBytes(12)).toBe('12 B');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.0 GiB');
    expect(formatAge(3 * 86_400_000 + 5)).toBe('3d');
    expect(formatAge(null)).toBe('-');
  });
});
