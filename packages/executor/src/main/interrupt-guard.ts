import { constants } from 'node:os';
import { ExecutorError } from '../errors.js';
import type { ExecutorLogger } from '../logger.js';
import type { FrayStepRunner } from '../run/fray-step-runner.js';

/** Options of {@link installInterruptGuard}. */
export interface InterruptGuardOptions {
  /** The runner whose jobs are terminated. */
  fray: Pick<FrayStepRunner, 'activeJobs' | 'terminateActiveJobs'>;
  logger: ExecutorLogger;
  /** Aborted on the first signal, with an EXECUTOR_INTERRUPTED reason: the run's `signal`. */
  controller: AbortController;
  /** Resolves once the run has settled (its statuses written) after the abort. */
  settled: () => Promise<unknown>;
  /** Ends the process: at once on a second signal, or when the run does not settle within `graceMs`. */
  exit: (code: number) => void;
  /** Longest wait for terminations and the run to settle before the process exits anyway. @default 10000 */
  graceMs?: number;
  /** Where the signals are listened for. @default process */
  target?: Pick<NodeJS.EventEmitter, 'on' | 'removeListener'>;
  /** Where the lines about a second signal or a late settle go. @default process.stderr */
  stderr?: { write(s: string): unknown };
}

/** An installed guard. */
export interface InterruptGuard {
  /** The signal that interrupted the run, or `null`. */
  readonly signal: NodeJS.Signals | null;
  /** The exit code for the signal: 130 for SIGINT, 143 for SIGTERM (128 + its number). */
  readonly exitCode: number;
  /** Resolves once the jobs of remote steps were told to stop (at once when there were none). */
  readonly drained: Promise<void>;
  uninstall(): void;
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * While installed, the first SIGINT or SIGTERM interrupts the run instead of killing the process:
 * the controller aborts (running steps are aborted through their signal, written FAILED and their
 * leases released; no new step starts), the Fray jobs of running remote steps are terminated, and
 * the caller prints what was interrupted and exits with 128 + the signal's number. A second signal
 * exits at once with that code; so does a run that has not settled after `graceMs`.
 */
export function installInterruptGuard(options: InterruptGuardOptions): InterruptGuard {
  const { fray, logger } = options;
  let signal: NodeJS.Signals | null = null;
  let drained: Promise<void> = Promise.resolve();
  const target = options.target ?? process;
  const stderr = options.stderr ?? process.stderr;
  const uninstall = (): void => {
    for (const s of SIGNALS) target.removeListener(s, handler);
  };
  const codeOf = (s: NodeJS.Signals): number => 128 + constants.signals[s];
  function handler(received: NodeJS.Signals): void {
    if (signal !== null) {
      stderr.write(`\n${received} again: exiting without waiting\n`);
      options.exit(codeOf(received));
      return;
    }
    signal = received;
    options.controller.abort(
      new ExecutorError('EXECUTOR_INTERRUPTED', `interrupted by ${received}`, { details: { signal: received } }),
    );
    drained = fray.activeJobs.length === 0 ? Promise.resolve() : fray.terminateActiveJobs(logger).then(() => undefined, () => undefined);
    const timer = setTimeout(() => {
      stderr.write(`interrupted by ${received}; the run did not stop within ${Math.round((options.graceMs ?? 10_000) / 1000)}s, exiting\n`);
      options.exit(codeOf(received));
    }, options.graceMs ?? 10_000);
    timer.unref();
    void Promise.all([drained, options.settled()]).finally(() => clearTimeout(timer));
  }
  for (const s of SIGNALS) target.on(s, handler);
  return {
    get signal() {
      return signal;
    },
    get exitCode() {
      return signal === null ? 0 : codeOf(signal);
    },
    get drained() {
      return drained;
    },
    uninstall,
  };
}
