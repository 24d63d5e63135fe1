import { rmdir } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLease, defaultWorkerId, filesystemFor, leaseTimings, listFilesRecursive, localPathOf, mapLimit, schemeOf } from '@marin/rigging';
import type { LeaseTimings } from '@marin/rigging';
import { ExecutorError } from '../errors.js';
import { silentLogger } from '../logger.js';
import type { ExecutorLogger } from '../logger.js';
import { GC_TOMBSTONE_FILE, readGcTombstone, removeGcTombstone, writeGcTombstone } from '../status/gc-tombstone.js';
import { startHeartbeat } from '../status/heartbeat.js';
import { RECORD_FILE } from '../artifact/record.js';
import { fileUnder, LEASE_FILE, readStatus, STATUS_FILE } from '../status/status-store.js';
import { scanPrefix } from './gc-scan.js';
import { unreferencedOutputs } from './gc-plan.js';
import type { GcCandidate, GcPlan } from './gc-plan.js';

/** Options of {@link deleteGcCandidates}. */
export interface GcDeleteOptions {
  /** Lease timings: staleness, heartbeat while deleting, polls. @default rigging's leaseTimings() */
  timings?: LeaseTimings;
  /**
   * How long to wait between marking the candidates and checking them again; must exceed the lease
   * staleness (`timings.timeoutS`). @default (timeoutS + heartbeatS) seconds
   */
  waitMs?: number;
  /** Wall clock in milliseconds. @default Date.now */
  now?: () => number;
  /** This collection's id, written into its tombstones and leases. @default `marin-gc-<host>-<pid>-<n>` */
  gcId?: string;
  /** Called when a phase starts (`wait` gives its length). @default none */
  onPhase?: (phase: 'mark' | 'wait' | 'recheck' | 'delete', waitMs?: number) => void;
  /** Called after each candidate is deleted or skipped. @default none */
  onProgress?: (done: number, total: number) => void;
  /** Lease refresh warnings while deleting. @default silent */
  logger?: ExecutorLogger;
}

/** What {@link deleteGcCandidates} did. */
export interface GcDeleteResult {
  deleted: GcCandidate[];
  /** Candidates that were in use (or became so) when it came to deleting them, with the reason. */
  skipped: { candidate: GcCandidate; reason: string }[];
  freedBytes: number;
}

/** Removes our tombstone if it is still ours (an executor may have taken it away, another gc replaced it). */
async function dropOwnTombstone(path: string, gcId: string): Promise<void> {
  const t = await readGcTombstone(path);
  if (t !== null && t.gc === gcId) await removeGcTombstone(path);
}

/** Removes the now empty directories of a deleted local output, deepest first; a non-empty one stays. */
async function removeEmptyLocalDirs(path: string, files: readonly { rel: string }[]): Promise<void> {
  if (schemeOf(path) !== null && schemeOf(path) !== 'file') return;
  const root = localPathOf(path);
  const dirs = new Set<string>();
  for (const f of files) {
    const parts = f.rel.split('/').slice(0, -1);
    for (let i = parts.length; i > 0; i--) dirs.add(parts.slice(0, i).join('/'));
  }
  const ordered = [...dirs].sort((a, b) => b.split('/').length - a.split('/').length);
  for (const d of [...ordered.map((d) => `${root}/${d}`), root]) await rmdir(d).catch(() => undefined);
}

interface DeleteContext {
  gcId: string;
  timings: LeaseTimings;
  now: () => number;
  logger: ExecutorLogger;
}

/**
 * Deletes one marked output under its step's lease, as an executor would hold it. Returns `null`
 * when deleted, else why it was left alone.
 */
async function deleteUnderLease(c: GcCandidate, ctx: DeleteContext): Promise<string | null> {
  const lease = createLease(fileUnder(c.path, LEASE_FILE), { workerId: `${ctx.gcId}-${defaultWorkerId()}`, timings: ctx.timings, clock: ctx.now, warn: () => {} });
  if (!(await lease.tryAcquire())) return `live lease held by ${(await lease.activeHolderId()) ?? 'another worker'}`;
  let lost = false;
  const heartbeat = startHeartbeat({
    lease,
    heartbeatMs: ctx.timings.heartbeatS * 1000,
    timeoutMs: ctx.timings.timeoutS * 1000,
    logger: ctx.logger,
    label: c.rel,
    now: ctx.now,
    onLost: () => void (lost = true),
  });
  try {
    const tombstone = await readGcTombstone(c.path);
    if (tombstone === null || tombstone.gc !== ctx.gcId) return 'reclaimed by an executor';
    const status = await readStatus(c.path);
    if (status !== c.status) return `status changed to ${status ?? 'none'} since the plan`;
    const fs = filesystemFor(c.path);
    // The status goes first: an interrupted deletion leaves no SUCCESS over partial data.
    await fs.rm(fileUnder(c.path, STATUS_FILE), { missingOk: true });
    // Then an artifact's record, so no reader loads a record over data being deleted.
    if (!lost) await fs.rm(fileUnder(c.path, RECORD_FILE), { missingOk: true });
    const files = (await listFilesRecursive(fs, c.path, { includeTemporary: true })).filter(
      (f) => !f.rel.startsWith(LEASE_FILE) && f.rel !== GC_TOMBSTONE_FILE,
    );
    await mapLimit(files, 16, async (f) => {
      if (!lost) await fs.rm(f.info.url, { missingOk: true });
    });
    if (lost) return 'lease lost while deleting (its status is gone, so the step runs again when next needed)';
    await removeGcTombstone(c.path);
    await heartbeat.stop();
    await lease.release();
    await removeEmptyLocalDirs(c.path, files);
    return null;
  } finally {
    await heartbeat.stop();
    if (!lost) await lease.release().catch(() => undefined);
  }
}

