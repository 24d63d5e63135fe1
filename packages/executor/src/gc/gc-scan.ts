import { createLease, filesystemFor, isRecord, mapLimit, parsePyJson, RiggingError } from '@marin/rigging';
import type { FileInfo, LeaseTimings } from '@marin/rigging';
import { fileUnder, INFO_FILE, LEASE_FILE, STATUS_FILE } from '../status/status-store.js';
import { parseStatusText, STATUS_RUNNING } from '../status/status.js';
import type { StepStatus } from '../status/status.js';
import { RECORD_FILE } from '../artifact/record.js';
import { addRecordedReferences } from './artifact-records.js';
import { canonicalPath, isUnder } from './canonical-path.js';

/** One experiment JSON file and whether it keeps its outputs alive. */
export interface GcExperiment {
  path: string;
  /** `created_date` of the file (local time), or its mtime when absent. */
  createdMs: number | null;
  /** `live` keeps its outputs; `superseded` is older than `since`; `unreadable` could not be parsed. */
  state: 'live' | 'superseded' | 'unreadable';
  /**
   * Why a live file is live: `since` (created at or after it, or no `--since`), `keep`, `running`
   * (one of its steps is RUNNING or leased) or `new` (written after the plan). `null` otherwise.
   */
  liveBecause: 'since' | 'keep' | 'running' | 'new' | null;
  /** Output paths it references. */
  outputs: number;
  /** The file's version as listed (generation or mtime, and size): a rewrite changes it. */
  stamp: string;
}

/** A path a live experiment references outside the collected prefix: reported, never deleted. */
export interface GcOutsideReference {
  experiment: string;
  path: string;
}

/** One step output found by the walk, with its status and whether it is in use. */
export interface ScannedOutput {
  /** Canonical path. */
  path: string;
  entries: FileInfo[];
  statusText: string;
  status: StepStatus | null;
  /** Why the step itself is in use (`RUNNING`, `live lease held by …`), else `null`. */
  live: string | null;
}

/** What one pass over the experiments and the prefix found. */
export interface GcScan {
  experiments: GcExperiment[];
  outputs: ScannedOutput[];
  /** Canonical paths referenced by a live experiment. */
  referenced: Set<string>;
  /** Inputs of RUNNING or leased steps (from their `.executor_info`), with the reason. */
  protectedInputs: Map<string, string>;
  outside: GcOutsideReference[];
}

/** Options of {@link scanPrefix}; paths are canonical. */
export interface ScanOptions {
  prefix: string;
  experimentsPath: string;
  since: Date | null;
  /** Canonical kept paths (everything at or below each is reachable). */
  keepPaths: readonly string[];
  /** Kept experiment files, by path or file name. */
  keepNames: ReadonlySet<string>;
  /** Experiment files of an earlier scan (path → stamp): any other file, or a changed one, is `new`. */
  known?: ReadonlyMap<string, string>;
  timings?: LeaseTimings;
  now: () => number;
  onWalk?: (directories: number, outputs: number) => void;
  warn?: (message: string) => void;
}

const MAX_DEPTH = 12;
const IO = 16;

/** `created_date` is local time without offset (`2026-11-21T20:01:02.123000`); JS parses that as local. */
function createdMsOf(info: Record<string, unknown>): number | null {
  const d = info['created_date'];
  if (typeof d !== 'string') return null;
  const ms = Date.parse(d.replace(/(\.\d{3})\d+$/, '$1'));
  return Number.isNaN(ms) ? null : ms;
}

function stepsOf(info: Record<string, unknown>): { outputs: string[]; refs: string[] } {
  const steps = Array.isArray(info['steps']) ? info['steps'] : [];
  const outputs: string[] = [];
  const refs: string[] = [];
  for (const s of steps) {
    if (!isRecord(s)) continue;
    if (typeof s['output_path'] === 'string') {
      outputs.push(s['output_path']);
      refs.push(s['output_path']);
    }
    if (Array.isArray(s['dependencies'])) for (const d of s['dependencies']) if (typeof d === 'string') refs.push(d);
  }
  return { outputs, refs };
}

async function lsOrEmpty(url: string): Promise<FileInfo[]> {
  try {
    return await filesystemFor(url).ls(url);
  } catch (e) {
    if (RiggingError.hasCode(e, 'RIGGING_NOT_FOUND')) return [];
    throw e;
  }
}

async function readTextOrEmpty(url: string): Promise<string> {
  try {
    return await filesystemFor(url).readText(url);
  } catch (e) {
    if (RiggingError.hasCode(e, 'RIGGING_NOT_FOUND')) return '';
    throw e;
  }
}

function nameOf(url: string): string {
  const u = url.replace(/\/+$/, '');
  return u.slice(u.lastIndexOf('/') + 1);
}

/**
 * Why a step output is in use right now: its status is RUNNING, or its lease is fresh. Reads the
 * lease only when the status is not RUNNING and `hasLease` (the listing showed a lease file).
 */
export async function liveReasonOf(path: string, status: StepStatus | null, hasLease: boolean, timings: LeaseTimings | undefined, now: () => number): Promise<string | null> {
  if (status === STATUS_RUNNING) return 'RUNNING';
  if (!hasLease) return null;
  const lease = await createLease(fileUnder(path, LEASE_FILE), { workerId: 'marin-gc-reader', clock: now, warn: () => {}, ...(timings ? { timings } : {}) }).read();
  return lease !== null && lease.fresh ? `live lease held by ${lease.lease.workerId}` : null;
}

interface ReadExperiment {
  info: GcExperiment;
  outputs: string[];
  refs: string[];
}

