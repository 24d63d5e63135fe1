import { createLease, filesystemFor, leaseTimings, marinPrefix, parsePyJson, RiggingError } from '@marin/rigging';
import type { LeaseTimings } from '@marin/rigging';
import { silentLogger } from '../logger.js';
import type { ExecutorLogger } from '../logger.js';
import { diffVersions, formatChange } from '../plan/version-diff.js';
import { fileUnder, LEASE_FILE } from '../status/status-store.js';
import { isFailedStatus, STATUS_RUNNING } from '../status/status.js';
import type { ArtifactStep } from './artifact-step.js';
import { planArtifacts } from './plan.js';
import type { ArtifactPlanEntry } from './plan.js';
import { readRecord } from './record.js';
import { isMutableVersion } from './version.js';

/**
 * What a run would do with an artifact, as explain says it: the plan's actions, plus `wait` (RUNNING under a fresh
 * lease held elsewhere), `take over` (RUNNING under a stale lease, or none) and `refuse` (a recorded build whose
 * fingerprint differs from an `expectedFingerprint` pin: the run aborts).
 */
export type ArtifactExplainAction = 'run' | 'skip' | 'prune' | 'adopt' | 'rebuild' | 'wait' | 'take over' | 'refuse';

/** One artifact of {@link explainArtifacts}: the action, why, and what changed in its recipe. */
export interface ArtifactExplanation {
  /** `name@version`. */
  id: string;
  outputPath: string;
  fingerprint: string;
  action: ArtifactExplainAction;
  /** Human-readable reason: `built, recipe unchanged`, `not built (no status)`; `after …` names deps that run first. */
  reason: string;
  /** The recorded fingerprint of a built artifact whose recipe changed since (drift), else `null`. */
  driftFrom: string | null;
  /**
   * Field-level changes of the fingerprint payload (explain's diff lines, `~ lr: 0.1 → 0.2`): for a drifted
   * artifact against its own record; for one that would run, against the nearest other version of the same name
   * (`baseline`); `null` when there is nothing to compare against.
   */
  diff: string[] | null;
  /** The output path of the other version `diff` compares against (for `run`/`take over`/`rebuild`), else `null`. */
  baseline: string | null;
}

/** Options of {@link explainArtifacts}. */
export interface ArtifactExplainOptions {
  prefix?: string;
  /** Lease staleness used to tell `wait` from `take over`. @default leaseTimings() */
  timings?: LeaseTimings;
  logger?: ExecutorLogger;
  /** Clock in milliseconds. @default Date.now */
  now?: () => number;
}

/** At most this many sibling versions are read when looking for a baseline. */
const MAX_BASELINE_CANDIDATES = 100;

