import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { inspect } from 'node:util';
import { createBackendClient } from '@marin/fray';
import type { Client } from '@marin/fray';
import { marinPrefix } from '@marin/rigging';
import type { ExecutorStep } from '../dag/executor-step.js';
import { ExecutorError, isStepFailureWrapper } from '../errors.js';
import { Executor } from '../executor.js';
import type { StepEntry } from '../executor-options.js';
import type { ExecutorLogger } from '../logger.js';
import { DispatchStepRunner } from '../run/dispatch-step-runner.js';
import { FrayStepRunner } from '../run/fray-step-runner.js';
import { causeChain, describeFailure } from '../run/run-report.js';
import type { RunReport } from '../run/run-report.js';
import { executorUsage, parseExecutorArgs } from './cli-args.js';
import type { ExecutorArgs } from './cli-args.js';
import { entryScriptOfCaller } from './entry-script.js';
import { planToJson } from '../plan/explain.js';
import { installInterruptGuard } from './interrupt-guard.js';
import { failureCode, failureHint, formatFailureBlock } from './failure-block.js';
import { palette, wantsColour } from '../progress/colour.js';
import type { Palette } from '../progress/colour.js';
import type { OutputLevel } from '../progress/progress-mode.js';
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
   * Called with 0 after `--help`, 2 after a usage error (an unmatched `--run-only` pattern
   * included), 1 after a failed run, 130/143 after SIGINT/SIGTERM, and 0 or 1 when worker mode
   * (`--run-step`) finishes.
   * Giving it (or calling `executorMain` from the entry script itself) makes a failed run print
   * one line per failed step and call it instead of rejecting. @default process.exit
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
 * Unknown flags, positional arguments and invalid values print one line (`error: … (see <script>
 * --help)`) and exit with code 2.
 *
 * Remote steps (a `RemoteCallable` fn or `resources`) run as Fray jobs on `currentClient()`; remote
 * backends re-enter this entry script with `--run-step <outputPath> --step-config-file <file>`, and
 * then this function runs in worker mode: it rebuilds the DAG, runs only that step's function,
 * writes no status, lease or info file, and exits 0 (or 1 after printing the error; 1 also when the
 * step is not in the rebuilt DAG). While the run lasts, the first SIGINT/SIGTERM interrupts it:
 * running steps are aborted, written FAILED and their leases released, remote steps' jobs
 * terminated, one line says what was interrupted, and the process exits 130/143 (a second signal
 * exits at once).
 *
 * @example
 * await executorMain({ steps: [stats], description: 'hello world' });
 *
 * With `--json`, stdout gets the dry-run plan (`{ ok, dryRun: true, plan: [...] }`) or the run's
 * outcome per step (`{ ok, summary, steps: [...] }`, also after a failure).
 *
 * @throws {ExecutorError} whatever `Executor.run()` throws, when called from neither the entry
 * script nor with an `exit` callback (a library or a test runner). From the entry script a failed run
 * prints one block per failed step (cause and code, the user's frame, log locations, a hint; stacks
 * only with `--verbose`) and exits 1; a `--run-only` pattern matching no step exits 2.
 */
