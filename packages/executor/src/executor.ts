import { leaseTimings, mapLimit, RiggingError } from '@marin/rigging';
import type { LeaseTimings } from '@marin/rigging';
import { ExecutorStep } from './dag/executor-step.js';
import { InputName } from './dag/input-name.js';
import { pathJoin } from './dag/path-join.js';
import { ExecutorError, stepFailed } from './errors.js';
import type { ExecutorLogger } from './logger.js';
import { compileRunOnly, unmatchedPatternsError } from './run/run-only.js';
import { explainSteps, formatPlan } from './plan/explain.js';
import type { StepPlan } from './plan/explain.js';
import { createProgressReporter } from './progress/progress-reporter.js';
import type { ProgressReporter, ProgressStream } from './progress/progress-reporter.js';
import { stepProgress } from './progress/step-progress.js';
import type { OutputLevel } from './progress/progress-mode.js';
import { runReason } from './run/run-reason.js';
import { absolutePrefix } from './resolution/make-prefix-absolute.js';
import { assertStorablePath } from './resolution/pseudo-filesystem.js';
import { maxMirrorBudgetGb } from './resolution/max-mirror-budget.js';
import { buildStepInfo, experimentInfoPath } from './run/info-files.js';
import { writeOwnInfo, writeRunInfos } from './run/info-writer.js';
import type { InfoWriterContext } from './run/info-writer.js';
import { parseRunOptions } from './run/run-options.js';
import type { RunOptions } from './run/run-options.js';
import { describeFailure } from './run/run-report.js';
import type { FailureReport, RunReport, StepOutcome, StepReport } from './run/run-report.js';
import { scheduleDag } from './run/scheduler.js';
import { planSelection } from './run/step-selection.js';
import { DispatchStepRunner } from './run/dispatch-step-runner.js';
import type { StepRunner } from './run/step-runner.js';
import { readGcTombstone, reclaimFromGc, removeGcTombstone } from './status/gc-tombstone.js';
import { runUnderLease } from './status/lease-loop.js';
import { readStatus } from './status/status-store.js';
import { isFailedStatus, STATUS_SUCCESS } from './status/status.js';
import type { StepStatus } from './status/status.js';
import { verifyOnHit } from './status/verify-on-hit.js';
import { VersionGraph } from './versioning/version-graph.js';
import { parseExecutorOptions } from './executor-options.js';
import type { ExecutorOptions, StepEntry } from './executor-options.js';
import { jobFailureOf } from './run/job-failure.js';
import type { PreparedRun } from './run/prepared-run.js';
import { checkSucceeded } from './run/succeeded-outputs.js';

/** Concurrency of status and info reads before scheduling. */
const IO_CONCURRENCY = 32;

/**
 * Runs a DAG of `ExecutorStep`s: versions every step, skips outputs that already succeeded, and
 * runs the rest with bounded concurrency under Marin's status/lease protocol, so several executors
 * (TypeScript or Python) can share a prefix. Single-use: `run()` may be called once.
 *
 * @example
 * const executor = new Executor({ prefix: '/tmp/marin' });
 * const paths = await executor.run([stats]);
 */
export class Executor {
  /** Absolute local path or URL of all outputs. */
  readonly prefix: string;
  /** Where the experiment JSON is written. */
  readonly executorInfoBasePath: string;
  /** Free-text description (not written). */
  readonly description: string | null;
  private readonly graph: VersionGraph;
  private readonly logger: ExecutorLogger;
  private readonly runner: StepRunner;
  private readonly progressStream: ProgressStream;
  private used = false;
  private lastReport: RunReport | null = null;
  private lastPlan: StepPlan[] | null = null;
  private infoPath: string | null = null;
  /** The active progress display; default log lines go through it so the live view is not torn. */
  private reporter: ProgressReporter | null = null;
  /** The output level of the current run; the default logger prints info lines only at `verbose`. */
  private verbosity: OutputLevel = 'normal';
  private readonly customLogger: boolean;

  /**
   * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT for an empty prefix or a malformed option.
   */
  constructor(options: ExecutorOptions) {
    parseExecutorOptions(options);
    this.runner = options.runner ?? new DispatchStepRunner();
    this.progressStream = options.progressStream ?? process.stderr;
    this.prefix = absolutePrefix(options.prefix);
    this.executorInfoBasePath = options.executorInfoBasePath ?? pathJoin(this.prefix, 'experiments');
    this.description = options.description ?? null;
    this.customLogger = options.logger !== undefined;
    this.logger = options.logger ?? {
      info: (m) => {
        if (this.verbosity === 'verbose') this.emit(`[executor] INFO ${m}`);
      },
      warn: (m) => {
        if (this.verbosity !== 'quiet') this.emit(`[executor] WARN ${m}`);
      },
    };
    this.graph = new VersionGraph({ prefix: this.prefix, logger: this.logger });
  }

