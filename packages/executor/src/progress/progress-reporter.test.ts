import { describe, expect, it } from 'vitest';
import { createProgressReporter, resolveProgressMode } from './progress-reporter.js';
import { formatSummary } from './step-state.js';

function sink(isTTY: boolean): { write(s: string): void; isTTY: boolean; text(): string } {
  const chunks: string[] = [];
  return { isTTY, write: (s: string) => void chunks.push(s), text: () => chunks.join('') };
}

describe('progress reporter', () => {
  it('formats the summary line', () => {
    expect(formatSummary({ total: 4, ran: 1, skipped: 1, failed: 1, notRun: 1 })).toBe(
      '4 steps: 1 ran, 1 skipped (already succeeded), 1 failed, 1 not run (dependency failed)',
    );
  });

  it('picks live only on a TTY outside CI unless forced', () => {
    expect(resolveProgressMode('auto', { write: () => {}, isTTY: true }, {})).toBe('live');
    expect(resolveProgressMode('auto', { write: () => {}, isTTY: true }, { CI: 'true' })).toBe('plain');
    expect(resolveProgressMode('auto', { write: () => {}, isTTY: false }, {})).toBe('plain');
    expect(resolveProgressMode('live', { write: () => {}, isTTY: false }, { CI: '1' })).toBe('live');
    expect(resolveProgressMode('plain', { write: () => {}, isTTY: true }, {})).toBe('plain');
  });

  it('prints one plain line per state change and the summary', () => {
    const out = sink(false);
    const p = createProgressReporter({ stream: out });
    p.update('a-123456', 'pending');
    p.update('a-123456', 'running');
    p.update('a-123456', 'running');
    p.update('a-123456', 'succeeded');
    p.finish({ total: 1, ran: 1, skipped: 0, failed: 0, notRun: 0 });
    expect(out.text().split('\n')).toEqual([
      '[executor] a-123456: running',
      '[executor] a-123456: succeeded',
      '1 steps: 1 ran, 0 skipped (already succeeded), 0 failed, 0 not run (dependency failed)',
      '',
    ]);
  });

  it('draws the live view with counts, active steps, permanent finished lines and the summary', () => {
    const out = sink(false);
    let t = 0;
    const p = createProgressReporter({ stream: out, mode: 'live', now: () => t });
    p.update('a-111111', 'running');
    p.update('b-222222', 'waiting', 'holder h-1');
    t = 5000;
    p.update('a-111111', 'succeeded');
    p.finish({ total: 2, ran: 1, skipped: 0, failed: 0, notRun: 1 });
    const text = out.text();
    expect(text).toContain('✓ a-111111: succeeded in 5s');
    expect(text).toContain('executor: 1 waiting, 1 succeeded');
    expect(text).toContain('b-222222 (holder h-1)');
    expect(text).toContain('\x1b[');
    expect(text.trimEnd().endsWith('2 steps: 1 ran, 0 skipped (already succeeded), 0 failed, 1 not run (dependency failed)')).toBe(true);
  });
});