async function readExperiments(opts: ScanOptions): Promise<ReadExperiment[]> {
  const files = (await lsOrEmpty(opts.experimentsPath)).filter((f) => f.type === 'file' && f.url.endsWith('.json'));
  return mapLimit(files, IO, async (f): Promise<ReadExperiment> => {
    const path = await canonicalPath(f.url);
    const stamp = `${f.version ?? f.mtimeMs ?? ''}:${f.size}`;
    const unreadable = (): ReadExperiment => ({ info: { path, createdMs: f.mtimeMs, state: 'unreadable', liveBecause: null, outputs: 0, stamp }, outputs: [], refs: [] });
    let info: unknown;
    try {
      info = parsePyJson(await filesystemFor(f.url).readText(f.url));
    } catch (e) {
      opts.warn?.(`cannot read experiment ${path}: ${(e as Error).message}`);
      return unreadable();
    }
    if (!isRecord(info)) return unreadable();
    const createdMs = createdMsOf(info) ?? f.mtimeMs;
    const steps = stepsOf(info);
    const outputs = await Promise.all(steps.outputs.map(canonicalPath));
    const refs = await Promise.all(steps.refs.map(canonicalPath));
    const kept = opts.keepNames.has(path) || opts.keepNames.has(nameOf(path)) || opts.keepPaths.includes(path);
    let liveBecause: GcExperiment['liveBecause'] = null;
    if (kept) liveBecause = 'keep';
    else if (opts.since === null || createdMs === null || createdMs >= opts.since.getTime()) liveBecause = 'since';
    else if (opts.known !== undefined && opts.known.get(path) !== stamp) liveBecause = 'new';
    return { info: { path, createdMs, state: liveBecause === null ? 'superseded' : 'live', liveBecause, outputs: refs.length, stamp }, outputs, refs };
  });
}

async function walkOutputs(opts: ScanOptions): Promise<{ path: string; entries: FileInfo[] }[]> {
  const found = new Map<string, FileInfo[]>();
  let frontier = [opts.prefix];
  let directories = 0;
  for (let depth = 0; depth < MAX_DEPTH && frontier.length > 0; depth++) {
    const listings = await mapLimit(frontier, IO, async (dir) => ({ dir, entries: await lsOrEmpty(dir) }));
    frontier = [];
    for (const { dir, entries } of listings) {
      directories++;
      const names = new Set(entries.map((e) => nameOf(e.url)));
      if (dir !== opts.prefix && (names.has(INFO_FILE) || names.has(STATUS_FILE) || names.has(RECORD_FILE))) {
        found.set(dir, entries);
        continue;
      }
      for (const e of entries) if (e.type === 'directory') frontier.push(e.url.replace(/\/+$/, ''));
    }
    // A symlinked directory is resolved: an output reached twice is one output, and a link leading
    // out of the prefix (or into the experiments directory) is not followed.
    const next = await mapLimit(frontier, IO, async (d) => canonicalPath(d));
    frontier = [...new Set(next.filter((d) => isUnder(d, opts.prefix) && d !== opts.experimentsPath && !found.has(d)))];
    opts.onWalk?.(directories, found.size);
  }
  return [...found].map(([path, entries]) => ({ path, entries }));
}

/**
 * One pass over the experiment files and the step outputs under the prefix: what live experiments
 * reference, which outputs are in use (RUNNING or leased), and the inputs of those (from their
 * `.executor_info`). An experiment with a step in use is live whatever `since` says.
 */
export async function scanPrefix(opts: ScanOptions): Promise<GcScan> {
  const read = await readExperiments(opts);
  const walked = await walkOutputs(opts);
  const outputs = await mapLimit(walked, IO, async ({ path, entries }): Promise<ScannedOutput> => {
    const names = new Set(entries.map((e) => nameOf(e.url)));
    const statusText = names.has(STATUS_FILE) ? await readTextOrEmpty(fileUnder(path, STATUS_FILE)) : '';
    const status = parseStatusText(statusText);
    return { path, entries, statusText, status, live: await liveReasonOf(path, status, names.has(LEASE_FILE), opts.timings, opts.now) };
  });

  const live = outputs.filter((o) => o.live !== null);
  const protectedInputs = new Map<string, string>();
  await mapLimit(live, IO, async (o) => {
    let info: unknown;
    try {
      info = parsePyJson(await readTextOrEmpty(fileUnder(o.path, INFO_FILE)));
    } catch {
      return; // no info yet (or torn): its experiment file names its inputs
    }
    const deps = isRecord(info) && Array.isArray(info['dependencies']) ? info['dependencies'].filter((d): d is string => typeof d === 'string') : [];
    const rel = o.path.startsWith(`${opts.prefix}/`) ? o.path.slice(opts.prefix.length + 1) : o.path;
    for (const d of await Promise.all(deps.map(canonicalPath))) protectedInputs.set(d, `input of ${rel} (${o.live})`);
  });

  const livePaths = new Set(live.map((o) => o.path));
  const referenced = new Set<string>();
  const outside: GcOutsideReference[] = [];
  for (const e of read) {
    if (e.info.state === 'superseded' && e.outputs.some((p) => livePaths.has(p))) {
      e.info.state = 'live';
      e.info.liveBecause = 'running';
    }
    if (e.info.state !== 'live') continue;
    for (const r of e.refs) {
      referenced.add(r);
      if (!isUnder(r, opts.prefix)) outside.push({ experiment: e.info.path, path: r });
    }
  }
  // Artifacts: what the records of referenced artifacts were built from (dep_paths) or alias (source) is reachable.
  await addRecordedReferences(outputs, referenced, opts.prefix, opts.warn);
  return { experiments: read.map((e) => e.info), outputs, referenced, protectedInputs, outside };
}
