import { constants } from 'node:os';
import type { ExecutorLogger } from '../logger.js';
import type { FrayStepRunner } from '../run/fray-step-runner.js';

/** Options of {@link installInterruptGuard}. */
export interface InterruptGuardOptions {
  /** The runner whose jobs are terminated. */
  fray: Pick<FrayStepRunner, 'activeJobs' | 'terminateActiveJobs'>;
  logger: ExecutorLogger;
  /** Resolves once the run has settled (its statuses written) after the jobs were terminated. */
  settled: () => Promise<unknown>;
  /** Longest wait for terminations and the run to settle before the signal is re-raised. @default 10000 */
  graceMs?: number;
}

/** An installed guard. */
export interface InterruptGuard {
  /** Whether a signal arrived while jobs were running. */
  readonly interrupted: boolean;
  /** Never resolves: the process ends by the re-raised signal. Await it after an interrupt. */
  readonly dying: Promise<never>;
  uninstall(): void;
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * While installed, SIGINT and SIGTERM first terminate the Fray jobs of running remote steps (jobs
 * submitted from outside a task have no parent that would stop them) and let the run settle (the
 * stopped steps are written FAILED and their leases released, so a rerun retries them at once), then
 * the signal is raised again with Node's default action, so the process still ends "killed by
 * SIGTERM". With no job in flight, or on a second signal, the signal is re-raised at once.
 */
export function installInterruptGuard(options: InterruptGuardOptions): InterruptGuard {
  const { fray, logger } = options;
  let interrupted = false;
  let handling = false;
  const dying = new Promise<never>(() => {});
  const uninstall = (): void => {
    for (const s of SIGNALS) process.removeListener(s, handler);
  };
  const reraise = (signal: NodeJS.Signals): void => {
    uninstall();
    process.kill(process.pid, signal);
    // Another listener may keep the process alive; end it as the signal would have.
    setTimeout(() => process.exit(128 + constants.signals[signal]), 1000);
  };
  function handler(signal: NodeJS.Signals): void {
    const jobs = fray.activeJobs;
    if (handling || jobs.length === 0) {
      reraise(signal);
      return;
    }
    handling = true;
    interrupted = true;
    logger.warn(`received ${signal}; terminating ${jobs.length} running Fray job(s) before exiting`);
    const timer = setTimeout(() => reraise(signal), options.graceMs ?? 10_000);
    void fray
      .terminateActiveJobs(logger)
      .then(() => options.settled())
      .finally(() => {
        clearTimeout(timer);
        reraise(signal);
      });
  }
  for (const s of SIGNALS) process.on(s, handler);
  return {
    get interrupted() {
      return interrupted;
    },
    dying,
    uninstall,
  };
}
