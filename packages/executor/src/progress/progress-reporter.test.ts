import { describe, expect, it } from 'vitest';
import { stripAnsi, wantsColour } from './colour.js';
import { createProgressReporter, resolveProgressMode } from './progress-reporter.js';
import { formatDuration } from './step-line.js';
import { formatSummary } from './step-state.js';

function sink(isTTY: boolean): { write(s: string): void; isTTY: boolean; text(): string } {
  const chunks: string[] = [];
  return { isTTY, write: (s: string) => void chunks.push(s), text: () => chunks.join('') };
}

/** Applies what the live view writes (`ESC[nF` = up n lines, `ESC[J` = erase below) to a list of screen lines. */
function render(text: string): string[] {
  const screen: string[] = [];
  let current = '';
  const parts = text.split(/(\x1b\[\d+F\x1b\[J|\n)/);
  for (const p of parts) {
    const up = /^\x1b\[(\d+)F\x1b\[J$/.exec(p);
    if (up) {
      screen.splice(screen.length - Number(up[1]));
      current = '';
    } else if (p === '\n') {
      screen.push(current);
      current = '';
    } else current += p;
  }
  return screen.map(stripAnsi);
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

  it('colours a TTY unless NO_COLOR is set; FORCE_COLOR wins either way', () => {
    expect(wantsColour({ isTTY: true }, {})).toBe(true);
    expect(wantsColour({ isTTY: false }, {})).toBe(false);
    expect(wantsColour({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(wantsColour({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(wantsColour({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
    expect(wantsColour({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(wantsColour({ isTTY: true }, { FORCE_COLOR: '0' })).toBe(false);
    expect(wantsColour({ isTTY: false }, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(true);
  });

  it('formats durations for people', () => {
    expect(formatDuration(20)).toBe('0.02s');
    expect(formatDuration(12_345)).toBe('12.3s');
    expect(formatDuration(125_000)).toBe('2m05s');
    expect(formatDuration(3_720_000)).toBe('1h02m');
  });

  it('prints a start line with the reason and a done line with the duration; skipped steps only in the summary', () => {
    const out = sink(false);
    let t = 0;
    const p = createProgressReporter({ stream: out, now: () => t, env: {} });
    p.update('a-123456', 'pending');
    p.update('a-123456', 'queued');
    p.update('a-123456', 'running', 'config changed: n 100→200');
    p.update('a-123456', 'running', 'config changed: n 100→200');
    t = 1500;
    p.update('a-123456', 'succeeded');
    p.update('b-654321', 'skipped', 'already succeeded');
    p.update('c-111111', 'waiting', 'lease held by h-1');
    p.update('c-111111', 'waiting', 'lease held by h-1');
    p.finish({ total: 3, ran: 1, skipped: 1, failed: 0, notRun: 1 });
    expect(out.text().split('\n')).toEqual([
      '▶ a-123456 started: config changed: n 100→200',
      '✓ a-123456 done in 1.50s',
      '… c-111111 waiting: lease held by h-1',
      '3 steps: 1 ran, 1 skipped (already succeeded), 0 failed, 1 not run (dependency failed)',
      '',
    ]);
  });

  it('prints every state change at verbose and only failures at quiet', () => {
    const events = (level: 'quiet' | 'verbose'): string => {
      const out = sink(false);
      const p = createProgressReporter({ stream: out, level, now: () => 0, env: {} });
      p.update('a-1', 'pending');
      p.update('a-1', 'queued');
      p.update('a-1', 'running', 'no earlier output');
      p.update('a-1', 'failed', 'boom');
      p.update('b-2', 'skipped', 'already succeeded');
      p.finish({ total: 2, ran: 0, skipped: 1, failed: 1, notRun: 0 });
      return out.text();
    };
    expect(events('verbose').split('\n').slice(0, 4)).toEqual([
      '· a-1 queued',
      '▶ a-1 started: no earlier output',
      '✗ a-1 failed after 0.00s: boom',
      '↷ b-2 skipped: already succeeded',
    ]);
    expect(events('quiet').split('\n')).toEqual([
      '✗ a-1 failed after 0.00s: boom',
      '2 steps: 0 ran, 1 skipped (already succeeded), 1 failed, 0 not run (dependency failed)',
      '',
    ]);
  });

  it('colours lines when asked (FORCE_COLOR) and not with NO_COLOR', () => {
    const coloured = sink(false);
    createProgressReporter({ stream: coloured, env: { FORCE_COLOR: '1' } }).update('a-1', 'running', 'why');
    expect(coloured.text()).toContain('\x1b[36m▶\x1b[39m');
    const plain = sink(true);
    createProgressReporter({ stream: plain, mode: 'plain', env: { NO_COLOR: '1' } }).update('a-1', 'running', 'why');
    expect(plain.text()).toBe('▶ a-1 started: why\n');
  });

  it('redraws the live view in place: each finished step appears once, the block is replaced, the summary ends it', async () => {
    const out = sink(true);
    let t = 0;
    const p = createProgressReporter({ stream: out, mode: 'live', now: () => t, env: {} });
    p.update('a-111111', 'running', 'no earlier output');
    p.update('b-222222', 'waiting', 'holder h-1');
    await new Promise((r) => setTimeout(r, 150));
    t = 5000;
    p.update('a-111111', 'succeeded');
    p.update('c-333333', 'skipped', 'already succeeded');
    await new Promise((r) => setTimeout(r, 150));
    p.log('a log line');
    p.finish({ total: 3, ran: 1, skipped: 1, failed: 0, notRun: 1 });
    const text = stripAnsi(out.text());
    expect(text.match(/a-111111 done/g)).toHaveLength(1);
    expect(text).not.toContain('c-333333 skipped');
    expect(text).toContain('executor: 1 waiting, 1 succeeded, 1 skipped');
    expect(out.text()).toContain('\x1b[');
    expect(render(out.text())).toEqual([
      '✓ a-111111 done in 5.00s',
      'a log line',
      '3 steps: 1 ran, 1 skipped (already succeeded), 0 failed, 1 not run (dependency failed)',
    ]);
  });

  it("prints a running step's status off a TTY at once, then at most once per interval, and never at quiet", () => {
    const lines = (level: 'quiet' | 'normal'): string[] => {
      const out = sink(false);
      let t = 0;
      const p = createProgressReporter({ stream: out, level, now: () => t, env: {}, statusIntervalMs: 10_000 });
      p.update('train-1', 'running', 'no earlier output');
      p.status('train-1', 'step 1/20');
      t = 4000;
      p.status('train-1', 'step 5/20');
      t = 10_500;
      p.status('train-1', 'step 12/20');
      p.update('train-1', 'succeeded');
      return out.text().split('\n');
    };
    expect(lines('normal').slice(0, 4)).toEqual(['▶ train-1 started: no earlier output', '⋯ train-1 step 1/20', '⋯ train-1 step 12/20', '✓ train-1 done in 10.5s']);
    expect(lines('quiet')).toEqual(['']);
  });

  it("shows a running step's status in place of its reason in the live block, and nothing of it once the step ended", async () => {
    const out = sink(true);
    const p = createProgressReporter({ stream: out, mode: 'live', now: () => 0, env: {} });
    p.update('train-1', 'running', 'no earlier output');
    p.status('train-1', 'step 3/20 · loss 6.10');
    await new Promise((r) => setTimeout(r, 150));
    expect(render(out.text()).at(-1)).toContain('train-1 (step 3/20 · loss 6.10)');
    p.status('train-1', 'step 4/20 · loss 5.90');
    await new Promise((r) => setTimeout(r, 150));
    expect(render(out.text()).at(-1)).toContain('train-1 (step 4/20 · loss 5.90)');
    p.update('train-1', 'succeeded');
    p.status('train-1', 'step 20/20');
    p.finish({ total: 1, ran: 1, skipped: 0, failed: 0, notRun: 0 });
    expect(render(out.text())).toEqual(['✓ train-1 done in 0.00s', '1 steps: 1 ran, 0 skipped (already succeeded), 0 failed, 0 not run (dependency failed)']);
  });
});
