import { RiggingError } from '../errors.js';
import type { ConditionalFilesystem } from '../fs/filesystem.js';
import { FloatValue, float, parsePyJson, pyJsonDumps } from '../json/index.js';
import { conditionalFilesystemFor } from './conditional-object.js';
import { leaseTimings } from './lease-timings.js';
import type { LeaseTimings } from './lease-timings.js';

/** The content of a lease file. */
export interface LeaseRecord {
  /** The holder; `''` when the file was malformed. */
  workerId: string;
  /** Unix seconds of the last acquire or refresh; `0` when the file was malformed. */
  timestamp: number;
}

/** What {@link DistributedLease.read} returns for an existing lease file. */
export interface LeaseState {
  /** The parsed lease (a malformed file reads as `{ workerId: '', timestamp: 0 }`). */
  lease: LeaseRecord;
  /** The backend's version of the file, for conditional writes. */
  version: string;
  /**
   * Whether `now − timestamp <= timeoutS`; always false for a malformed file and for a timestamp
   * more than `timeoutS` in the future (clock skew or corruption, reported through `warn`).
   */
  fresh: boolean;
}

/** Options of {@link createLease}. */
export interface LeaseOptions {
  /** This holder's id; use `defaultWorkerId()` for a fresh one per holder. */
  workerId: string;
  /** @default leaseTimings() at creation */
  timings?: LeaseTimings;
  /** Wall clock in milliseconds (tests inject one). @default Date.now */
  clock?: () => number;
  /** Where warnings about malformed leases go. @default console.warn */
  warn?: (message: string) => void;
}

/** A lease on one object-store or local file; disposing releases it. */
export interface DistributedLease extends AsyncDisposable {
  /** The lease file's URL. */
  readonly url: string;
  /** This holder's id. */
  readonly workerId: string;
  /** The current lease file, or `null` when absent. */
  read(): Promise<LeaseState | null>;
  /** Takes the lease if absent or stale (re-entrant for our own fresh lease); `false` if held or the race was lost. */
  tryAcquire(): Promise<boolean>;
  /**
   * Rewrites our timestamp conditionally.
   * @throws {RiggingError} RIGGING_LEASE_LOST if the lease vanished, has another holder, or changed under us.
   */
  refresh(): Promise<void>;
  /** Deletes the lease if it is ours, conditionally on its version; idempotent, never throws for an absent lease. */
  release(): Promise<void>;
  /** Whether a fresh lease exists. */
  hasActiveHolder(): Promise<boolean>;
  /** The fresh lease's holder, or `null`. */
  activeHolderId(): Promise<string | null>;
  /** Same as {@link DistributedLease.release}. */
  close(): Promise<void>;
}

/** Serialises a lease exactly as Python's `json.dumps({"worker_id": ..., "timestamp": ...})`. */
export function formatLease(workerId: string, timestampS: number): string {
  return pyJsonDumps({ worker_id: workerId, timestamp: float(timestampS) });
}

