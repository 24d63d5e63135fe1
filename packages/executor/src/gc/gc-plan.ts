import { createLease, filesystemFor, listFilesRecursive, localPathOf, mapLimit, parsePyJson, RiggingError, schemeOf } from '@marin/rigging';
import type { FileInfo, LeaseTimings } from '@marin/rigging';
import { absolutePrefix } from '../resolution/make-prefix-absolute.js';
import { pathJoin } from '../dag/path-join.js';
import { fileUnder, INFO_FILE, LEASE_FILE, STATUS_FILE } from '../status/status-store.js';
import { parseStatusText, STATUS_RUNNING } from '../status/status.js';
import type { StepStatus } from '../status/status.js';

/** Options of {@link planGc}. */
export interface GcOptions {
  /** Root of the outputs to collect; a relative local path is made absolute. */
  prefix: string;
  /** Where the experiment JSON files are. @default `<prefix>/experiments` */
  experimentsPath?: string | null;
  /**
   * Only experiment JSON files created at or after this instant keep their outputs alive; older
   * ones are superseded. @default null: every experiment file counts
   */
  since?: Date | null;
  /**
   * Kept whatever the experiments say: output paths (everything at or below each is kept,
   * relative paths are joined to the prefix) or experiment JSON files (by path or file name),
   * which then count even when older than `since`. @default []
   */
  keep?: readonly string[];
  /** Lease timings for telling a live lease from a stale one. @default rigging's leaseTimings() */
  timings?: LeaseTimings;
  /** Wall clock in milliseconds. @default Date.now */
  now?: () => number;
  /** Progress of the walk and of sizing. @default none */
  onProgress?: (progress: GcProgress) => void;
  /** Where warnings go. @default none */
  warn?: (message: string) => void;
}

/** Progress of a collection: the walk counts directories, sizing counts candidates. */
export type GcProgress =
  | { phase: 'walk'; directories: number; outputs: number }
  | { phase: 'size'; done: number; total: number };

/** One experiment JSON file and whether it keeps its outputs alive. */
export interface GcExperiment {
  path: string;
  /** `created_date` of the file (local time), or its mtime when absent. */
  createdMs: number | null;
  /** `live` keeps its outputs; `superseded` is older than `since`; `unreadable` could not be parsed. */
  state: 'live' | 'superseded' | 'unreadable';
  /** Output paths it references. */
  outputs: number;
}

/** One step output no live experiment references. */
export interface GcCandidate {
  /** Output directory URL or path. */
  path: string;
  /** The path relative to the prefix. */
  rel: string;
  status: StepStatus | null;
  /** Bytes below it. */
  sizeBytes: number;
  /** Time since its newest executor file was written, when known. */
  ageMs: number | null;
  /** `delete`, or `keep` because the step is RUNNING or its lease is live. */
  action: 'delete' | 'keep';
  /** Why it is kept, e.g. `RUNNING` or `live lease held by host-1-2`. */
  reason: string | null;
}

/** What {@link planGc} found. */
export interface GcPlan {
  prefix: string;
  experimentsPath: string;
  experiments: GcExperiment[];
  /** Step outputs found under the prefix. */
  outputs: number;
  /** Of those, referenced by a live experiment or a keep entry. */
  reachable: number;
  /** Unreferenced outputs, largest first. */
  candidates: GcCandidate[];
}

/** A path in one comparable form: no `file://`, no trailing slash. */
export function normalizeOutputPath(path: string): string {
  const p = schemeOf(path) === 'file' ? localPathOf(path) : path;
  return p.length > 1 ? p.replace(/\/+$/, '') : p;
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** `created_date` is local time without offset (`2026-11-21T20:01:02.123000`); JS parses that as local. */
function createdMsOf(info: Record<string, unknown>): number | null {
  const d = info['created_date'];
  if (typeof d !== 'string') return null;
  const ms = Date.parse(d.replace(/(\.\d{3})\d+$/, '$1'));
  return Number.isNaN(ms) ? null : ms;
}

function referencedPaths(info: Record<string, unknown>): string[] {
  const steps = Array.isArray(info['steps']) ? info['steps'] : [];
  const out: string[] = [];
  for (const s of steps) {
    if (!isRecord(s)) continue;
    if (typeof s['output_path'] === 'string') out.push(s['output_path']);
    if (Array.isArray(s['dependencies'])) for (const d of s['dependencies']) if (typeof d === 'string') out.push(d);
  }
  return out;
}

function under(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith('/') ? root : `${root}/`);
}

async function lsOrEmpty(url: string): Promise<FileInfo[]> {
  try {
    return await filesystemFor(url).ls(url);
  } catch (e) {
    if (RiggingError.hasCode(e, 'RIGGING_NOT_FOUND')) return [];
    throw e;
  }
}

/** Whether a step output is in use: RUNNING, or a lease that is still fresh. Re-read before deleting. */
export async function liveReason(path: string, timings: LeaseTimings | undefined, now: () => number): Promise<string | null> {
  const statusUrl = fileUnder(path, STATUS_FILE);
  let status: StepStatus | null = null;
  try {
    status = parseStatusText(await filesystemFor(statusUrl).readText(statusUrl));
  } catch (e) {
    if (!RiggingError.hasCode(e, 'RIGGING_NOT_FOUND')) throw e;
  }
  if (status === STATUS_RUNNING) return 'RUNNING';
  const lease = await createLease(fileUnder(path, LEASE_FILE), { workerId: 'marin-gc', clock: now, warn: () => {}, ...(timings ? { timings } : {}) }).read();
  return lease !== null && lease.fresh ? `live lease held by ${lease.lease.workerId}` : null;
}