  /** Every versioned step, dependencies first (duplicates by version appear once). */
  get steps(): readonly ExecutorStep[] {
    return this.graph.steps;
  }
  /** Version object per step. */
  get versions(): ReadonlyMap<ExecutorStep, unknown> {
    return this.graph.versions;
  }
  /** Version string (compact, sorted JSON) per step. */
  get versionStrs(): ReadonlyMap<ExecutorStep, string> {
    return this.graph.versionStrs;
  }
  /** hash6 per step. */
  get hashedVersions(): ReadonlyMap<ExecutorStep, string> {
    return this.graph.hashedVersions;
  }
  /** Output path per step object (duplicates and pseudo-only steps included). */
  get outputPaths(): ReadonlyMap<ExecutorStep, string> {
    return this.graph.outputPaths;
  }
  /** Instantiated config per step. */
  get configs(): ReadonlyMap<ExecutorStep, unknown> {
    return this.graph.configs;
  }
  /** Canonical blocking dependencies per step. */
  get dependencies(): ReadonlyMap<ExecutorStep, readonly ExecutorStep[]> {
    return this.graph.dependencies;
  }
  /** Whether each step is reached only through pseudo-dependencies. */
  get isPseudoDep(): ReadonlyMap<ExecutorStep, boolean> {
    return this.graph.isPseudoDep;
  }
  /** Path of the experiment JSON, once `run()` has computed it (also set by dry runs). */
  get executorInfoPath(): string | null {
    return this.infoPath;
  }

  /**
   * What the last `run()` did step by step (outcomes, failures with their causes, the summary
   * counts), set once steps were scheduled, also when the run failed; `null` before that and for
   * dry runs.
   */
  get report(): RunReport | null {
    return this.lastReport;
  }

  /** The plan a dry `run()` printed, or `null` when the run was not dry. */
  get lastDryRun(): StepPlan[] | null {
    return this.lastPlan;
  }

  /** Computes (memoised) the version and output path of `step` and its dependencies. */
  computeVersion(step: ExecutorStep, isPseudoDep = false): void {
    this.graph.computeVersion(step, isPseudoDep);
  }

  /** `<name>-<hash6>` of a versioned step. */
  label(step: ExecutorStep): string {
    return this.graph.label(step);
  }

  /**
   * Plans a run without writing anything: for each step to run, in run order, `skip`, `run`, `wait`
   * or `take over` with the reason, and for steps that will run a field-level diff against the
   * nearest earlier version of the same name. Does not consume the executor.
   *
   * @throws {ExecutorError} EXECUTOR_PREVIOUSLY_FAILED, EXECUTOR_VERSION_CONFLICT, EXECUTOR_CYCLE or
   * EXECUTOR_INVALID_ARGUMENT exactly as `run()` would.
   */
  async explain(steps: readonly StepEntry[], options: RunOptions = {}): Promise<StepPlan[]> {
    const prepared = await this.prepare(steps, options);
    return this.plan(prepared);
  }