export async function executorMain(options: ExecutorMainOptions): Promise<Map<ExecutorStep, string> | null> {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const callerScript = entryScriptOfCaller();
  const entryScript = options.entryScript === undefined ? callerScript : options.entryScript;
  const script = basename(entryScript ?? process.argv[1] ?? 'experiment.js');
  const usage = executorUsage(script);
  // Run from the entry script (or with an injected exit), failures end the process with a short
  // report; called from a library or a test runner, they reject as Executor.run() does.
  const reportFailures = options.exit !== undefined || callerScript !== null;
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
      process.stderr.write(`${usageLine(e.message, script)}\n`);
      exit(2);
      return null;
    }
    throw e;
  }
  if (args.help) {
    process.stdout.write(usage);
    exit(0);
    return null;
  }
  const verbosity: OutputLevel = args.quiet ? 'quiet' : args.verbose ? 'verbose' : 'normal';
  const log = options.logger ?? {
    info: (m: string) => {
      if (verbosity === 'verbose') writeLine(`[executor] INFO ${m}`);
    },
    warn: (m: string) => {
      if (verbosity !== 'quiet') writeLine(`[executor] WARN ${m}`);
    },
  };
  const c = palette(wantsColour(process.stderr, process.env));
  const prefix = args.prefix ?? (await marinPrefix());
  if (args.runStep !== null && args.stepConfigFile !== null) {
    const code = await runStepWorker({
      steps: options.steps,
      prefix,
      outputPath: args.runStep,
      stepConfigFile: args.stepConfigFile,
      // A worker's lines are its job's log: all of them, whatever the level.
      logger: options.logger ?? { info: (m: string) => writeLine(`[executor] INFO ${m}`), warn: (m: string) => writeLine(`[executor] WARN ${m}`) },
      writeError: (text) => process.stderr.write(text),
    });
    exit(code);
    return null;
  }
  // --backend picks the Fray backend of remote steps; without it currentClient()'s detection order decides.
  let client: Client | undefined;
  try {
    client = args.backend === null ? undefined : createBackendClient(args.backend);
  } catch (e) {
    process.stderr.write(`error: --backend ${args.backend ?? ''}: ${e instanceof Error ? e.message : String(e)}\n`);
    exit(2);
    return null;
  }
  // Remote steps re-enter this script with its own arguments.
  const fray = new FrayStepRunner({
    ...(client === undefined ? {} : { client }),
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
  const controller = new AbortController();
  const guard = installInterruptGuard({ fray, logger: log, controller, settled: () => settled, exit });
  const interrupted = async (e: unknown): Promise<null> => {
    await guard.drained;
    if (args.json) writeJson({ ok: false, error: describeFailure(e), ...(executor.report ?? {}) });
    process.stderr.write(`${interruptLine(guard.signal ?? 'SIGINT', e, c)}\n`);
    guard.uninstall();
    exit(guard.exitCode);
    return null;
  };
  let paths: Map<ExecutorStep, string>;
  try {
    const running = executor.run(options.steps, {
      dryRun: args.dryRun,
      runOnly: args.runOnly,
      forceRun: args.forceRun,
      forceRunFailed: args.forceRunFailed,
      maxConcurrent: options.maxConcurrent ?? args.maxConcurrent,
      progress: args.progress,
      ...(args.statusInterval === null ? {} : { statusIntervalMs: args.statusInterval * 1000 }),
      verbosity,
      signal: controller.signal,
    });
    settled = running.catch(() => undefined);
    paths = await running;
  } catch (e) {
    // Interrupted (SIGINT/SIGTERM): one line saying what stopped, then 130/143.
    if (guard.signal !== null) return await interrupted(e);
    if (!reportFailures) throw e;
    const usageProblem = ExecutorError.hasCode(e, 'EXECUTOR_INVALID_ARGUMENT') && e.details['usage'] === true;
    if (args.json) writeJson({ ok: false, error: describeFailure(e), ...(executor.report ?? {}) });
    if (usageProblem) process.stderr.write(`${usageLine(e.message, script)}\n`);
    else printFailure(e, executor.report, { verbose: args.verbose, c });
    exit(usageProblem ? 2 : 1);
    return null;
  } finally {
    if (guard.signal === null) guard.uninstall();
    await client?.close().catch(() => undefined);
  }
  if (guard.signal !== null) return await interrupted(null);
  log.info(`Executor run took ${((performance.now() - started) / 1000).toFixed(2)}s`);
  const infoPath = executor.executorInfoPath;
  if (!args.dryRun && infoPath !== null) {
    log.info(`Executor info written to ${infoPath}`);
    if (infoPath.startsWith('gs://') && verbosity !== 'quiet') {
      writeLine(`View the experiment at https://marin.community/data-browser/experiment?path=${pyQuoteUrl(infoPath)}`);
    }
  }
  if (args.json) {
    if (args.dryRun) writeJson({ ok: true, dryRun: true, prefix: executor.prefix, experiment: infoPath, plan: (executor.lastDryRun ?? []).map(planToJson) });
    else writeJson({ ok: true, dryRun: false, prefix: executor.prefix, experiment: infoPath, ...(executor.report ?? {}) });
  }
  return paths;
}

function writeJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Where the full error of a failed run goes: a local file, so the terminal gets one line per failure. */
function writeFailureLog(error: unknown): string | null {
  const dir = join(tmpdir(), 'marin-executor');
  const file = join(dir, `${basename(process.argv[1] ?? 'run').replace(/\.[cm]?[jt]s$/, '')}-${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}.log`);
  try {
    mkdirSync(dir, { recursive: true });
    const failures = ExecutorError.is(error) && Array.isArray(error.details['failures']) ? (error.details['failures'] as unknown[]) : [];
    const text = [error, ...failures].map((e) => inspect(e, { depth: 8 })).join('\n\n');
    writeFileSync(file, `${text}\n`);
    return file;
  } catch {
    return null;
  }
}

/** A usage error as one line: the message and where the usage is. */
function usageLine(message: string, script: string): string {
  return `error: ${message} (see ${script} --help)`;
}

/** `interrupted by SIGINT: a-123456 marked FAILED (lease released); 2 steps not started; rerun to continue`. */
function interruptLine(signal: NodeJS.Signals, error: unknown, c: Palette): string {
  const details = ExecutorError.hasCode(error, 'EXECUTOR_INTERRUPTED') ? error.details : {};
  const stopped = Array.isArray(details['interrupted']) ? (details['interrupted'] as string[]) : [];
  const notStarted = typeof details['notStarted'] === 'number' ? details['notStarted'] : 0;
  const parts = [stopped.length > 0 ? `${stopped.join(', ')} marked FAILED (lease released)` : 'no step was running'];
  if (notStarted > 0) parts.push(`${notStarted} step(s) not started`);
  return `${c.yellow(`interrupted by ${signal}:`)} ${parts.join('; ')}; rerun to continue`;
}

/** The label a step's error belongs to (`details.step` of its `Step failed` wrapper). */
function labelOf(error: unknown): string | null {
  for (const e of causeChain(error)) {
    const details = typeof e === 'object' && e !== null ? (e as { details?: unknown }).details : undefined;
    const step = typeof details === 'object' && details !== null ? (details as { step?: unknown }).step : undefined;
    if (typeof step === 'string') return step;
  }
  return null;
}

/** The innermost error of a chain that has a stack: the one stack worth printing. */
function innermostStack(error: unknown): string | null {
  for (const e of causeChain(error).reverse()) {
    if (e instanceof Error && typeof e.stack === 'string') return e.stack;
  }
  return null;
}

/**
 * The report of a failed run on stderr: one block per failed step (its one-line cause and code,
 * the first frame in the user's code, where the logs and the full error are, a hint when the code
 * has one), or one line for a run-level error (bad prefix, cycle, previous failure). With
 * `--verbose` each block carries its innermost stack instead of the file, once.
 */
function printFailure(error: unknown, report: RunReport | null, opts: { verbose: boolean; c: Palette }): void {
  const failed = report?.steps.filter((s) => s.failure !== null) ?? [];
  const lines: string[] = [];
  const file = opts.verbose ? null : writeFailureLog(error);
  if (failed.length > 0 && ExecutorError.hasCode(error, 'EXECUTOR_STEP_FAILED')) {
    const errors = Array.isArray(error.details['failures']) ? (error.details['failures'] as unknown[]) : [];
    for (const s of failed) {
      const own = errors.find((e) => labelOf(e) === s.label) ?? Object.assign(new Error(s.failure!.cause), { code: s.failure!.code });
      lines.push(...formatFailureBlock({ label: s.label, error: own, errorLog: file, c: opts.c }));
      const stack = opts.verbose ? innermostStack(own) : null;
      if (stack !== null) lines.push(...stack.split('\n').map((l) => `    ${l}`));
    }
  } else {
    const f = describeFailure(error);
    const chain = causeChain(error);
    // The first error below the generic wrappers says what failed; a system call's own message
    // (`EROFS: read-only file system, mkdir …`) only repeats it.
    const head = chain.find((e) => !(ExecutorError.is(e) && isStepFailureWrapper(e))) ?? error;
    const last = chain[chain.length - 1];
    const isSyscall = typeof last === 'object' && last !== null && typeof (last as { syscall?: unknown }).syscall === 'string';
    const headText = head instanceof Error ? head.message : String(head);
    const tail = last !== head && !isSyscall ? `: ${f.cause}` : '';
    const code = failureCode(error);
    lines.push(`${opts.c.red('error:')} ${headText}${tail}${code === null ? '' : ` [${code}]`}`);
    const hint = failureHint(error, code);
    if (hint !== null) lines.push(`  ${opts.c.yellow('hint:')} ${hint}`);
    if (file !== null) lines.push(opts.c.dim(`  full error: ${file}`));
    const stack = opts.verbose ? innermostStack(error) : null;
    if (stack !== null) lines.push(...stack.split('\n').map((l) => `    ${l}`));
  }
  process.stderr.write(`${lines.join('\n')}\n`);
}
