import { palette, stripAnsi, wantsColour } from './colour.js';
import type { Palette } from './colour.js';
import { formatStatusLine, formatStepLine, isShown, symbolFor } from './step-line.js';
import { formatSummary, isSettled, STEP_STATES } from './step-state.js';
import type { RunSummary, StepState } from './step-state.js';
import type { OutputLevel, ProgressMode } from './progress-mode.js';

/** Receives every step state change of a run and prints it. */
export interface ProgressReporter {
  /** Records that the step `label` entered `state`; `detail` is a short reason (holder id, error). */
  update(label: string, state: StepState, detail?: string): void;
  /** Prints a log line without tearing the live view. */
  log(line: string): void;
  /**
   * A running step's own status (a training step's `step 12/20 · loss 5.83 · ETA 0:41`): on a TTY it
   * replaces the step's reason in the live block; off a TTY it is printed as `⋯ <label> <status>`, the
   * first at once and then at most once per `statusIntervalMs` (the latest status wins), not at `quiet`.
   */
  status(label: string, text: string): void;
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
  /** How much is printed. @default 'normal' */
  level?: OutputLevel;
  /** Colour the output; `undefined` decides from the stream and `NO_COLOR` / `FORCE_COLOR`. */
  colour?: boolean;
  /** Where to print. @default process.stderr */
  stream?: ProgressStream;
  /** Environment consulted for `CI`, `NO_COLOR`, `FORCE_COLOR`. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Clock in milliseconds. @default Date.now */
  now?: () => number;
  /** Off a TTY, the least time between two status lines of one step. @default 10000 */
  statusIntervalMs?: number;
}

/** The default of `statusIntervalMs`: a status line per running step every 10 s off a terminal. */
export const DEFAULT_STATUS_INTERVAL_MS = 10_000;

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
 * Creates the progress display of a run. Off a TTY (or with `plain`) it prints one line per step
 * event that matters at its level: at `normal`, a step's start with the reason it runs, its end with
 * the duration, failures, blocked steps and lease waits (skipped steps are only counted in the
 * summary); at `verbose`, every state change; at `quiet`, failures only. On a TTY (or with `live`)
 * a block of active steps is redrawn in place at most 10 times a second, and only settled steps
 * become permanent lines, so nothing is printed twice. Both end with the summary line.
 */
export function createProgressReporter(options: ProgressReporterOptions = {}): ProgressReporter {
  const stream = options.stream ?? process.stderr;
  const env = options.env ?? process.env;
  const mode = resolveProgressMode(options.mode ?? 'auto', stream, env);
  const now = options.now ?? Date.now;
  const level = options.level ?? 'normal';
  const c = palette(options.colour ?? wantsColour(stream, env));
  const interval = options.statusIntervalMs ?? DEFAULT_STATUS_INTERVAL_MS;
  return mode === 'live' ? new LiveProgress(stream, now, level, c) : new PlainProgress(stream, now, level, c, interval);
}

/** Start times of running steps, and the last detail printed per step (a waiter re-reports on every poll). */
class StepClock {
  private readonly started = new Map<string, number>();
  private readonly last = new Map<string, string>();

  constructor(private readonly now: () => number) {}

  /** Records the event; false when it repeats the step's previous one. */
  record(label: string, state: StepState, detail: string | undefined): boolean {
    const key = `${state}\u0000${detail ?? ''}`;
    if (this.last.get(label) === key) return false;
    this.last.set(label, key);
    if (state === 'running') this.started.set(label, this.now());
    return true;
  }

  /** Milliseconds since the step started running, for a settled state; `null` if it never ran here. */
  took(label: string, state: StepState): number | null {
    const t = this.started.get(label);
    return t === undefined || !isSettled(state) ? null : this.now() - t;
  }
}

function summaryLine(summary: RunSummary, c: Palette): string {
  const text = formatSummary(summary);
  return summary.failed > 0 ? c.red(text) : summary.ran + summary.skipped === summary.total ? c.green(text) : text;
}

