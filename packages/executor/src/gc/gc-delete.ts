import { filesystemFor } from '@marin/rigging';
import type { LeaseTimings } from '@marin/rigging';
import { ExecutorError } from '../errors.js';
import { fileUnder, STATUS_FILE } from '../status/status-store.js';
import { liveReason } from './gc-plan.js';
import type { GcCandidate, GcPlan } from './gc-plan.js';

/** Options of {@link deleteGcCandidates}. */
export interface GcDeleteOptions {
  /** Lease timings for telling a live lease from a stale one. @default rigging's leaseTimings() */
  timings?: LeaseTimings;
  /** Wall clock in milliseconds. @default Date.now */
  now?: () => number;
  /** Called after each candidate is deleted or skipped. @default none */
  onProgress?: (done: number, total: number) => void;
}

/** What {@link deleteGcCandidates} did. */
export interface GcDeleteResult {
  deleted: GcCandidate[];
  /** Candidates that were live when it came to deleting them, with the reason. */
  skipped: { candidate: GcCandidate; reason: string }[];
  freedBytes: number;
}

/**
 * Deletes the `delete` candidates of a plan. Each output is checked again just before it goes (a
 * RUNNING status or a live lease keeps it), and its `.executor_status` is removed first, so no
 * executor ever reuses a half-deleted output as SUCCESS.
 *
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT when an experiment file could not be read (its
 * outputs would look unreferenced); nothing is deleted then.
 */
export async function deleteGcCandidates(plan: GcPlan, options: GcDeleteOptions = {}): Promise<GcDeleteResult> {
  const unreadable = plan.experiments.filter((e) => e.state === 'unreadable').map((e) => e.path);
  if (unreadable.length > 0) {
    throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `refusing to delete: ${unreadable.length} experiment file(s) could not be read, so what they keep alive is unknown`, {
      details: { unreadable },
    });
  }
  const now = options.now ?? Date.now;
  const todo = plan.candidates.filter((c) => c.action === 'delete');
  const result: GcDeleteResult = { deleted: [], skipped: [], freedBytes: 0 };
  let done = 0;
  for (const c of todo) {
    const reason = await liveReason(c.path, options.timings, now);
    if (reason !== null) {
      result.skipped.push({ candidate: c, reason });
    } else {
      const fs = filesystemFor(c.path);
      await fs.rm(fileUnder(c.path, STATUS_FILE), { missingOk: true });
      await fs.rm(c.path, { recursive: true, missingOk: true });
      result.deleted.push(c);
      result.freedBytes += c.sizeBytes;
    }
    options.onProgress?.(++done, todo.length);
  }
  return result;
}