  /**
   * Runs the steps (and their dependencies) as `src/run/DESIGN.md` describes. Returns the output path
   * of every step object known to the run.
   *
   * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT for a second call, bad options (`max_concurrent
   * must be a positive integer, got <n>`), bad lease timings or a remote step; EXECUTOR_CYCLE;
   * EXECUTOR_VERSION_CONFLICT before anything runs; EXECUTOR_PREVIOUSLY_FAILED (aborts the run);
   * EXECUTOR_STEP_FAILED `<n> step(s) failed` with `details.failures` and `details.completed`.
   */
  async run(steps: readonly StepEntry[], options: RunOptions = {}): Promise<Map<ExecutorStep, string>> {
    if (this.used) {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', 'this executor has already run; create a new Executor per run', {
        details: { prefix: this.prefix },
      });
    }
    this.used = true;
    const prepared = await this.prepare(steps, options);
    if (prepared.config.dryRun) {
      const plans = await this.plan(prepared);
      this.lastPlan = plans;
      // The plan is what a dry run is for: printed at every level.
      for (const line of formatPlan(plans)) {
        if (this.customLogger) this.logger.info(line);
        else this.emit(`[executor] INFO ${line}`);
      }
      return new Map(this.graph.outputPaths);
    }
    this.infoPath = await writeRunInfos(this.infoContext, prepared);
    await this.schedule(prepared);
    return new Map(this.graph.outputPaths);
  }

  private emit(line: string): void {
    if (this.reporter !== null) this.reporter.log(line);
    else this.progressStream.write(`${line}\n`);
  }

  private async prepare(entries: readonly StepEntry[], options: RunOptions): Promise<PreparedRun> {
    const config = parseRunOptions(options);
    this.verbosity = config.verbosity;
    await assertStorablePath('prefix', this.prefix);
    if (this.executorInfoBasePath !== this.prefix) await assertStorablePath('executor info base path', this.executorInfoBasePath);
    let timings: LeaseTimings;
    try {
      timings = leaseTimings();
    } catch (cause) {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', 'invalid lease timings in MARIN_LEASE_* environment variables', {
        cause,
        details: RiggingError.is(cause) ? cause.details : {},
      });
    }
    const runOnly = config.runOnly === null ? null : compileRunOnly(config.runOnly);
    const forceRun = config.forceRun === null ? null : compileRunOnly(config.forceRun, '--force-run');
    for (const entry of entries) {
      if (entry === null || entry === undefined) continue;
      let step: ExecutorStep | null;
      if (entry instanceof InputName) step = entry.step;
      else if (entry instanceof ExecutorStep) step = entry;
      else {
        throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `Unexpected type ${typeof entry} for run: ${String(entry)}`, {
          details: { entry: String(entry) },
        });
      }
      if (step === null) continue;
      this.graph.computeVersion(step, false);
    }
    const all = this.graph.steps;
    // A SUCCESS output `marin gc --delete` has marked may be gone by launch: select it (and so its
    // inputs) as if it had not succeeded; launch reclaims it (src/gc/DESIGN.md).
    const read = await mapLimit(all, IO_CONCURRENCY, async (s) => {
      const status = await readStatus(this.graph.outputPaths.get(s)!);
      return { status, marked: status === STATUS_SUCCESS && (await readGcTombstone(this.graph.outputPaths.get(s)!)) !== null };
    });
    const statuses = new Map<ExecutorStep, StepStatus | null>(all.map((s, i) => [s, read[i]!.status]));
    const marked = new Set(all.filter((_, i) => read[i]!.marked));
    const forced = new Set(forceRun === null ? [] : all.filter((s) => forceRun.some((re) => re.test(s.name))));
    if (forceRun !== null && forced.size === 0) {
      throw unmatchedPatternsError('--force-run', forceRun, all.map((s) => s.name));
    }

    const { selected: stepsToRun, pruned } = planSelection({
      steps: all,
      name: (s) => s.name,
      dependencies: (s) => this.graph.dependencies.get(s) ?? [],
      isPseudoDep: (s) => this.graph.isPseudoDep.get(s) === true,
      // A forced step is selected as if its output were missing; so is a SUCCESS output gc has marked.
      status: (s) => (forced.has(s) || marked.has(s) ? null : (statuses.get(s) ?? null)),
      forced: (s) => forced.has(s),
      runOnly,
      logger: this.logger,
    });
    // Only steps that may run must be runnable here: a remote step already completed (say, by a
    // Python executor sharing the prefix) is reused without a backend.
    for (const s of stepsToRun) if (statuses.get(s) !== STATUS_SUCCESS || forced.has(s)) this.runner.check(s, this.graph.label(s));

    const succeeded = all.filter((s) => statuses.get(s) === STATUS_SUCCESS);
    const { infoTexts, keepInfo, unversioned } = await checkSucceeded(succeeded, {
      concurrency: IO_CONCURRENCY,
      target: (s) => this.verifyTarget(s),
      config: (s) => this.graph.infoConfigs.get(s),
      forced,
      logger: this.logger,
    });
    return { config, timings, stepsToRun, pruned, statuses, infoTexts, keepInfo, forced, unversioned };
  }

  private verifyTarget(step: ExecutorStep) {
    return {
      name: step.name,
      label: this.graph.label(step),
      outputPath: this.graph.outputPaths.get(step)!,
      versionStr: this.graph.versionStrs.get(step)!,
      hash: this.graph.hashedVersions.get(step)!,
      overridden: step.overrideOutputPath !== null,
    };
  }

  private async plan(prepared: PreparedRun): Promise<StepPlan[]> {
    const infos = this.graph.steps.map((s) => buildStepInfo(this.graph, s));
    this.infoPath = experimentInfoPath(this.executorInfoBasePath, infos);
    return explainSteps({
      graph: this.graph,
      stepsToRun: prepared.stepsToRun,
      pruned: prepared.pruned,
      statuses: prepared.statuses,
      forceRunFailed: prepared.config.forceRunFailed,
      forced: prepared.forced,
      unversioned: prepared.unversioned,
      timings: prepared.timings,
      logger: this.logger,
    });
  }

  private get infoContext(): InfoWriterContext {
    return { graph: this.graph, logger: this.logger, prefix: this.prefix, executorInfoBasePath: this.executorInfoBasePath, ioConcurrency: IO_CONCURRENCY };
  }

  private async schedule(prepared: PreparedRun): Promise<void> {
    const { config } = prepared;
    const reporter: ProgressReporter = createProgressReporter({ mode: config.progress, level: config.verbosity, stream: this.progressStream, statusIntervalMs: config.statusIntervalMs });
    this.reporter = reporter;
    try {
      await this.scheduleWith(prepared, reporter);
    } finally {
      this.reporter = null;
    }
  }

  private async scheduleWith(prepared: PreparedRun, reporter: ProgressReporter): Promise<void> {
    const { config, stepsToRun, pruned } = prepared;
    const graph = this.graph;
    const aborts = new WeakSet<object>();
    for (const step of graph.steps) {
      if (pruned.has(step)) reporter.update(graph.label(step), 'skipped', 'not needed: downstream already built');
    }
    const result = await scheduleDag({
      nodes: stepsToRun,
      dependencies: (s) => graph.dependencies.get(s) ?? [],
      maxConcurrent: config.maxConcurrent,
      label: (s) => graph.label(s),
      abortsRun: (e) => typeof e === 'object' && e !== null && aborts.has(e),
      onState: (s, state, detail) => reporter.update(graph.label(s), state, detail ?? (state === 'skipped' ? 'already succeeded' : undefined)),
      failureDetail: (e) => describeFailure(e).cause,
      ...(config.signal === undefined ? {} : { stop: config.signal }),
      execute: async (step) => {
        try {
          return await this.launch(step, prepared, reporter, aborts);
        } catch (e) {
          // Storage and lease errors surface as step failures with the usual chain.
          if (ExecutorError.is(e)) throw e;
          throw stepFailed(graph.label(step), { cause: e });
        }
      },
    });
    const count = (o: string): number => [...result.outcomes.values()].filter((v) => v === o).length;
    const prunedBuilt = [...pruned.keys()].filter((s) => prepared.statuses.get(s) === STATUS_SUCCESS).length;
    const summary = {
      total: stepsToRun.length + pruned.size,
      ran: count('ran'),
      skipped: count('skipped') + prunedBuilt,
      failed: count('failed'),
      notRun: count('blocked') + count('not-started'),
      notNeeded: pruned.size - prunedBuilt,
    };
    const failureOf = new Map(result.failures.map((f) => [f.node, f.error]));
    this.lastReport = {
      summary,
      steps: [
        ...stepsToRun.map((s) => {
          const error = failureOf.get(s);
          return this.stepReport(s, result.outcomes.get(s) ?? 'not-started', error === undefined ? null : describeFailure(error));
        }),
        ...graph.steps.filter((s) => pruned.has(s)).map((s) => this.stepReport(s, 'pruned', null)),
      ],
    };
    reporter.finish(summary);
    if (config.signal?.aborted === true) {
      const stopped = result.failures.filter((f) => ExecutorError.hasCode(f.error, 'EXECUTOR_INTERRUPTED')).map((f) => graph.label(f.node));
      const reason = config.signal.reason as unknown;
      throw new ExecutorError('EXECUTOR_INTERRUPTED', reason instanceof Error ? reason.message : 'run interrupted', {
        cause: reason,
        details: { interrupted: stopped, notStarted: summary.notRun, failures: result.failures.map((f) => f.error) },
      });
    }
    if (result.abortError !== undefined) throw result.abortError;
    if (result.failures.length > 0) {
      const completed = stepsToRun
        .filter((s) => {
          const o = result.outcomes.get(s);
          return o === 'ran' || o === 'skipped';
        })
        .map((s) => graph.label(s));
      throw new ExecutorError('EXECUTOR_STEP_FAILED', `${result.failures.length} step(s) failed`, {
        cause: result.failures[0]!.error,
        details: { failures: result.failures.map((f) => f.error), completed },
      });
    }
  }

  private stepReport(step: ExecutorStep, outcome: StepOutcome, failure: FailureReport | null): StepReport {
    return { name: step.name, label: this.graph.label(step), outputPath: this.graph.outputPaths.get(step)!, outcome, failure };
  }

  /** The launch decision for one ready step, then the lease loop. */
  private async launch(
    step: ExecutorStep,
    prepared: PreparedRun,
    reporter: ProgressReporter,
    aborts: WeakSet<object>,
  ): Promise<'ran' | 'skipped'> {
    const { config, timings } = prepared;
    const graph = this.graph;
    const label = graph.label(step);
    const outputPath = graph.outputPaths.get(step)!;
    let status = await readStatus(outputPath);
    const forced = prepared.forced.has(step);
    if (status === STATUS_SUCCESS && !forced) {
      if ((await this.reclaim(step, timings)) === 'reuse') {
        await verifyOnHit(this.verifyTarget(step), this.logger, prepared.infoTexts.get(step));
        this.logger.info(`Skip ${label}: already succeeded`);
        const changed = prepared.unversioned.get(step);
        if (changed !== undefined) {
          this.logger.warn(
            `${label} reused although its unversioned config changed (${changed}); rerun it with --force-run ${JSON.stringify(`^${step.name}$`)}`,
          );
        }
        return 'skipped';
      }
      status = await readStatus(outputPath);
    }
    const prunedInputs = (graph.dependencies.get(step) ?? []).filter((d) => prepared.pruned.has(d));
    if (prunedInputs.length > 0) {
      // Its inputs were pruned because it was built; running it now would read missing inputs.
      throw stepFailed(label, {
        cause: new ExecutorError(
          'EXECUTOR_STEP_FAILED',
          `the output of ${label} vanished after its dependencies (${prunedInputs.map((d) => graph.label(d)).join(', ')}) were pruned; run again to rebuild them`,
          { details: { step: label, reason: 'pruned-output-vanished' } },
        ),
      });
    }
    if (isFailedStatus(status) && !config.forceRunFailed) {
      const err = new ExecutorError('EXECUTOR_PREVIOUSLY_FAILED', `Step ${label} failed previously. Status: ${status}`, {
        details: { step: label, status },
      });
      aborts.add(err);
      throw err;
    }
    if (step.fn === null) {
      throw stepFailed(label, { cause: new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `Step ${label} has no callable fn`, { details: { step: label } }) });
    }
    const reason = await runReason({ status, outputPath, name: step.name, version: graph.versions.get(step), forced });
    const runOnce = (initialStatus: StepStatus | null): Promise<'ran' | 'skipped'> => runUnderLease({
      label,
      outputPath,
      timings,
      forceRunFailed: config.forceRunFailed,
      force: forced,
      ...(config.signal === undefined ? {} : { interrupt: config.signal }),
      logger: this.logger,
      initialStatus,
      onState: (state, detail) => reporter.update(label, state, detail ?? (state === 'running' ? reason : undefined)),
      verifyHit: async () => {
        await verifyOnHit(this.verifyTarget(step), this.logger);
      },
      writeInfo: async () => {
        // Under the lease: a gc tombstone on an output this run is producing is void.
        await removeGcTombstone(outputPath);
        await writeOwnInfo(this.infoContext, step);
      },
      attempt: (signal) =>
        this.runner.run({
          step,
          label,
          config: graph.configs.get(step),
          infoConfig: graph.infoConfigs.get(step),
          prefix: this.prefix,
          outputPath,
          signal,
          mirrorBudgetGb: maxMirrorBudgetGb(step.config),
          logger: this.logger,
          // At verbose the same line is an info line already.
          notify: (m) => {
            if (config.verbosity === 'normal') reporter.log(`  ↳ ${m}`);
          },
          progress: stepProgress(reporter, label, config.verbosity),
        }),
    });
    try {
      let outcome = await runOnce(status);
      // Completed by another executor meanwhile: reuse it like any SUCCESS output (gc may have marked it).
      while (outcome === 'skipped' && (await this.reclaim(step, timings)) === 'gone') outcome = await runOnce(null);
      return outcome;
    } catch (e) {
      throw jobFailureOf(e, label) ?? e;
    }
  }

  private reclaim(step: ExecutorStep, timings: LeaseTimings): Promise<'reuse' | 'gone'> {
    return reclaimFromGc({ outputPath: this.graph.outputPaths.get(step)!, label: this.graph.label(step), timings, logger: this.logger });
  }
}