class PlainProgress implements ProgressReporter {
  private readonly clock: StepClock;
  /** When each step's last status line was printed. */
  private readonly statusAt = new Map<string, number>();

  constructor(
    private readonly stream: ProgressStream,
    private readonly now: () => number,
    private readonly level: OutputLevel,
    private readonly c: Palette,
    private readonly statusIntervalMs: number,
  ) {
    this.clock = new StepClock(now);
  }

  update(label: string, state: StepState, detail?: string): void {
    if (state !== 'running') this.statusAt.delete(label);
    if (!this.clock.record(label, state, detail) || !isShown(state, this.level)) return;
    this.stream.write(`${formatStepLine(label, state, detail, this.clock.took(label, state), this.c)}\n`);
  }

  log(line: string): void {
    this.stream.write(`${line}\n`);
  }

  status(label: string, text: string): void {
    if (this.level === 'quiet') return;
    const t = this.now();
    const last = this.statusAt.get(label);
    if (last !== undefined && t - last < this.statusIntervalMs) return;
    this.statusAt.set(label, t);
    this.stream.write(`${formatStatusLine(label, text, this.c)}\n`);
  }

  finish(summary: RunSummary): void {
    this.stream.write(`${summaryLine(summary, this.c)}\n`);
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
 * The live view: settled steps scroll above as permanent lines (the same lines as the plain
 * display, skipped ones only at `verbose`); below them a block (header with counts per state, one
 * line per active step with its reason and elapsed time) is erased and redrawn in place.
 */
class LiveProgress implements ProgressReporter {
  private readonly entries = new Map<string, LiveEntry>();
  private readonly permanent: string[] = [];
  private readonly clock: StepClock;
  private drawnLines = 0;
  private timer: NodeJS.Timeout | null = null;
  private ticker: NodeJS.Timeout | null = null;
  private lastDraw = 0;
  private finished = false;

  constructor(
    private readonly stream: ProgressStream,
    private readonly now: () => number,
    private readonly level: OutputLevel,
    private readonly c: Palette,
  ) {
    this.clock = new StepClock(now);
  }

  update(label: string, state: StepState, detail?: string): void {
    if (this.finished) return;
    const t = this.now();
    const prev = this.entries.get(label);
    // A running step keeps the reason it started with.
    const kept = state === 'running' && detail === undefined && prev?.state === 'running' ? prev.detail : detail;
    this.entries.set(label, { state, since: prev && prev.state === state ? prev.since : t, detail: kept });
    const fresh = this.clock.record(label, state, detail);
    if (fresh && isSettled(state) && isShown(state, this.level)) {
      this.permanent.push(formatStepLine(label, state, detail, this.clock.took(label, state), this.c));
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

  status(label: string, text: string): void {
    const entry = this.entries.get(label);
    if (this.finished || entry === undefined || entry.state !== 'running') return;
    entry.detail = text;
    this.scheduleDraw();
  }

  finish(summary: RunSummary): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.ticker) clearInterval(this.ticker);
    this.timer = null;
    this.ticker = null;
    this.finished = true;
    let out = this.clearBlock();
    for (const line of this.permanent.splice(0)) out += `${line}\n`;
    this.stream.write(`${out}${summaryLine(summary, this.c)}\n`);
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
    // Cut by visible width: colour codes take no columns.
    const cut = (s: string): string => (stripAnsi(s).length > width ? `${stripAnsi(s).slice(0, width - 1)}…` : s);
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
    const block = [cut(this.c.bold(`executor: ${header || 'starting'}`))];
    for (const [label, e] of active.slice(0, 20)) {
      const elapsed = e.state === 'running' || e.state === 'waiting' ? ` ${formatElapsed(t - e.since)}` : '';
      block.push(cut(`  ${symbolFor(e.state, this.c)} ${e.state.padEnd(7)}${elapsed.padStart(8)}  ${label}${e.detail ? this.c.dim(` (${e.detail})`) : ''}`));
    }
    if (active.length > 20) block.push(`  … ${active.length - 20} more`);
    out += block.map((l) => `${l}\n`).join('');
    this.drawnLines = block.length;
    this.stream.write(out);
  }
}
