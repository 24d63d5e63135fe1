import { setTimeout as sleep } from 'node:timers/promises';
import { createLease, defaultWorkerId, filesystemFor, RiggingError } from '@marin/rigging';
import type { LeaseTimings } from '@marin/rigging';
import type { ExecutorLogger } from '../logger.js';
import { fileUnder, LEASE_FILE, readStatus } from './status-store.js';
import { STATUS_SUCCESS } from './status.js';

/**
 * Name of the intent file `marin gc --delete` writes into a step output it means to delete. Like the
 * other `.executor_*` names it is bookkeeping: no step or dataset may write it.
 */
export const GC_TOMBSTONE_FILE = '.executor_gc_tombstone';

/** What a tombstone says: which collection wrote it, when, and the status it saw. */
export interface GcTombstone {
  /** The collection's id (one per `marin gc --delete`). */
  gc: string;
  /** Unix seconds, gc's clock. */
  written: number;
  /** The output's status when the tombstone was written (`null`: none). */
  status: string | null;
}

/** Reads an output's tombstone; `null` when there is none (or it is not one of ours). */
export async function readGcTombstone(outputPath: string): Promise<GcTombstone | null> {
  const url = fileUnder(outputPath, GC_TOMBSTONE_FILE);
  let text: string;
  try {
    text = await filesystemFor(url).readText(url);
  } catch (e) {
    if (RiggingError.hasCode(e, 'RIGGING_NOT_FOUND')) return null;
    throw e;
  }
  try {
    const v = JSON.parse(text) as Partial<GcTombstone>;
    if (typeof v.gc !== 'string') return null;
    return { gc: v.gc, written: typeof v.written === 'number' ? v.written : 0, status: typeof v.status === 'string' ? v.status : null };
  } catch {
    // A torn or foreign file still marks the output: it reads as an anonymous tombstone.
    return { gc: '', written: 0, status: null };
  }
}

/** Writes (replaces) an output's tombstone. */
export async function writeGcTombstone(outputPath: string, tombstone: GcTombstone): Promise<void> {
  const url = fileUnder(outputPath, GC_TOMBSTONE_FILE);
  await filesystemFor(url).writeText(url, JSON.stringify(tombstone));
}

/** Removes an output's tombstone, if any. The caller holds the step's lease. */
export async function removeGcTombstone(outputPath: string): Promise<void> {
  const url = fileUnder(outputPath, GC_TOMBSTONE_FILE);
  await filesystemFor(url).rm(url, { missingOk: true });
}

/** Options of {@link reclaimFromGc}. */
export interface ReclaimOptions {
  outputPath: string;
  /** `<name>-<hash6>`, for log lines. */
  label: string;
  timings: LeaseTimings;
  logger: ExecutorLogger;
  /** Clock in milliseconds. @default Date.now */
  now?: () => number;
}

/**
 * Called before an executor reuses a SUCCESS output. Without a tombstone (the common case: one read)
 * the output is reused as is. With one, a running `marin gc --delete` means to delete it: take the
 * step's lease as any executor would (waiting while gc or another executor holds it), remove the
 * tombstone, read the status again and release. gc re-checks its tombstone under the same lease
 * before deleting, so it backs off; or it got the lease first and the output is gone.
 *
 * Resolves `reuse` when the output is still SUCCESS (and no longer marked), `gone` when gc deleted
 * it meanwhile: the caller runs the step instead.
 */
export async function reclaimFromGc(opts: ReclaimOptions): Promise<'reuse' | 'gone'> {
  const { outputPath, label, timings, logger } = opts;
  if ((await readGcTombstone(outputPath)) === null) return 'reuse';
  const now = opts.now ?? Date.now;
  logger.info(`Step ${label} is marked for deletion by marin gc; reclaiming it under its lease`);
  const lease = createLease(fileUnder(outputPath, LEASE_FILE), { workerId: defaultWorkerId(), timings, clock: now, warn: (m) => logger.warn(m) });
  while (!(await lease.tryAcquire())) await sleep(timings.pollS * 1000);
  try {
    await removeGcTombstone(outputPath);
    return (await readStatus(outputPath)) === STATUS_SUCCESS ? 'reuse' : 'gone';
  } finally {
    await lease.release();
  }
}
