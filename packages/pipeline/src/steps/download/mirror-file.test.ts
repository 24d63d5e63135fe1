import { Readable } from 'node:stream';
import { exists, glob, readBytes } from '@marin/rigging';
import { resetMemoryFilesystem } from '@marin/rigging/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { mirrorFile } from './mirror-file.js';

const never = new AbortController().signal;
const source = (chunks: string[]) => async () => Readable.from(chunks.map((c) => Buffer.from(c)));
const opts = (open: () => Promise<Readable>) => ({ open, readTimeoutMs: 5_000, minBytesPerSecond: 1024 * 1024, bufferBytes: 1024, signal: never });

describe('mirrorFile()', () => {
  afterEach(() => resetMemoryFilesystem());

  it('writes the bytes and returns their count', async () => {
    const file = { path: 'a/b.txt', size: 11, url: 'x://a/b.txt' };
    await expect(mirrorFile(file, 'memory://out/a/b.txt', opts(source(['hello', ' world'])))).resolves.toBe(11);
    expect((await readBytes('memory://out/a/b.txt')).toString()).toBe('hello world');
  });

  it.each([
    ['short', ['hello']],
    ['long', ['hello', ' world', '!']],
  ])('fails a %s body with PIPELINE_SIZE_MISMATCH and leaves nothing behind', async (_what, chunks) => {
    const file = { path: 'b.txt', size: 11, url: 'x://b.txt' };
    await expect(mirrorFile(file, 'memory://out/b.txt', opts(source(chunks)))).rejects.toMatchObject({
      code: 'PIPELINE_SIZE_MISMATCH',
      retryable: false,
      details: { expectedBytes: 11 },
    });
    expect(await glob('memory://out/**')).toEqual([]);
  });

  it('cuts off a body trickling under the read timeout at its total deadline, for good', async () => {
    const file = { path: 'c.txt', size: 1_000, url: 'x://c.txt' };
    const timers: NodeJS.Timeout[] = [];
    // One byte every 20 ms: the 1 s read timeout never fires, the whole file would take 20 s.
    const trickle = async (signal: AbortSignal): Promise<Readable> => {
      const r = new Readable({ read() {} });
      timers.push(setInterval(() => r.push(Buffer.from('x')), 20));
      signal.addEventListener('abort', () => r.destroy(new Error('aborted')));
      return r;
    };
    const started = Date.now();
    try {
      await expect(
        mirrorFile(file, 'memory://out/c.txt', { ...opts(source([])), open: trickle, readTimeoutMs: 1_000, minBytesPerSecond: 10_000 }),
      ).rejects.toMatchObject({ code: 'PIPELINE_HUB_UNAVAILABLE', retryable: false, details: { deadlineMs: 2_100 } });
    } finally {
      for (const t of timers) clearInterval(t);
    }
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await exists('memory://out/c.txt')).toBe(false);
  });

  it('fails retryably when no data arrives within the read timeout', async () => {
    const file = { path: 'd.txt', size: 3, url: 'x://d.txt' };
    const stalled = async (signal: AbortSignal): Promise<Readable> => {
      const r = new Readable({ read() {} });
      signal.addEventListener('abort', () => r.destroy(new Error('aborted')));
      return r;
    };
    await expect(mirrorFile(file, 'memory://out/d.txt', { ...opts(source([])), open: stalled, readTimeoutMs: 50 })).rejects.toMatchObject({
      code: 'PIPELINE_HUB_UNAVAILABLE',
      retryable: true,
    });
    expect(await exists('memory://out/d.txt')).toBe(false);
  });
});
