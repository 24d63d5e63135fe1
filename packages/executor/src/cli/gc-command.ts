import { leaseTimings, marinPrefix } from '@marin/rigging';
import type { LeaseTimings } from '@marin/rigging';
import { readFile } from 'node:fs/promises';
import { ExecutorError } from '../errors.js';
import { deleteGcCandidates } from '../gc/gc-delete.js';
import type { GcDeleteResult } from '../gc/gc-delete.js';
import { planGc } from '../gc/gc-plan.js';
import type { GcPlan, GcProgress } from '../gc/gc-plan.js';
import { closestMatches } from '../internal/suggest.js';

/** Where `marin gc` writes: stdout for results, stderr for progress and messages. */
export interface CliStreams {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown; isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

/** The usage text of `marin gc`. */
export const GC_USAGE = `usage: marin gc [options]

Lists the step outputs under a prefix that no experiment references any more (with sizes and ages),
and deletes them with --delete. Outputs that are RUNNING or hold a live lease, and their inputs, are
never deleted. Deleting marks each candidate, waits longer than the lease staleness, checks again
(experiments written meanwhile count) and deletes each output under its step's lease; an executor
that reuses a marked output takes it back.

options:
  --prefix <path|url>        root of the outputs (default: MARIN_PREFIX, cluster config root,
                             regional bucket, else /tmp/marin)
  --experiments <path|url>   where the experiment JSON files are (default: <prefix>/experiments)
  --since <date|Nd|Nh>       only experiments created at or after this keep their outputs
                             (ISO date or time, or an age such as 30d); older ones are superseded
  --keep <path>              keep this output (and everything below it) or this experiment file;
                             repeatable; relative paths are under the prefix
  --keep-file <file>         read more --keep entries from a file, one per line (# comments)
  --delete                   delete what is listed (default: list only)
  --wait <seconds>           with --delete: wait between marking and deleting; must exceed
                             MARIN_LEASE_TIMEOUT_S (default: MARIN_LEASE_TIMEOUT_S +
                             MARIN_LEASE_HEARTBEAT_S)
  --json                     print the listing (and what was deleted) as JSON on stdout
  --progress auto|bar|none   progress bar on a terminal (default: auto)
  --help                     print this help
`;

interface GcArgs {
  prefix: string | null;
  experiments: string | null;
  since: Date | null;
  keep: string[];
  keepFiles: string[];
  delete: boolean;
  waitS: number | null;
  json: boolean;
  progress: 'auto' | 'bar' | 'none';
  help: boolean;
}

const FLAGS = ['prefix', 'experiments', 'since', 'keep', 'keep-file', 'delete', 'wait', 'json', 'progress', 'help'];

function usageError(message: string, details: Record<string, unknown> = {}): ExecutorError {
  return new ExecutorError('EXECUTOR_INVALID_ARGUMENT', message, { details: { ...details, usage: true } });
}

/** `2026-01-31`, `2026-01-31T12:00:00`, or an age: `30d`, `12h`, `45m`. */
export function parseSince(value: string, now = Date.now()): Date {
  const age = /^(\d+(?:\.\d+)?)([dhm])$/.exec(value.trim());
  if (age !== null) {
    const unitMs = { d: 86_400_000, h: 3_600_000, m: 60_000 }[age[2] as 'd' | 'h' | 'm'];
    return new Date(now - Number(age[1]) * unitMs);
  }
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw usageError(`--since must be an ISO date or time or an age such as 30d, got ${JSON.stringify(value)}`);
  return new Date(ms);
}

/**
 * Parses the arguments of `marin gc`.
 *
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT (`details.usage`) for an unknown flag (with the
 * closest one), a missing value or a bad `--since`/`--progress`.
 */
export function parseGcArgs(argv: readonly string[]): GcArgs {
  const out: GcArgs = { prefix: null, experiments: null, since: null, keep: [], keepFiles: [], delete: false, waitS: null, json: false, progress: 'auto', help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw usageError(`unexpected argument ${JSON.stringify(arg)}`);
    const eq = arg.indexOf('=');
    const name = (eq === -1 ? arg.slice(2) : arg.slice(2, eq)).replaceAll('_', '-');
    const inline = eq === -1 ? null : arg.slice(eq + 1);
    const value = (): string => {
      if (inline !== null) return inline;
      const next = argv[++i];
      if (next === undefined) throw usageError(`flag --${name} needs a value`);
      return next;
    };
    switch (name) {
      case 'prefix':
        out.prefix = value();
        break;
      case 'experiments':
        out.experiments = value();
        break;
      case 'since':
        out.since = parseSince(value());
        break;
      case 'keep':
        out.keep.push(value());
        break;
      case 'keep-file':
        out.keepFiles.push(value());
        break;
      case 'delete':
        out.delete = inline === null ? true : inline === 'true';
        break;
      case 'wait': {
        const v = value();
        const n = Number(v);
        if (v.trim() === '' || !Number.isFinite(n) || n <= 0) throw usageError(`--wait must be a positive number of seconds, got ${JSON.stringify(v)}`);
        out.waitS = n;
        break;
      }
      case 'json':
        out.json = inline === null ? true : inline === 'true';
        break;
      case 'progress': {
        const v = value();
        if (v !== 'auto' && v !== 'bar' && v !== 'none') throw usageError(`--progress must be auto, bar or none, got ${JSON.stringify(v)}`);
        out.progress = v;
        break;
      }
      case 'help':
        out.help = true;
        break;
      default: {
        const close = closestMatches(name, FLAGS, 1);
        throw usageError(`unknown flag ${JSON.stringify(arg)}${close.length > 0 ? `; did you mean --${close[0]}?` : ''}`, { suggestions: close.map((f) => `--${f}`) });
      }
    }
  }
  return out;
}

/** `1.5 GiB`, `320.0 KiB`, `12 B`. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${v.toFixed(1)} ${units[u]}`;
}

/** `3d`, `5h`, `12m`, `40s`, `-` when unknown. */
export function formatAge(ms: number | null): string {
  if (ms === null) return '-';
  const s = Math.floor(ms / 1000);
  if (s >= 86_400) return `${Math.floor(s / 86_400)}d`;
  if (s >= 3600) return `${Math.floor(s / 3600)}h`;
  if (s >= 60) return `${Math.floor(s / 60)}m`;
  return `${s}s`;
}

/** A one-line progress display redrawn in place on a terminal; silent elsewhere. */
class ProgressLine {
  private lastDraw = 0;
  private shown = false;

