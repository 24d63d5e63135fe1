import { filesystemFor, listFilesRecursive, localPathOf, mapLimit, schemeOf } from '@marin/rigging';
import type { LeaseTimings } from '@marin/rigging';
import { resolve } from 'node:path';
import { absolutePrefix } from '../resolution/make-prefix-absolute.js';
import { pathJoin } from '../dag/path-join.js';
import type { StepStatus } from '../status/status.js';
import { artifactIdOf } from './artifact-records.js';
import { canonicalPath, isUnder, normalizeUrl } from './canonical-path.js';
import { scanPrefix } from './gc-scan.js';
import type { GcExperiment, GcOutsideReference, GcScan } from './gc-scan.js';

export type { GcExperiment, GcOutsideReference } from './gc-scan.js';

/** Options of {@link planGc}. */
export interface GcOptions {
  /**
   * Root of the outputs to collect; a relative local path is made absolute. Canonicalized: symlinks
   * resolved for a local path, `//` `/./` and trailing slashes collapsed for a URL.
   */
  prefix: string;
  /** Where the experiment JSON files are. @default `<prefix>/experiments` */
  experimentsPath?: string | null;
  /**
   * Only experiment JSON files created at or after this instant keep their outputs alive; older
   * ones are superseded (unless one of their steps is RUNNING or leased). @default null: every
   * experiment file counts
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

/** One step output no live experiment references. */
export interface GcCandidate {
  /** Output directory URL or path (canonical). */
  path: string;
  /** The path relative to the prefix. */
  rel: string;
  status: StepStatus | null;
  /** Bytes below it. */
  sizeBytes: number;
  /** Time since its newest executor file was written, when known. */
  ageMs: number | null;
  /** `name@version` when the output is an artifact with an `.artifact.json` record, else `null`. */
  artifact: string | null;
  /** `delete`, or `keep` because the step is in use or is an input of a step in use. */
  action: 'delete' | 'keep';
  /** Why it is kept, e.g. `RUNNING`, `live lease held by host-1-2`, `input of x-123 (RUNNING)`. */
  reason: string | null;
}

/** What {@link planGc} found. */
export interface GcPlan {
  /** Canonical prefix. */
  prefix: string;
  experimentsPath: string;
  experiments: GcExperiment[];
  /** Step outputs found under the prefix. */
  outputs: number;
  /** Of those, referenced by a live experiment or a keep entry. */
  reachable: number;
  /** Unreferenced outputs, largest first. */
  candidates: GcCandidate[];
  /** Paths live experiments reference outside the prefix: reported, never deleted. */
  outside: GcOutsideReference[];
  /** What the plan was made with; deleting scans again with the same rules. */
  since: Date | null;
  keepPaths: string[];
  keepNames: string[];
}

/**
 * A path in one comparable form without touching storage: no `file://`, `//` `/./` `..` resolved for
 * local paths, {@link normalizeUrl} for URLs. {@link planGc} also resolves symlinks.
 */
export function normalizeOutputPath(path: string): string {
  const scheme = schemeOf(path);
  if (scheme !== null && scheme !== 'file') return normalizeUrl(path);
  return resolve(scheme === 'file' ? localPathOf(path) : path);
}

/** The canonical prefix, experiments path and keep entries of an options object. */
export async function resolveGcRoots(options: Pick<GcOptions, 'prefix' | 'experimentsPath' | 'keep'>): Promise<{ prefix: string; experimentsPath: string; keepPaths: string[]; keepNames: string[] }> {
  const prefix = await canonicalPath(absolutePrefix(options.prefix));
  const experimentsPath = await canonicalPath(options.experimentsPath ?? pathJoin(prefix, 'experiments'));
  const keepNames = [...(options.keep ?? [])];
  const keepPaths = await Promise.all(keepNames.map((k) => canonicalPath(schemeOf(k) !== null || k.startsWith('/') ? k : pathJoin(prefix, k))));
  return { prefix, experimentsPath, keepPaths, keepNames };
}

/** The outputs of a scan that nothing live references, with why some of them must stay anyway. */
export function unreferencedOutputs(scan: GcScan, keepPaths: readonly string[]): { path: string; keepReason: string | null }[] {
  return scan.outputs
    .filter((o) => !scan.referenced.has(o.path) && !keepPaths.some((k) => isUnder(o.path, k)))
    .map((o) => ({ path: o.path, keepReason: o.live ?? scan.protectedInputs.get(o.path) ?? null }));
}

/**
 * Finds the step outputs under a prefix that no live experiment references (Marin issues #422,
 * #3721, #5744, #8356), with their sizes and ages. Reads only: deleting is {@link deleteGcCandidates}.
 *
 * Roots are the experiment JSON files under `experimentsPath` (those created at or after `since`,
 * kept ones, and any with a step in use); every `output_path` and dependency they list is reachable.
 * A step output is a directory holding `.executor_info`, `.executor_status` or an artifact's `.artifact.json`; what
 * the records of referenced artifacts name (`dep_paths`, an adopted `source`) is reachable too. Outputs that are
 * RUNNING or hold a live lease, and the inputs of those, are listed as `keep`. Paths are compared
 * canonically (symlinks resolved, URLs normalized); references outside the prefix are reported.
 *
 * @throws {RiggingError} for storage failures; an unreadable experiment file is not thrown but
 * reported (`state: 'unreadable'`), and deleting refuses while there is one.
 */
export async function planGc(options: GcOptions): Promise<GcPlan> {
  const now = options.now ?? Date.now;
  const roots = await resolveGcRoots(options);
  const since = options.since ?? null;
  const scan = await scanPrefix({
    ...roots,
    keepNames: new Set(roots.keepNames),
    since,
    now,
    ...(options.timings ? { timings: options.timings } : {}),
    ...(options.warn ? { warn: options.warn } : {}),
    onWalk: (directories, outputs) => options.onProgress?.({ phase: 'walk', directories, outputs }),
  });
  const byPath = new Map(scan.outputs.map((o) => [o.path, o]));
  const unreferenced = unreferencedOutputs(scan, roots.keepPaths);
  let sized = 0;
  const candidates = await mapLimit(unreferenced, 8, async ({ path, keepReason }): Promise<GcCandidate> => {
    const o = byPath.get(path)!;
    const files = await listFilesRecursive(filesystemFor(path), path, { includeTemporary: true });
    const stamps = o.entries.filter((e) => /\/\.executor_(info|status)$/.test(e.url) && e.mtimeMs !== null).map((e) => e.mtimeMs as number);
    options.onProgress?.({ phase: 'size', done: ++sized, total: unreferenced.length });
    return {
      path,
      rel: path.startsWith(`${roots.prefix}/`) ? path.slice(roots.prefix.length + 1) : path,
      status: o.status,
      artifact: await artifactIdOf(o),
      sizeBytes: files.reduce((sum, f) => sum + f.info.size, 0),
      ageMs: stamps.length === 0 ? null : Math.max(0, now() - Math.max(...stamps)),
      action: keepReason === null ? 'delete' : 'keep',
      reason: keepReason,
    };
  });
  candidates.sort((a, b) => b.sizeBytes - a.sizeBytes || (a.path < b.path ? -1 : 1));
  const seen = new Set<string>();
  const outside = scan.outside.filter((r) => !seen.has(`${r.experiment}\n${r.path}`) && seen.add(`${r.experiment}\n${r.path}`));
  return {
    prefix: roots.prefix,
    experimentsPath: roots.experimentsPath,
    experiments: scan.experiments,
    outputs: scan.outputs.length,
    reachable: scan.outputs.length - unreferenced.length,
    candidates,
    outside,
    since,
    keepPaths: roots.keepPaths,
    keepNames: roots.keepNames,
  };
}
