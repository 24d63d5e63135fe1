import type { Palette } from './colour.js';
import type { OutputLevel } from './progress-mode.js';
import type { StepState } from './step-state.js';

/** `0.02s`, `12.3s`, `2m05s`, `1h02m`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 10) return `${s.toFixed(2)}s`;
  if (s < 60) return `${s.toFixed(1)}s`;
  const whole = Math.floor(s);
  const m = Math.floor(whole / 60);
  return m < 60 ? `${m}m${String(whole % 60).padStart(2, '0')}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** Whether a state change is printed at `level` (the live view shows active steps regardless). */
export function isShown(state: StepState, level: OutputLevel): boolean {
  if (level === 'verbose') return state !== 'pending';
  if (level === 'quiet') return state === 'failed';
  return state === 'running' || state === 'waiting' || state === 'succeeded' || state === 'failed' || state === 'blocked';
}

/** The symbol of a state, coloured. */
export function symbolFor(state: StepState, c: Palette): string {
  switch (state) {
    case 'succeeded':
      return c.green('✓');
    case 'skipped':
      return c.dim('↷');
    case 'failed':
      return c.red('✗');
    case 'blocked':
      return c.yellow('⊘');
    case 'running':
      return c.cyan('▶');
    case 'waiting':
      return c.yellow('…');
    default:
      return c.dim('·');
  }
}

/**
 * One printed line for a step event: `▶ <label> started: <reason>`, `✓ <label> done in 0.02s`,
 * `✗ <label> failed after 1.20s: <cause>`, `⊘ <label> not run: <why>`, `… <label> waiting: <why>`,
 * `↷ <label> skipped: <why>`, `· <label> queued`.
 */
export function formatStepLine(label: string, state: StepState, detail: string | undefined, tookMs: number | null, c: Palette): string {
  const sym = symbolFor(state, c);
  const took = tookMs === null ? '' : formatDuration(tookMs);
  const tail = (sep: string): string => (detail ? `${sep}${c.dim(detail)}` : '');
  switch (state) {
    case 'running':
      return `${sym} ${label} started${tail(': ')}`;
    case 'succeeded':
      return `${sym} ${label} done${took ? ` in ${took}` : ''}${tail(' ')}`;
    case 'failed':
      return `${sym} ${c.red(label)} failed${took ? ` after ${took}` : ''}${detail ? `: ${detail}` : ''}`;
    case 'blocked':
      return `${sym} ${label} not run${tail(': ')}`;
    case 'skipped':
      return `${sym} ${label} skipped${tail(': ')}`;
    default:
      return `${sym} ${label} ${state}${tail(': ')}`;
  }
}

/** A running step's status line off a terminal: `⋯ <label> <status>`. */
export function formatStatusLine(label: string, text: string, c: Palette): string {
  return `${c.dim('⋯')} ${label} ${text}`;
}