  constructor(private readonly stream: CliStreams['stderr'], private readonly enabled: boolean) {}

  update(p: GcProgress): void {
    if (!this.enabled) return;
    const t = Date.now();
    const final = p.phase === 'size' && p.done === p.total;
    if (!final && t - this.lastDraw < 100) return;
    this.lastDraw = t;
    let text: string;
    if (p.phase === 'walk') text = `walking: ${p.directories} directories, ${p.outputs} step outputs`;
    else {
      const width = 30;
      const filled = p.total === 0 ? width : Math.round((p.done / p.total) * width);
      text = `sizing [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.done}/${p.total} unreferenced outputs`;
    }
    this.stream.write(`\r\x1b[2K${text}`);
    this.shown = true;
  }

  clear(): void {
    if (this.shown) this.stream.write('\r\x1b[2K');
    this.shown = false;
  }
}

function table(plan: GcPlan): string[] {
  const rows = plan.candidates.map((c) => [c.rel, c.status ?? '-', formatBytes(c.sizeBytes), formatAge(c.ageMs), c.action === 'delete' ? 'delete' : `keep (${c.reason})`]);
  const header = ['OUTPUT', 'STATUS', 'SIZE', 'AGE', 'ACTION'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]): string => r.map((cell, i) => (i === 2 || i === 3 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)];
}

function summaryLines(plan: GcPlan): string[] {
  const live = plan.experiments.filter((e) => e.state === 'live').length;
  const superseded = plan.experiments.filter((e) => e.state === 'superseded').length;
  const unreadable = plan.experiments.filter((e) => e.state === 'unreadable').length;
  const toDelete = plan.candidates.filter((c) => c.action === 'delete');
  const kept = plan.candidates.length - toDelete.length;
  const bytes = toDelete.reduce((s, c) => s + c.sizeBytes, 0);
  const outside = new Set(plan.outside.map((r) => r.experiment)).size;
  return [
    `prefix ${plan.prefix}: ${plan.experiments.length} experiment file(s) (${live} live, ${superseded} superseded${unreadable > 0 ? `, ${unreadable} unreadable` : ''}), ` +
      `${plan.outputs} step output(s), ${plan.reachable} reachable`,
    `${toDelete.length} unreferenced output(s), ${formatBytes(bytes)} reclaimable${kept > 0 ? `; ${kept} kept because they are in use` : ''}`,
    ...(outside > 0 ? [`${plan.outside.length} reference(s) of ${outside} live experiment(s) lie outside the prefix; they are reported, never deleted`] : []),
  ];
}