function parsePayload(text: string | null | undefined): unknown {
  if (text === null || text === undefined) return undefined;
  try {
    return parsePyJson(text);
  } catch {
    return undefined;
  }
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * The nearest other version of an artifact: the sibling `{name}/{other}` whose record's fingerprint payload differs
 * from `payload` in the fewest fields (ties: the later version string, then the path). `null` when no sibling has a
 * record with a payload.
 */
export async function nearestOtherVersion(outputPath: string, payload: string): Promise<{ path: string; changes: string[] } | null> {
  const own = trimSlash(outputPath);
  const parent = own.slice(0, own.lastIndexOf('/'));
  if (parent === '') return null;
  const after = parsePayload(payload);
  if (after === undefined) return null;
  let entries;
  try {
    entries = await filesystemFor(parent).ls(parent);
  } catch (e) {
    if (RiggingError.is(e)) return null;
    throw e;
  }
  const siblings = entries
    .filter((e) => e.type === 'directory')
    .map((e) => trimSlash(e.url))
    .filter((u) => u !== own)
    .sort((a, b) => (a < b ? 1 : a > b ? -1 : 0))
    .slice(0, MAX_BASELINE_CANDIDATES);
  let best: { path: string; changes: string[] } | null = null;
  for (const dir of siblings) {
    let before: unknown;
    try {
      before = parsePayload((await readRecord(dir))?.fingerprint_payload);
    } catch {
      continue; // an unreadable record is no baseline
    }
    if (before === undefined) continue;
    const changes = diffVersions(before, after).map(formatChange);
    if (best === null || changes.length < best.changes.length) best = { path: dir, changes };
  }
  return best;
}

async function leaseState(outputPath: string, timings: LeaseTimings, now: () => number, logger: ExecutorLogger): Promise<{ fresh: boolean; reason: string }> {
  const lease = createLease(fileUnder(outputPath, LEASE_FILE), { workerId: 'explain', timings, clock: now, warn: (m) => logger.warn(m) });
  const current = await lease.read();
  const ago = current === null ? 'unknown' : `${Math.max(0, Math.round(now() / 1000 - current.lease.timestamp))}s ago`;
  if (current !== null && current.fresh) return { fresh: true, reason: `running elsewhere (holder ${current.lease.workerId}, heartbeat ${ago})` };
  return { fresh: false, reason: current === null ? 'RUNNING but no lease' : `RUNNING but lease stale (last heartbeat ${ago})` };
}

/**
 * Explains a run of `handles` without running or writing anything (the artifact counterpart of
 * `Executor.explain`): for each artifact, deps first, the action a run would take and why — built and unchanged,
 * built but drifted (the changed fingerprint fields, from the recorded payload), pinned and drifted (refused), not
 * built, failed before, running elsewhere (wait) or abandoned (take over), adopted, mutable (rebuilt every run), or
 * pruned below a built artifact — and for an artifact that would be built, the diff against the nearest other
 * version of the same name.
 */
export async function explainArtifacts(handles: readonly ArtifactStep[], options: ArtifactExplainOptions = {}): Promise<ArtifactExplanation[]> {
  const prefix = options.prefix ?? (await marinPrefix());
  const logger = options.logger ?? silentLogger;
  const timings = options.timings ?? leaseTimings();
  const now = options.now ?? Date.now;
  const plan = await planArtifacts(handles, { prefix, logger });
  const out: ArtifactExplanation[] = [];
  const acting = new Set<string>();
  for (const e of plan) {
    const x = await explainOne(e, timings, now, logger);
    const first = e.deps.filter((d) => acting.has(d));
    if (first.length > 0 && x.action !== 'skip' && x.action !== 'prune') x.reason += `; after ${first.join(', ')}`;
    if (x.action !== 'skip' && x.action !== 'prune') acting.add(e.id);
    out.push(x);
  }
  return out;
}

async function explainOne(e: ArtifactPlanEntry, timings: LeaseTimings, now: () => number, logger: ExecutorLogger): Promise<ArtifactExplanation> {
  const pin = e.expectedFingerprint;
  const base = { id: e.id, outputPath: e.outputPath, fingerprint: e.fingerprint, driftFrom: e.driftFrom, diff: null, baseline: null };
  const driftDiff = e.changes.map(formatChange);
  const drift = e.driftFrom === null ? '' : `; recipe drift: recorded fingerprint ${e.driftFrom}, now ${e.fingerprint}${e.changes.length > 0 ? ` (changed ${e.changes.map((c) => c.path).join(', ')})` : ''}`;
  switch (e.action) {
    case 'prune':
      return { ...base, action: 'prune', reason: `not needed: everything it feeds is already built${e.status === null ? '' : ` (status ${e.status})`}` };
    case 'skip':
      if (e.driftFrom !== null && pin !== null) {
        return { ...base, action: 'refuse', reason: `built, but pinned to expectedFingerprint ${pin}${drift}; the run refuses it — update the pin and bump the version`, diff: driftDiff };
      }
      if (e.driftFrom !== null) {
        return { ...base, action: 'skip', reason: `built; served from cache despite the change${drift}; bump the version to build the new recipe`, diff: driftDiff };
      }
      return { ...base, action: 'skip', reason: 'built, recipe unchanged (fingerprint matches the record)' };
    case 'adopt':
      return { ...base, action: 'adopt', reason: `not yet registered: adopts existing data (status ${e.status ?? 'none'})` };
    default:
      break;
  }
  let action: ArtifactExplainAction = e.action;
  let reason: string;
  if (e.status === STATUS_RUNNING) {
    const lease = await leaseState(e.outputPath, timings, now, logger);
    action = lease.fresh ? 'wait' : 'take over';
    reason = lease.reason;
  } else if (e.action === 'rebuild') {
    reason = `mutable version ${e.id.slice(e.id.lastIndexOf('@') + 1)}: rebuilt every run${e.status === null ? '' : ` (status ${e.status})`}`;
  } else if (e.status === null) {
    reason = 'not built (no status)';
  } else if (isFailedStatus(e.status)) {
    reason = `previous attempt ${e.status}; rerun`;
  } else {
    reason = `status ${e.status} recorded; run`;
  }
  if (action === 'wait') return { ...base, action, reason };
  const other = await nearestOtherVersion(e.outputPath, e.payload);
  if (other === null) {
    reason += `; no other version of ${e.id.slice(0, e.id.lastIndexOf('@'))} recorded`;
    return { ...base, action, reason };
  }
  const sameRecipe = other.changes.length === 0;
  reason += isMutableVersion(e.id.slice(e.id.lastIndexOf('@') + 1)) || !sameRecipe ? '' : `; same recipe as ${other.path.slice(other.path.lastIndexOf('/') + 1)}`;
  return { ...base, action, reason, diff: other.changes, baseline: other.path };
}

/** Renders an explanation for printing: one line per artifact, diff lines indented below it. */
export function formatArtifactExplanation(entries: readonly ArtifactExplanation[]): string[] {
  const lines: string[] = [];
  for (const x of entries) {
    lines.push(`  ${x.action} ${x.id} (${x.fingerprint}): ${x.reason}`);
    if (x.diff === null) continue;
    const against = x.baseline === null ? 'its record' : x.baseline.slice(x.baseline.lastIndexOf('/') + 1);
    lines.push(`    diff against ${against}${x.diff.length === 0 ? ': no recipe differences' : ':'}`);
    for (const d of x.diff) lines.push(`      ${d}`);
  }
  return lines;
}
