import { marinPrefix } from '@marin/rigging';
import type { ExecutorStep } from '../dag/executor-step.js';
import { ExecutorError } from '../errors.js';
import { Executor } from '../executor.js';
import type { StepEntry } from '../executor.js';
import type { ExecutorLogger } from '../logger.js';
import { DispatchStepRunner } from '../run/dispatch-step-runner.js';
import { FrayStepRunner } from '../run/fray-step-runner.js';
import { EXECUTOR_USAGE, parseExecutorArgs } from './cli-args.js';
import type { ExecutorArgs } from './cli-args.js';
import { entryScriptOfCaller } from './entry-script.js';
import { installInterruptGuard } from './interrupt-guard.js';
import { runStepWorker } from './run-step-worker.js';

/** Options of {@link executorMain}. */
export interface ExecutorMainOptions {
  /** The experiment's steps (or references to them). */
  steps: readonly StepEntry[];
  /** Free text about the experiment. @default null */
  description?: string | null;
  /** Overrides `--max-concurrent` when given. @default the CLI value, else 8 */
  maxConcurrent?: number | null;
  /** Command-line arguments. @default process.argv.slice(2) */
  argv?: readonly string[];
  /** Where log lines go. @default stderr */
  logger?: ExecutorLogger;
  /**
   * The script remote workers re-run with `--run-step` (it must call `executorMain` with the same
   * steps); `null` disables re-entry, so remote backends refuse remote steps.
   * @default `process.argv[1]` when it is among this call's callers, else null
   */
  entryScript?: string | null;
  /**
   * Called with 0 after `--help`, 2 after a usage error, and 0 or 1 when worker mode
   * (`--run-step`) finishes. @default process.exit
   */
  exit?: (code: number) => void;
}

/** Percent-encodes like Python `urllib.parse.quote` (safe: `A-Za-z0-9_.-~/`). */
export function pyQuoteUrl(s: string): string {
  return Array.from(new TextEncoder().encode(s))
    .map((b) => {
      const c = String.fromCharCode(b);
      return /[A-Za-z0-9_.\-~/]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

function writeLine(line: string): void {
  process.stderr.write(`${line}\n`);
}

/**
 * The entry point of an experiment script (Marin's `executor_main`): parses the command line,
 * resolves the prefix (`--prefix`, else `marinPrefix()`), runs the steps and logs where the
 * experiment JSON went. Resolves the output paths, or `null` after `--help` / a usage error / worker mode.
 *
 * Unknown flags, positional arguments and invalid values print the usage and exit with code 2.
 *
 * Remote steps (a `RemoteCallable` fn or `resources`) run as Fray jobs on `currentClient()`; remote
 * backends re-enter this entry script with `--run-step <outputPath> --step-config-file <file>`, and
 * then this function runs in worker mode: it rebuilds the DAG, runs only that step's function,
 * writes no status, lease or info file, and exits 0 (or 1 after printing the error; 1 also when the
 * step is not in the rebuilt DAG). While the run lasts, SIGINT/SIGTERM first terminate the jobs of
 * running remote steps, then end the process as the signal would.
 *
 * @example
 * await executorMain({ steps: [stats], description: 'hello world' });
 *
 * @throws {ExecutorError} whatever `Executor.run()` throws; the entry script's top-level `await`
 * then exits non-zero with the error printed.
 */
export async function executorMain(options: ExecutorMainOptions): Promise<Map<ExecutorStep, string> | null> {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let args: ExecutorArgs;
  try {
    args = parseExecutorArgs(options.argv ?? process.argv.slice(2));
    if ((args.runStep === null) !== (args.stepConfigFile === null)) {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', '--run-step and --step-config-file (worker mode of remote steps) must be given together', {
        details: { usage: true },
      });
    }
  } catch (e) {
    if (ExecutorError.hasCode(e, 'EXECUTOR_INVALID_ARGUMENT')) {
      process.stderr.write(`error: ${e.message}\n\n${EXECUTOR_USAGE}`);
      exit(2);
      return null;
    }
    throw e;
  }
  if (args.help) {
    process.stdout.write(EXECUTOR_USAGE);
    exit(0);
    return null;
  }
  const log = options.logger ?? { info: (m: string) => writeLine(`[executor] INFO ${m}`), warn: (m: string) => writeLine(`[executor] WARN ${m}`) };
  const prefix = args.prefix ?? (await marinPrefix());
  if (args.runStep !== null && args.stepConfigFile !== null) {
    const code = await runStepWorker({
      steps: options.steps,
      prefix,
      outputPath: args.runStep,
      stepConfigFile: args.stepConfigFile,
      logger: log,
      writeError: (text) => process.stderr.write(text),
    });
    exit(code);
    return null;
  }
  const entryScript = options.entryScript === undefined ? entryScriptOfCaller() : options.entryScript;
  // Remote steps re-enter this script with its own arguments (executor spec §9.2).
  const fray = new FrayStepRunner({
    logger: log,
    reentry: entryScript === null ? null : { entryScript, userArgs: process.argv.slice(2), execArgv: process.execArgv, steps: options.steps },
  });
  const executor = new Executor({
    prefix,
    executorInfoBasePath: args.executorInfoBasePath,
    description: options.description ?? null,
    runner: new DispatchStepRunner({ fray }),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const started = performance.now();
  let settled: Promise<unknown> = Promise.resolve();
  const guard = installInterruptGuard({ fray, logger: log, settled: () => settled });
  let paths: Map<ExecutorStep, string>;
  try {
    const running = executor.run(options.steps, {
      dryRun: args.dryRun,
      runOnly: args.runOnly,
      forceRunFailed: args.forceRunFailed,
      maxConcurrent: options.maxConcurrent ?? args.maxConcurrent,
      progress: args.progress,
    });
    settled = running.catch(() => undefined);
    paths = await running;
  } catch (e) {
    // Interrupted: the guard ends the process by the signal once the statuses are written.
    if (guard.interrupted) await guard.dying;
    throw e;
  } finally {
    if (!guard.interrupted) guard.uninstall();
  }
  if (guard.interrupted) await guard.dying;
  log.info(`Executor run took ${((performance.now() - started) / 1000).toFixed(2)}s`);
  const infoPath = executor.executorInfoPath;
  if (!args.dryRun && infoPath !== null) {
    log.info(`Executor info written to ${infoPath}`);
    if (infoPath.startsWith('gs://')) {
      log.info(`View the experiment at https://marin.community/data-browser/experiment?path=${pyQuoteUrl(infoPath)}`);
    }
  }
  return paths;
}
