import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_LOG_LINE_BYTES } from './log-line.js';
import { OutputSegments } from './task-supervisor.js';

describe('OutputSegments', () => {
  it('cuts each task at its end marker, even when the marker spans chunks', async () => {
    const pipe = new PassThrough();
    const segments = new OutputSegments(pipe);
    const first: string[] = [];
    const done = segments.begin('m1', (l) => first.push(l));
    pipe.write('a\nb');
    pipe.write('\0m');
    pipe.write('1\0');
    await done;
    const second: string[] = [];
    const next = segments.begin('m2', (l) => second.push(l));
    pipe.write('c\n\0m2\0');
    await next;
    expect(first).toEqual(['a', 'b']);
    expect(second).toEqual(['c']);
  });

  it('passes on a line written without newlines in pieces, so it is never held whole', async () => {
    const pipe = new PassThrough();
    const segments = new OutputSegments(pipe);
    const lines: string[] = [];
    const done = segments.begin('end', (l) => lines.push(l));
    const chunk = 'x'.repeat(16 * 1024);
    for (let i = 0; i < 64; i++) pipe.write(chunk); // 1 MiB, no newline
    pipe.write('\0end\0');
    await done;
    expect(lines.join('')).toBe(chunk.repeat(64));
    expect(lines.length).toBeGreaterThan(1);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(MAX_LOG_LINE_BYTES + chunk.length);
  });
});
