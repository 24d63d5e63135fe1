import { formatSummary, isSettled, STEP_STATES } from './step-state.js';
import type { RunSummary, StepState } from './step-state.js';
import type { ProgressMode } from './progress-mode.js';

/** Receives every step state change of a run and prints it. */
export interface ProgressReporter {
  /** Records that the step `label` entered `state`; `detail` is a short reason (holder id, error). */
  update(label: string, state: StepState, detail?: string): void;
  /** Prints a log line without tearing the live view. */
  log(line: string): void;
  /** Prints the summary line and stops redrawing. */
  finish(summary: RunSummary): void;
}

/** A writable text sink such as `process.stderr`. */
export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** Options of `createProgressReporter`. */
export interface ProgressReporterOptions {
  /** `auto` picks `live` on a TTY when `CI` is unset, else `plain`. @default 'auto' */
  mode?: ProgressMode;
  /** Where to print. @default process.stderr */
  stream?: ProgressStream;
  /** Environment consulted for `CI`. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Clock in milliseconds. @default Date.now */
  now?: () => number;
}

/** Resolves `auto` to `live` or `plain` for the given stream and environment. */
export function resolveProgressMode(
  mode: ProgressMode,
  stream: ProgressStream,
  env: NodeJS.ProcessEnv,
): 'live' | 'plain' {
  if (mode !== 'auto') return mode;
  return stream.isTTY === true && (env['CI'] === undefined || env['CI'] === '') ? 'live' : 'plain';
}

/**
 * Creates the progress display of a run: one plain line per state change off a TTY (or with
 * `plain`), a live view redrawn at most 10 times a second on a TTY (or with `live`). Both end with
 * the summary line.
 */
export function createProgressReporter(options: ProgressReporterOptions = {}): ProgressReporter {
  const stream = options.stream ?? process.stderr;
  const mode = resolveProgressMode(options.mode ?? 'auto', stream, options.env ?? process.env);
  const now = options.now ?? Date.now;
  return mode === 'live' ? new LiveProgress(stream, now) : new PlainProgress(stream);
}

class PlainProgress implements ProgressReporter {
  private readonly last = new Map<string, string>();

  constructor(private readonly stream: ProgressStream) {}

  update(label: string, state: StepState, detail?: string): void {
    // Every step starts pending; only changes from there are worth a line (a waiter re-reports
    // `waiting` on every poll).
    const key = `${state}\u0000${detail ?? ''}`;
    if (state === 'pending' || this.last.get(label) === key) return;
    this.last.set(label, key);
    this.stream.write(`[executor] ${label}: ${state}${detail ? ` (${detail})` : ''}\n`);
  }

  log(line: string): void {
    this.stream.write(`${line}\n`);
  }

  finish(summary: RunSummary): void {
    this.stream.write(`${formatSummary(summary)}\n`);
  }
}

interface LiveEntry {
  state: StepState;
  since: number;
  detail: string | undefined;
}

const REDRAW_MS = 100;
const ACTIVE_ORDER: Partial<Record<StepState, number>> = { running: 0, waiting: 1, queued: 2, pending: 3 };

function formatElapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m${String(s % 60).padStart(2, '0')}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/**
 * The live view: finished steps scroll above as permanent lines; below them a block (header with
 * counts per state, one line per active step) is erased and redrawn in place.
 */
class LiveProgress implements ProgressReporter {
  private readonly entries = new Map<string, LiveEntry>();
  private readonly permanent: string[] = [];
  private drawnLines = 0;
  private timer: NodeJS.Timeout | null = null;
  private ticker: NodeJS.Timeout | null = null;
  private lastDraw = 0;
  private finished = false;

  constructor(
    private readonly stream: ProgressStream,
    private readonly now: () => number,
  ) {}

  update(label: string, state: StepState, detail?: string): void {
    if (this.finished) return;
    const t = this.now();
    const prev = this.entries.get(label);
    this.entries.set(label, { state, since: prev && prev.state === state ? prev.since : t, detail });
    if (isSettled(state)) {
      const took = prev && (prev.state === 'running' || prev.state === 'waiting') ? ` in ${formatElapsed(t - prev.since)}` : '';
      this.permanent.push(`${symbolFor(state)} ${label}: ${state}${took}${detail ? ` (${detail})` : ''}`);
    }
    this.ticker ??= setInterval(() => this.scheduleDraw(), 1000).unref();
    this.scheduleDraw();
  }

  log(line: string): void {
    if (this.finished) {
      this.stream.write(`${line}\n`);
      return;
    }
    this.permanent.push(line);
    this.scheduleDraw();
  }

  finish(summary: RunSummary): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.ticker) clearInterval(this.ticker);
    this.timer = null;
    this.ticker = null;
    this.draw();
    this.finished = true;
    this.stream.write(`${this.clearBlock()}${formatSummary(summary)}\n`);
    this.drawnLines = 0;
  }

  private scheduleDraw(): void {
    if (this.timer || this.finished) return;
    const wait = Math.max(0, this.lastDraw + REDRAW_MS - this.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.draw();
    }, wait);
    this.timer.unref();
  }

  private clearBlock(): string {
    // Cursor up to the first line of the block, then erase to the end of the screen.
    return this.drawnLines > 0 ? `\x1b[${this.drawnLines}F\x1b[J` : '';
  }

  private draw(): void {
    this.lastDraw = this.now();
    const width = Math.max(20, (this.stream.columns || 100) - 1);
    const cut = (s: string): string => (s.length > width ? `${s.slice(0, width - 1)}…` : s);
    let out = this.clearBlock();
    for (const line of this.permanent.splice(0)) out += `${line}\n`;
    const counts = new Map<StepState, number>();
    for (const e of this.entries.values()) counts.set(e.state, (counts.get(e.state) ?? 0) + 1);
    const header = STEP_STATES.filter((s) => (counts.get(s) ?? 0) > 0)
      .map((s) => `${counts.get(s)} ${s}`)
      .join(', ');
    const active = [...this.entries.entries()]
      .filter(([, e]) => !isSettled(e.state))
      .sort(([, a], [, b]) => (ACTIVE_ORDER[a.state] ?? 9) - (ACTIVE_ORDER[b.state] ?? 9) || a.since - b.since);
    const t = this.now();
    const block = [cut(`executor: ${header || 'starting'}`)];
    for (const [label, e] of active.slice(0, 20)) {
      const elapsed = e.state === 'running' || e.state === 'waiting' ? ` ${formatElapsed(t - e.since)}` : '';
      block.push(cut(`  ${symbolFor(e.state)} ${e.state.padEnd(7)}${elapsed.padStart(8)}  ${label}${e.detail ? ` (${e.detail})` : ''}`));
    }
    if (active.length > 20) block.push(`  … ${active.length - 20} more`);
    out += block.map((l) => `${l}\n`).join('');
    this.drawnLines = block.length;
    this.stream.write(out);
  }
}

function symbolFor(state: StepState): string {
  switch (state) {
    case 'succeeded':
      return '✓';
    case 'skipped':
      return '↷';
    case 'failed':
      return '✗';
    case 'blocked':
      return '⊘';
    case 'running':
      return '▶';
    case 'waiting':
      return '…';
    default:
      return '·';
  }
}
