import { setTimeout as sleep } from 'node:timers/promises';
import { createLease, defaultWorkerId } from '@marin/rigging';
import type { DistributedLease, LeaseOptions, LeaseTimings } from '@marin/rigging';
import { ExecutorError } from '../errors.js';
import type { ExecutorLogger } from '../logger.js';
import type { StepState } from '../progress/step-state.js';
import { startHeartbeat } from './heartbeat.js';
import { fileUnder, LEASE_FILE, readStatus, writeStatus } from './status-store.js';
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
  /** Rebuild over an existing SUCCESS (a mutable `dev` artifact), still waiting behind a held lease. @default false */
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

  for (;;) {
    if (!first) status = await readStatus(outputPath);
    first = false;
    if (!loggedStatus) {
      logger.info(`Status of ${label}: ${status ?? 'none'}`);
      loggedStatus = true;
    }
    if (status === STATUS_SUCCESS && opts.forceRerun !== true) {
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
        await sleep(pollMs);
        continue;
      }
      logger.info(`Step ${label} is RUNNING but its lease is missing or stale; taking over`);
    }
    if (await lease.tryAcquire()) {
      if (opts.forceRerun !== true && (await readStatus(outputPath)) === STATUS_SUCCESS) {
        await lease.release();
        await opts.verifyHit();
        logger.info(`Step ${label} completed by another worker`);
        return 'skipped';
      }
      try {
        await opts.writeInfo?.();
        await writeStatus(outputPath, STATUS_RUNNING);
      } catch (error) {
        await lease.release().catch(() => undefined);
        throw error;
      }
      return await runHolding(opts, lease, now);
    }
    logger.info(`Lost lock race for ${label}; retrying`);
    opts.onState('waiting', 'lost lock race');
    await sleep(raceRetryMs);
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
  opts.onState('running');
  const started = now();
  let failure: { error: unknown } | null = null;
  try {
    await raceAbort(opts.attempt(controller.signal), controller.signal);
  } catch (error) {
    failure = { error };
  }
  await heartbeat.stop();
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
  throw new ExecutorError('EXECUTOR_STEP_FAILED', `Step failed: ${label}`, {
    cause: failure.error,
    details: { step: label },
  });
}
