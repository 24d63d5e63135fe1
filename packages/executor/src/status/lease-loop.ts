import { setTimeout as sleep } from 'node:timers/promises';
import { createLease, defaultWorkerId, filesystemFor } from '@marin/rigging';
import type { DistributedLease, LeaseOptions, LeaseTimings } from '@marin/rigging';
import { ExecutorError, stepFailed } from '../errors.js';
import type { ExecutorLogger } from '../logger.js';
import type { StepState } from '../progress/step-state.js';
import { startHeartbeat } from './heartbeat.js';
import { fileUnder, INFO_FILE, LEASE_FILE, readStatus, STATUS_FILE, writeStatus } from './status-store.js';
import { isFailedStatus, STATUS_FAILED, STATUS_RUNNING, STATUS_SUCCESS } from './status.js';
import type { StepStatus } from './status.js';

/** What `runUnderLease` needs to drive one step through the status/lease protocol. */
export interface LeaseLoopOptions {
  /** `<name>-<hash6>`. */
  label: string;
  outputPath: string;
  timings: LeaseTimings;
  /** Rerun a step whose status is FAILED/DEP_FAILED. */
  forceRunFailed: boolean;
  /**
   * Run even over a SUCCESS output (`forceRun`): under the lease, RUNNING replaces SUCCESS before
   * the old files are removed, so no reader reuses a half-replaced output. @default false
   */
  force?: boolean;
  /**
   * Aborting it interrupts the step: a wait for the lease ends at once; a running body is aborted
   * through its signal, FAILED is written and the lease released without waiting for the body.
   */
  interrupt?: AbortSignal;
  /**
   * Rebuild over an existing SUCCESS (a mutable `dev` artifact), still waiting behind a held lease; unlike
   * `force` it holds after a lost race and leaves the old files for the rebuild to overwrite. @default false
   */
  forceRerun?: boolean;
  logger: ExecutorLogger;
  /** The status already read by the launch check, reused for the first iteration. */
  initialStatus: StepStatus | null;
  /** Reports `waiting` / `running`. */
  onState(state: StepState, detail?: string): void;
  /** Checks a SUCCESS output (verify-on-hit) before it is reused. */
  verifyHit(): Promise<void>;
  /**
   * Writes this run's `.executor_info` (when it differs from the file): called after acquiring the
   * lease and again after the final refresh, right before SUCCESS. @default nothing is written
   */
  writeInfo?(): Promise<void>;
  /** Runs the step body; must honour `signal`. */
  attempt(signal: AbortSignal): Promise<void>;
  /** Clock in milliseconds. @default Date.now */
  now?: () => number;
  /** Creates the attempt's lease (tests inject a wrapper to interleave events). @default rigging's createLease */
  createLease?: (url: string, options: LeaseOptions) => DistributedLease;
}

const WAIT_LOG_EVERY_MS = 60_000;

/** The error of a step stopped by the run's interrupt signal. */
export function interruptedError(label: string, reason: unknown, wrote: boolean): ExecutorError {
  const why = reason instanceof Error ? reason.message : 'interrupted';
  return new ExecutorError('EXECUTOR_INTERRUPTED', `${label} ${why}${wrote ? '; marked FAILED and its lease released' : ''}`, {
    cause: reason,
    details: { step: label, markedFailed: wrote },
  });
}

/** Sleeps `ms`, or throws the interrupt error as soon as `interrupt` aborts. */
async function pause(ms: number, label: string, interrupt: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, undefined, interrupt === undefined ? {} : { signal: interrupt });
  } catch (e) {
    if (interrupt?.aborted === true) throw interruptedError(label, interrupt.reason, false);
    throw e;
  }
}

function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    if (signal.aborted) {
      onAbort();
    } else {
      signal.addEventListener('abort', onAbort, { once: true });
    }
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/**
 * Runs one step under Marin's double-checked lease protocol:
 * wait while another worker holds a fresh lease, take over a stale one, re-read the status after
 * acquiring, write RUNNING, heartbeat while the body runs, then stop the heartbeat, refresh once
 * more and only then write the terminal status and release.
 *
 * Resolves `ran` when this worker ran the step to SUCCESS, `skipped` when another worker completed
 * it. Never writes a status after the lease is lost.
 *
 * @throws {ExecutorError} EXECUTOR_STEP_FAILED (`Step failed: <label>`, cause = the body's error)
 * after writing FAILED; EXECUTOR_LEASE_LOST when the lease was lost (nothing written, not released);
 * EXECUTOR_PREVIOUSLY_FAILED when the status turned FAILED while waiting and `forceRunFailed` is off.
 */