/** Parses lease bytes; `null` for anything without a string `worker_id` and numeric `timestamp`. */
export function parseLease(data: Buffer | string): LeaseRecord | null {
  let v: unknown;
  try {
    v = parsePyJson(typeof data === 'string' ? data : data.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const rec = v as Record<string, unknown>;
  const workerId = rec['worker_id'];
  const ts = rec['timestamp'];
  const timestamp = FloatValue.is(ts) ? ts.value : typeof ts === 'number' ? ts : typeof ts === 'bigint' ? Number(ts) : null;
  if (typeof workerId !== 'string' || timestamp === null || !Number.isFinite(timestamp)) return null;
  return { workerId, timestamp };
}

class Lease implements DistributedLease {
  private readonly fs: ConditionalFilesystem;
  private readonly timings: LeaseTimings;
  private readonly clock: () => number;
  private readonly warn: (message: string) => void;

  constructor(
    readonly url: string,
    opts: LeaseOptions,
  ) {
    this.fs = conditionalFilesystemFor(url, 'lease');
    this.workerId = opts.workerId;
    this.timings = opts.timings ?? leaseTimings();
    this.clock = opts.clock ?? Date.now;
    this.warn = opts.warn ?? ((m) => console.warn(m));
  }

  readonly workerId: string;

  private nowS(): number {
    return this.clock() / 1000;
  }

  async read(): Promise<LeaseState | null> {
    const got = await this.fs.readVersioned(this.url);
    if (got === null) return null;
    const lease = parseLease(got.data);
    if (lease === null) {
      this.warn(`lease "${this.url}" is malformed; treating it as stale`);
      return { lease: { workerId: '', timestamp: 0 }, version: got.version, fresh: false };
    }
    const aheadS = lease.timestamp - this.nowS();
    if (aheadS > this.timings.timeoutS) {
      // A holder whose clock runs more than a whole timeout ahead (or a corrupt 1e308) would
      // otherwise look fresh for ever, and every waiter would wait for ever.
      this.warn(
        `lease "${this.url}" held by "${lease.workerId}" has a timestamp ${aheadS.toExponential(2)} s in the future ` +
          `(clock skew or corruption); treating it as stale`,
      );
      return { lease, version: got.version, fresh: false };
    }
    return { lease, version: got.version, fresh: this.nowS() - lease.timestamp <= this.timings.timeoutS };
  }

  async tryAcquire(): Promise<boolean> {
    const cur = await this.read();
    if (cur !== null && cur.fresh) return cur.lease.workerId === this.workerId;
    try {
      await this.fs.writeConditional(this.url, Buffer.from(formatLease(this.workerId, this.nowS()), 'utf8'), cur?.version ?? null);
      return true;
    } catch (err) {
      if (RiggingError.hasCode(err, 'RIGGING_CONDITIONAL_WRITE_FAILED')) return false;
      throw err;
    }
  }

  private lost(reason: string, cause?: unknown): RiggingError {
    return new RiggingError('RIGGING_LEASE_LOST', `lease "${this.url}" lost by "${this.workerId}": ${reason}`, {
      cause,
      details: { path: this.url, operation: 'refresh', workerId: this.workerId },
    });
  }

  async refresh(): Promise<void> {
    const cur = await this.read();
    if (cur === null) throw this.lost('the lease file is gone');
    if (cur.lease.workerId !== this.workerId) throw this.lost(`now held by "${cur.lease.workerId}"`);
    try {
      await this.fs.writeConditional(this.url, Buffer.from(formatLease(this.workerId, this.nowS()), 'utf8'), cur.version);
    } catch (err) {
      if (RiggingError.hasCode(err, 'RIGGING_CONDITIONAL_WRITE_FAILED')) throw this.lost('it changed during refresh', err);
      throw err;
    }
  }

  async release(): Promise<void> {
    const cur = await this.read();
    if (cur === null || cur.lease.workerId !== this.workerId) return;
    try {
      await this.fs.deleteConditional(this.url, cur.version);
    } catch (err) {
      // Someone took the lease over (or deleted it) between our read and the delete: it is not ours.
      if (!RiggingError.hasCode(err, 'RIGGING_CONDITIONAL_WRITE_FAILED') && !RiggingError.hasCode(err, 'RIGGING_NOT_FOUND')) throw err;
    }
  }

  async hasActiveHolder(): Promise<boolean> {
    return (await this.read())?.fresh === true;
  }

  async activeHolderId(): Promise<string | null> {
    const cur = await this.read();
    return cur !== null && cur.fresh ? cur.lease.workerId : null;
  }

  async close(): Promise<void> {
    await this.release();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.release();
  }
}

/**
 * A lease at `url` held as `workerId`. Works on `gs://` (generation preconditions), `memory://`
 * and local disks (guard-directory section); the file bytes match Python Marin's.
 *
 * @throws {RiggingError} RIGGING_UNSUPPORTED for schemes without conditional writes.
 * @example
 * await using lease = createLease('gs://b/out/.executor_status.lock', { workerId: defaultWorkerId() });
 * if (await lease.tryAcquire()) { ... }
 */
export function createLease(url: string, opts: LeaseOptions): DistributedLease {
  return new Lease(url, opts);
}