const MAX_DEPTH = 12;

/**
 * Finds the step outputs under a prefix that no live experiment references (Marin issues #422,
 * #3721, #5744, #8356), with their sizes and ages. Reads only: deleting is {@link deleteGcCandidates}.
 *
 * Roots are the experiment JSON files under `experimentsPath` (those created at or after `since`,
 * plus kept ones); every `output_path` and dependency they list is reachable. A step output is a
 * directory holding `.executor_info` or `.executor_status`; the walk does not descend into one, nor
 * into the experiments directory. Outputs that are RUNNING or hold a live lease are listed as `keep`.
 *
 * @throws {RiggingError} for storage failures; an unreadable experiment file is not thrown but
 * reported (`state: 'unreadable'`), and deleting refuses while there is one.
 */
export async function planGc(options: GcOptions): Promise<GcPlan> {
  const now = options.now ?? Date.now;
  const prefix = normalizeOutputPath(absolutePrefix(options.prefix));
  const experimentsPath = normalizeOutputPath(options.experimentsPath ?? pathJoin(prefix, 'experiments'));
  const keep = (options.keep ?? []).map((k) => normalizeOutputPath(schemeOf(k) !== null || k.startsWith('/') ? k : pathJoin(prefix, k)));
  const keepNames = new Set(options.keep ?? []);

  const files = (await lsOrEmpty(experimentsPath)).filter((f) => f.type === 'file' && f.url.endsWith('.json'));
  const reachable = new Set<string>();
  const experiments = await mapLimit(files, 16, async (f): Promise<GcExperiment> => {
    const path = normalizeOutputPath(f.url);
    let info: unknown;
    try {
      info = parsePyJson(await filesystemFor(f.url).readText(f.url));
    } catch (e) {
      options.warn?.(`cannot read experiment ${path}: ${(e as Error).message}`);
      return { path, createdMs: f.mtimeMs, state: 'unreadable', outputs: 0 };
    }
    if (!isRecord(info)) return { path, createdMs: f.mtimeMs, state: 'unreadable', outputs: 0 };
    const createdMs = createdMsOf(info) ?? f.mtimeMs;
    const kept = keepNames.has(path) || keepNames.has(path.slice(path.lastIndexOf('/') + 1)) || keep.includes(path);
    const live = kept || options.since == null || createdMs === null || createdMs >= options.since.getTime();
    const refs = referencedPaths(info).map(normalizeOutputPath);
    if (live) for (const r of refs) reachable.add(r);
    return { path, createdMs, state: live ? 'live' : 'superseded', outputs: refs.length };
  });

  // Walk the prefix level by level, stopping at step outputs.
  const outputs: { path: string; entries: FileInfo[] }[] = [];
  let frontier = [prefix];
  let directories = 0;
  for (let depth = 0; depth < MAX_DEPTH && frontier.length > 0; depth++) {
    const listings = await mapLimit(frontier, 16, async (dir) => ({ dir, entries: await lsOrEmpty(dir) }));
    frontier = [];
    for (const { dir, entries } of listings) {
      directories++;
      const names = new Set(entries.map((e) => e.url.slice(e.url.replace(/\/+$/, '').lastIndexOf('/') + 1).replace(/\/+$/, '')));
      if (dir !== prefix && (names.has(INFO_FILE) || names.has(STATUS_FILE))) {
        outputs.push({ path: normalizeOutputPath(dir), entries });
        continue;
      }
      for (const e of entries) {
        const child = normalizeOutputPath(e.url);
        if (e.type !== 'directory' || child === experimentsPath) continue;
        frontier.push(child);
      }
    }
    options.onProgress?.({ phase: 'walk', directories, outputs: outputs.length });
  }

  const isReachable = (path: string): boolean => reachable.has(path) || keep.some((k) => under(path, k));
  const unreferenced = outputs.filter((o) => !isReachable(o.path));
  let sized = 0;
  const candidates = await mapLimit(unreferenced, 8, async ({ path, entries }): Promise<GcCandidate> => {
    const fs = filesystemFor(path);
    const files = await listFilesRecursive(fs, path, { includeTemporary: true });
    const sizeBytes = files.reduce((sum, f) => sum + f.info.size, 0);
    const stamps = entries
      .filter((e) => /\/\.executor_(info|status)$/.test(e.url) && e.mtimeMs !== null)
      .map((e) => e.mtimeMs as number);
    const statusText = files.find((f) => f.rel === STATUS_FILE) ? await fs.readText(fileUnder(path, STATUS_FILE)).catch(() => '') : '';
    const reason = await liveReason(path, options.timings, now);
    options.onProgress?.({ phase: 'size', done: ++sized, total: unreferenced.length });
    return {
      path,
      rel: path.startsWith(`${prefix}/`) ? path.slice(prefix.length + 1) : path,
      status: parseStatusText(statusText),
      sizeBytes,
      ageMs: stamps.length === 0 ? null : Math.max(0, now() - Math.max(...stamps)),
      action: reason === null ? 'delete' : 'keep',
      reason,
    };
  });
  candidates.sort((a, b) => b.sizeBytes - a.sizeBytes || (a.path < b.path ? -1 : 1));
  return { prefix, experimentsPath, experiments, outputs: outputs.length, reachable: outputs.length - unreferenced.length, candidates };
}