/**
 * Deletes the `delete` candidates of a plan, safely against executors running meanwhile:
 *
 * 1. writes a tombstone (`.executor_gc_tombstone`) into every candidate;
 * 2. waits longer than the lease staleness (`waitMs`);
 * 3. scans again: experiment files written or rewritten since the plan count as live, and outputs
 *    that became referenced, RUNNING, leased or an input of a running step are left alone;
 * 4. deletes each remaining candidate under its step's lease, only if its tombstone is still ours
 *    (an executor reusing the output removes it under that lease) and its status is unchanged,
 *    status file first.
 *
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT when an experiment file could not be read (its
 * outputs would look unreferenced), or `waitMs` does not exceed the lease staleness; nothing is
 * deleted then.
 */
export async function deleteGcCandidates(plan: GcPlan, options: GcDeleteOptions = {}): Promise<GcDeleteResult> {
  const unreadable = plan.experiments.filter((e) => e.state === 'unreadable').map((e) => e.path);
  if (unreadable.length > 0) {
    throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `refusing to delete: ${unreadable.length} experiment file(s) could not be read, so what they keep alive is unknown`, {
      details: { unreadable },
    });
  }
  const timings = options.timings ?? leaseTimings();
  const waitMs = options.waitMs ?? (timings.timeoutS + timings.heartbeatS) * 1000;
  if (!(waitMs > timings.timeoutS * 1000)) {
    throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `the wait before deleting (${waitMs / 1000}s) must exceed the lease staleness MARIN_LEASE_TIMEOUT_S (${timings.timeoutS}s)`, {
      details: { waitMs, timeoutS: timings.timeoutS },
    });
  }
  const now = options.now ?? Date.now;
  const ctx: DeleteContext = { gcId: options.gcId ?? `marin-gc-${defaultWorkerId()}`, timings, now, logger: options.logger ?? silentLogger };
  const todo = plan.candidates.filter((c) => c.action === 'delete');
  const result: GcDeleteResult = { deleted: [], skipped: [], freedBytes: 0 };
  if (todo.length === 0) return result;

  options.onPhase?.('mark');
  await mapLimit(todo, 16, (c) => writeGcTombstone(c.path, { gc: ctx.gcId, written: now() / 1000, status: c.status }));
  options.onPhase?.('wait', waitMs);
  await sleep(waitMs);

  options.onPhase?.('recheck');
  const scan = await scanPrefix({
    prefix: plan.prefix,
    experimentsPath: plan.experimentsPath,
    since: plan.since,
    keepPaths: plan.keepPaths,
    keepNames: new Set(plan.keepNames),
    known: new Map(plan.experiments.map((e) => [e.path, e.stamp])),
    timings,
    now,
  });
  const unreadableNow = scan.experiments.filter((e) => e.state === 'unreadable').map((e) => e.path);
  const still = new Map(unreferencedOutputs(scan, plan.keepPaths).map((o) => [o.path, o.keepReason]));
  const found = new Map(scan.outputs.map((o) => [o.path, o]));

  options.onPhase?.('delete');
  let done = 0;
  await mapLimit(todo, 8, async (c) => {
    let reason: string | null;
    if (unreadableNow.length > 0) reason = `experiment file(s) unreadable at the re-check: ${unreadableNow.join(', ')}`;
    else if (!found.has(c.path)) reason = 'no longer a step output';
    else reason = found.get(c.path)!.live ?? scan.protectedInputs.get(c.path) ?? (still.has(c.path) ? await deleteUnderLease(c, ctx) : 'referenced by a live experiment since the plan');
    if (reason === null) {
      result.deleted.push(c);
      result.freedBytes += c.sizeBytes;
    } else {
      result.skipped.push({ candidate: c, reason });
      await dropOwnTombstone(c.path, ctx.gcId).catch(() => undefined);
    }
    options.onProgress?.(++done, todo.length);
  });
  return result;
}