export async function runUnderLease(opts: LeaseLoopOptions): Promise<'ran' | 'skipped'> {
  const { label, outputPath, timings, logger } = opts;
  const now = opts.now ?? Date.now;
  const lockUrl = fileUnder(outputPath, LEASE_FILE);
  // Each attempt gets its own holder id: acquisition is re-entrant per id.
  const lease = (opts.createLease ?? createLease)(lockUrl, { workerId: defaultWorkerId(), timings, clock: now, warn: (m) => logger.warn(m) });
  const pollMs = timings.pollS * 1000;
  const raceRetryMs = Math.min(1000, pollMs);
  let status: StepStatus | null = opts.initialStatus;
  let first = true;
  let loggedStatus = false;
  let lastWaitLog = -Infinity;
  let force = opts.force === true;

  for (;;) {
    if (opts.interrupt?.aborted === true) throw interruptedError(label, opts.interrupt.reason, false);
    if (!first) status = await readStatus(outputPath);
    first = false;
    if (!loggedStatus) {
      logger.info(`Status of ${label}: ${status ?? 'none'}`);
      loggedStatus = true;
    }
    if (status === STATUS_SUCCESS && !force && opts.forceRerun !== true) {
      await opts.verifyHit();
      logger.info(`Step ${label} completed by another worker`);
      return 'skipped';
    }
    if (isFailedStatus(status) && !opts.forceRunFailed) {
      throw new ExecutorError('EXECUTOR_PREVIOUSLY_FAILED', `Step ${label} failed previously. Status: ${status}`, {
        details: { step: label, status },
      });
    }
    if (status === STATUS_RUNNING) {
      const current = await lease.read();
      if (current !== null && current.fresh) {
        const holder = current.lease.workerId;
        const ago = `${Math.max(0, Math.round(now() / 1000 - current.lease.timestamp))}s ago`;
        opts.onState('waiting', `lease held by ${holder}`);
        if (now() - lastWaitLog >= WAIT_LOG_EVERY_MS) {
          logger.info(`Waiting for ${label}: lease held by ${holder} (heartbeat ${ago})`);
          lastWaitLog = now();
        }
        await pause(pollMs, label, opts.interrupt);
        continue;
      }
      logger.info(`Step ${label} is RUNNING but its lease is missing or stale; taking over`);
    }
    if (await lease.tryAcquire()) {
      const held = await readStatus(outputPath);
      if (held === STATUS_SUCCESS && !force && opts.forceRerun !== true) {
        await lease.release();
        await opts.verifyHit();
        logger.info(`Step ${label} completed by another worker`);
        return 'skipped';
      }
      try {
        await opts.writeInfo?.();
        await writeStatus(outputPath, STATUS_RUNNING);
        if (held === STATUS_SUCCESS && force) await clearOutput(outputPath);
      } catch (error) {
        await lease.release().catch(() => undefined);
        throw error;
      }
      return await runHolding(opts, lease, now);
    }
    logger.info(`Lost lock race for ${label}; retrying`);
    opts.onState('waiting', 'lost lock race');
    // Forcing applies to the SUCCESS seen before the lease: whoever wins the race decides.
    force = false;
    await pause(raceRetryMs, label, opts.interrupt);
  }
}

interface HeldLease {
  refresh(): Promise<unknown>;
  release(): Promise<unknown>;
}

async function runHolding(opts: LeaseLoopOptions, lease: HeldLease, now: () => number): Promise<'ran'> {
  const { label, outputPath, logger } = opts;
  const controller = new AbortController();
  const lostError = (cause: unknown): ExecutorError =>
    new ExecutorError('EXECUTOR_LEASE_LOST', `Lease was lost during execution of ${label}`, {
      cause,
      details: { step: label },
    });
  const heartbeat = startHeartbeat({
    lease,
    heartbeatMs: opts.timings.heartbeatS * 1000,
    timeoutMs: opts.timings.timeoutS * 1000,
    logger,
    label,
    now,
    onLost: (cause) => {
      logger.warn(`Lease for ${label} was lost; aborting the step`);
      controller.abort(lostError(cause));
    },
  });
  let interrupted = false;
  const onInterrupt = (): void => {
    interrupted = true;
    controller.abort(opts.interrupt?.reason);
  };
  if (opts.interrupt?.aborted === true) onInterrupt();
  else opts.interrupt?.addEventListener('abort', onInterrupt, { once: true });
  opts.onState('running');
  const started = now();
  let failure: { error: unknown } | null = null;
  try {
    await raceAbort(opts.attempt(controller.signal), controller.signal);
  } catch (error) {
    failure = { error };
  } finally {
    opts.interrupt?.removeEventListener('abort', onInterrupt);
  }
  await heartbeat.stop();
  if (interrupted) {
    // Interrupted (Ctrl-C, SIGTERM): the body was told through its signal and is not waited for;
    // FAILED and a released lease let the next run start at once.
    try {
      await lease.refresh();
    } catch (cause) {
      throw lostError(cause);
    }
    await writeStatus(outputPath, STATUS_FAILED);
    await lease.release();
    throw interruptedError(label, opts.interrupt?.reason, true);
  }
  // Fencing: once the lease is lost nothing more is written and nothing released (it is not ours).
  if (controller.signal.aborted) throw controller.signal.reason;
  try {
    await lease.refresh();
  } catch (cause) {
    const err = lostError(cause);
    logger.warn(`Lease for ${label} was lost before its status could be written; writing nothing`);
    throw err;
  }
  if (failure === null && opts.writeInfo !== undefined) {
    // Another executor may have rewritten the info while we ran: SUCCESS must come with ours.
    try {
      await opts.writeInfo();
    } catch (error) {
      failure = { error };
    }
  }
  if (failure === null) {
    await writeStatus(outputPath, STATUS_SUCCESS);
    await lease.release();
    logger.info(`Step ${label} succeeded in ${((now() - started) / 1000).toFixed(2)}s`);
    return 'ran';
  }
  await writeStatus(outputPath, STATUS_FAILED);
  await lease.release();
  throw stepFailed(label, { cause: failure.error });
}

/**
 * Removes what a previous SUCCESS left in `outputPath` except the step's bookkeeping (status, lease,
 * info), so a forced rerun starts from an empty output. Runs under the lease after RUNNING was written.
 */
async function clearOutput(outputPath: string): Promise<void> {
  const fs = filesystemFor(outputPath);
  const keep = new Set([STATUS_FILE, LEASE_FILE, INFO_FILE]);
  const entries = await fs.ls(outputPath, { includeTemporary: true }).catch(() => []);
  for (const e of entries) {
    const name = e.url.replace(/\/+$/, '').split('/').pop() ?? '';
    if (keep.has(name) || name.startsWith(`${LEASE_FILE}.`) || name.startsWith(`${STATUS_FILE}.`)) continue;
    await fs.rm(e.url, { recursive: true, missingOk: true });
  }
}