/**
 * `marin gc`: lists unreferenced step outputs and, with `--delete`, deletes them. Returns the exit
 * code: 0, 1 when something failed (an unreadable experiment blocks `--delete`), 2 for bad arguments
 * (including bad lease timings or a `--wait` not above the lease staleness).
 */
export async function gcCommand(argv: readonly string[], io: CliStreams): Promise<number> {
  let args: GcArgs;
  try {
    args = parseGcArgs(argv);
  } catch (e) {
    if (!ExecutorError.hasCode(e, 'EXECUTOR_INVALID_ARGUMENT')) throw e;
    io.stderr.write(`error: ${e.message}\n\n${GC_USAGE}`);
    return 2;
  }
  if (args.help) {
    io.stdout.write(GC_USAGE);
    return 0;
  }
  // Checked before the (possibly long) walk: lease timings, and a wait that exceeds the staleness.
  let timings: LeaseTimings;
  try {
    timings = leaseTimings(io.env);
  } catch (e) {
    io.stderr.write(`error: ${(e as Error).message}\n`);
    return 2;
  }
  if (args.delete && args.waitS !== null && !(args.waitS > timings.timeoutS)) {
    io.stderr.write(`error: --wait ${args.waitS} must exceed the lease staleness MARIN_LEASE_TIMEOUT_S (${timings.timeoutS}s)\n`);
    return 2;
  }
  const keep = [...args.keep];
  for (const file of args.keepFiles) {
    const text = await readFile(file, 'utf8');
    keep.push(...text.split('\n').map((l) => l.replace(/#.*/, '').trim()).filter((l) => l !== ''));
  }
  const prefix = args.prefix ?? (await marinPrefix());
  const tty = io.stderr.isTTY === true && (io.env['CI'] === undefined || io.env['CI'] === '');
  const progress = new ProgressLine(io.stderr, args.progress === 'bar' || (args.progress === 'auto' && tty));
  const warnings: string[] = [];
  const plan = await planGc({
    prefix,
    experimentsPath: args.experiments,
    since: args.since,
    keep,
    timings,
    onProgress: (p) => progress.update(p),
    warn: (m) => void warnings.push(m),
  });
  progress.clear();
  for (const w of warnings) io.stderr.write(`warning: ${w}\n`);
  for (const r of plan.outside) io.stderr.write(`warning: live experiment ${r.experiment} references ${r.path}, outside the prefix ${plan.prefix}: not collected\n`);

  let deleted: GcDeleteResult | null = null;
  let failure: unknown = null;
  if (args.delete) {
    try {
      deleted = await deleteGcCandidates(plan, {
        timings,
        ...(args.waitS !== null ? { waitMs: args.waitS * 1000 } : {}),
        onPhase: (phase, waitMs) => {
          if (phase === 'wait') {
            progress.clear();
            io.stderr.write(`marked ${plan.candidates.filter((c) => c.action === 'delete').length} output(s) for deletion; waiting ${((waitMs ?? 0) / 1000).toFixed(1)}s (longer than the lease staleness) before checking them again\n`);
          }
        },
        onProgress: (done, total) => progress.update({ phase: 'size', done, total }),
      });
    } catch (e) {
      failure = e;
    }
    progress.clear();
  }
  if (args.json) {
    io.stdout.write(
      `${JSON.stringify(
        {
          prefix: plan.prefix,
          experiments: plan.experiments,
          outputs: plan.outputs,
          reachable: plan.reachable,
          candidates: plan.candidates,
          outside: plan.outside,
          deleted: deleted?.deleted.map((c) => c.path) ?? null,
          skipped: deleted?.skipped.map((s) => ({ path: s.candidate.path, reason: s.reason })) ?? null,
          freedBytes: deleted?.freedBytes ?? 0,
        },
        null,
        2,
      )}\n`,
    );
  } else {
    const out = [...(plan.candidates.length > 0 ? table(plan) : []), ...summaryLines(plan)];
    if (deleted !== null) {
      out.push(`deleted ${deleted.deleted.length} output(s), freed ${formatBytes(deleted.freedBytes)}`);
      for (const s of deleted.skipped) out.push(`skipped ${s.candidate.rel}: ${s.reason}`);
    } else if (!args.delete && plan.candidates.some((c) => c.action === 'delete')) {
      out.push('dry listing: nothing deleted; rerun with --delete to remove the outputs marked delete');
    }
    io.stdout.write(`${out.join('\n')}\n`);
  }
  if (failure !== null) {
    io.stderr.write(`error: ${(failure as Error).message}\n`);
    return 1;
  }
  return 0;
}
