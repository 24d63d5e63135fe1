import { existsSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { FrayError, RemoteCallable, currentClient, findWorkspaceRoot } from '@marin/fray';
import type { BinaryEntrypoint, Client, JobHandle, JobStatus } from '@marin/fray';
import { ExponentialBackoff, pollUntil, pyJsonDumps } from '@marin/rigging';
import { ExecutorStep } from '../dag/executor-step.js';
import { InputName } from '../dag/input-name.js';
import type { StepContext } from '../dag/types.js';
import { ExecutorError, stepFailed } from '../errors.js';
import { silentLogger } from '../logger.js';
import type { ExecutorLogger } from '../logger.js';
import { VersionGraph } from '../versioning/version-graph.js';
import { callStepFunction } from './step-runner.js';
import type { StepInvocation, StepRunner } from './step-runner.js';
import { stepJobRequest } from './step-job.js';
import { buildStepReentry } from './step-reentry.js';

/**
 * How a worker re-enters this program to run one step. `executorMain` fills it
 * in: the entry script calls `executorMain` again with the same steps, sees `--run-step` and runs
 * only that step.
 */
export interface StepReentryTarget {
  /** The entry script (absolute, or relative to the working directory). */
  readonly entryScript: string;
  /** The script's own arguments; the executor's internal flags are dropped when re-entering. */
  readonly userArgs: readonly string[];
  /** Node flags to repeat (`--conditions=@marin/source --import tsx`, …). */
  readonly execArgv: readonly string[];
  /** The steps the entry script passes to `executorMain`: the DAG a worker rebuilds. */
  readonly steps: readonly (ExecutorStep | InputName | null | undefined)[];
}

/** Options of {@link FrayStepRunner}. */
export interface FrayStepRunnerOptions {
  /**
   * The client jobs go to.
   * @default `currentClient()` at each check and submission: the caller's `withClient` scope, the
   * in-task Iris backend (child jobs) inside an Iris task, else the process-wide local client
   */
  client?: Client;
  /**
   * How workers re-enter this program. Without it, steps run only on clients that execute callables
   * in-process (the local backend's default); remote backends are refused before anything is written.
   * @default null
   */
  reentry?: StepReentryTarget | null;
  /**
   * The bundle root re-entry paths are relative to.
   * @default `IRIS_WORKDIR` inside an Iris task, else the git top level of the working directory
   */
  workspace?: string;
  /** Receives "submitted as job …" lines when the invocation brings no logger. @default silent */
  logger?: ExecutorLogger;
  /** Output lines of a failed job kept in the step error. @default 50 */
  logTailLines?: number;
}

/** Whether `client` runs jobs elsewhere (so a step must re-enter its entry script there). */
function isRemoteBackend(client: Client): boolean {
  const backend = (client as { backend?: unknown }).backend;
  return backend === 'iris' || backend === 'ray';
}

function defaultWorkspace(): string {
  const workdir = process.env['IRIS_WORKDIR'];
  if (process.env['IRIS_TASK_ID'] && workdir) return workdir;
  return findWorkspaceRoot();
}

function failedStatusOf(error: unknown): JobStatus {
  if (FrayError.hasCode(error, 'FRAY_JOB_FAILED')) {
    const status = (error as { failedStatus?: unknown }).failedStatus;
    if (status === 'failed' || status === 'stopped') return status;
  }
  return 'failed';
}

/**
 * Runs a step as one Fray job: resources from the step, else from its
 * `RemoteCallable`, else `withCpu()`; the job runs the step function in-process on the local backend
 * and re-enters the entry script with `--run-step <outputPath>` elsewhere. The executor keeps the
 * lease, the heartbeat and the status; the job only computes. When the invocation's signal aborts
 * (lease lost) the job is terminated.
 */
export class FrayStepRunner implements StepRunner {
  private readonly client: Client | null;
  private readonly reentry: StepReentryTarget | null;
  private readonly workspaceOption: string | null;
  private readonly logger: ExecutorLogger;
  private readonly logTailLines: number;
  private workspaceRoot: string | null = null;
  private readonly active = new Set<JobHandle>();
  /** Terminations in flight, so a second caller waits for the first instead of returning early. */
  private readonly stopping = new Map<JobHandle, Promise<void>>();
  /** Labels of the DAG the entry script rebuilds, computed once. */
  private reentryLabels: Set<string> | null = null;

  /** @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT for a malformed option. */
  constructor(options: FrayStepRunnerOptions = {}) {
    const tail = options.logTailLines ?? 50;
    if (!Number.isInteger(tail) || tail < 0) {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `logTailLines must be a non-negative integer, got ${String(tail)}`, {
        details: { field: 'logTailLines' },
      });
    }
    if (options.client !== undefined && (typeof options.client !== 'object' || typeof options.client.submit !== 'function')) {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', 'client must be a Fray Client', { details: { field: 'client' } });
    }
    this.client = options.client ?? null;
    this.reentry = options.reentry ?? null;
    this.workspaceOption = options.workspace ?? null;
    this.logger = options.logger ?? silentLogger;
    this.logTailLines = tail;
  }

  private currentClient(): Client {
    return this.client ?? currentClient();
  }

  private workspace(): string {
    this.workspaceRoot ??= resolve(this.workspaceOption ?? defaultWorkspace());
    return this.workspaceRoot;
  }

  /**
   * Checks, before anything is written, that the step can run as a job on the current client: it
   * has a function, and on a remote backend a re-entry target exists whose entry script lies inside
   * the workspace bundle and whose rebuilt DAG contains the step.
   *
   * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT explaining what a worker could not do.
   */
  check(step: ExecutorStep, label: string): void {
    if (step.fn !== null && typeof step.fn !== 'function' && !RemoteCallable.is(step.fn)) {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `step ${label}: fn must be a function or a RemoteCallable`, { details: { step: label } });
    }
    if (!isRemoteBackend(this.currentClient())) return;
    const target = this.reentry;
    if (target === null) {
      throw new ExecutorError(
        'EXECUTOR_INVALID_ARGUMENT',
        `step ${label} must run as a job on a remote Fray backend, which re-enters the entry script with --run-step, but this executor was not started by executorMain, so no entry script is known to rebuild the step; call executorMain({ steps }) from the entry script`,
        { details: { step: label, reason: 'no-entry-script' } },
      );
    }
    const script = resolve(target.entryScript);
    if (!existsSync(script)) {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `step ${label}: entry script "${script}" does not exist, so a worker cannot re-enter it`, {
        details: { step: label, entryScript: script, reason: 'entry-script-missing' },
      });
    }
    const workspace = this.workspace();
    const rel = relative(workspace, script);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
      throw new ExecutorError(
        'EXECUTOR_INVALID_ARGUMENT',
        `step ${label}: entry script "${script}" is outside the workspace "${workspace}" that workers receive, so a worker cannot re-enter it; move the script into the workspace`,
        { details: { step: label, entryScript: script, workspace, reason: 'entry-script-outside-workspace' } },
      );
    }
    if (!this.rebuiltLabels(target).has(label)) {
      throw new ExecutorError(
        'EXECUTOR_INVALID_ARGUMENT',
        `step ${label} is not in the DAG that entry script "${script}" passes to executorMain, so a worker re-entering it would not find the step; run it through executorMain's steps`,
        { details: { step: label, entryScript: script, reason: 'step-not-in-entry-dag' } },
      );
    }
  }

  private rebuiltLabels(target: StepReentryTarget): Set<string> {
    if (this.reentryLabels === null) {
      // Hashes do not depend on the prefix, so any prefix yields the worker's labels.
      const graph = new VersionGraph({ prefix: '/', logger: silentLogger });
      for (const entry of target.steps) {
        const step = stepOf(entry);
        if (step !== null) graph.computeVersion(step, false);
      }
      this.reentryLabels = new Set(graph.steps.map((s) => graph.label(s)));
    }
    return this.reentryLabels;
  }

  /**
   * Submits the step's job, waits for it and terminates it when `signal` aborts.
   *
   * @throws {ExecutorError} EXECUTOR_STEP_FAILED `Step failed: <label>; status=<status>` when the job
   * ends failed or stopped (`details.jobId`, `details.status`, `details.logTail`; the cause chain holds
   * Fray's `JobFailed` and, for jobs that printed output, the tail of that output); the abort reason
   * when the signal aborts; Fray's error when the submission is refused.
   */
  async run(inv: StepInvocation): Promise<void> {
    const { step, label, signal } = inv;
    const client = this.currentClient();
    const ctx: StepContext = { name: step.name, outputPath: inv.outputPath, signal };
    const reentry = this.reentryEntrypoint(inv);
    const request = stepJobRequest({
      label,
      remote: RemoteCallable.is(step.fn) ? step.fn : null,
      resources: step.resources,
      run: () => callStepFunction({ step, label, config: inv.config, ctx, mirrorBudgetGb: inv.mirrorBudgetGb }),
      ...(reentry === undefined ? {} : { reentry }),
    });
    const logger = inv.logger ?? this.logger;
    const job = await client.submit(request, { adoptExisting: false });
    this.active.add(job);
    logger.info(`Step ${label} submitted as Fray job ${job.jobId}`);
    inv.notify?.(`Step ${label} submitted as Fray job ${job.jobId}`);
    const onAbort = (): void => {
      void this.stop(job, logger, ` of ${label}`);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    const settled = new AbortController();
    const reporting = reportPendingReasons(job, label, logger, settled.signal);
    try {
      await job.wait(STEP_JOB_WAIT);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw await this.stepFailure(label, job, error);
    } finally {
      settled.abort();
      await reporting;
      signal.removeEventListener('abort', onAbort);
      this.active.delete(job);
    }
  }

  /** Jobs submitted by this runner that have not settled yet. */
  get activeJobs(): readonly JobHandle[] {
    return [...this.active];
  }

  /**
   * Terminates every job still running (what `executorMain` does when the executor is interrupted,
   * so no job computes on with nobody to record its result). Errors are logged, not thrown.
   */
  async terminateActiveJobs(logger: ExecutorLogger = this.logger): Promise<void> {
    await Promise.all([...new Set([...this.active, ...this.stopping.keys()])].map((job) => this.stop(job, logger, '')));
  }

  /**
   * Terminates `job` once and resolves when its termination has finished (a backend's `terminate`
   * waits for its processes; a second call to it may return at once), so a caller that exits next
   * leaves no job computing. Errors are logged.
   */
  private stop(job: JobHandle, logger: ExecutorLogger, what: string): Promise<void> {
    let p = this.stopping.get(job);
    if (p === undefined) {
      p = (async () => {
        try {
          await job.terminate();
          await job.wait({ raiseOnFailure: false, timeoutMs: TERMINATE_WAIT_MS, pollInitialMs: 50 });
        } catch (e) {
          logger.warn(`could not terminate job ${job.jobId}${what}: ${String(e)}`);
        } finally {
          this.stopping.delete(job);
        }
      })();
      this.stopping.set(job, p);
    }
    return p;
  }

  private reentryEntrypoint(inv: StepInvocation): BinaryEntrypoint | undefined {
    const target = this.reentry;
    if (target === null) return undefined;
    return buildStepReentry({
      outputPath: inv.outputPath,
      prefix: inv.prefix,
      stepConfigJson: pyJsonDumps(inv.infoConfig ?? inv.config, { strict: false, onWarning: () => {} }),
      entryScript: target.entryScript,
      userArgs: target.userArgs,
      execArgv: target.execArgv,
      workspace: this.workspace(),
    });
  }

  private async stepFailure(label: string, job: JobHandle, error: unknown): Promise<ExecutorError> {
    const status = failedStatusOf(error);
    const logTail = this.logTailLines === 0 ? [] : await job.logs({ maxLines: this.logTailLines }).catch(() => [] as string[]);
    // The remote error text reaches the caller through the job's output (a worker prints its error).
    const cause =
      logTail.length === 0
        ? error
        : new ExecutorError('EXECUTOR_STEP_FAILED', `job ${job.jobId} ${status}; its output ends with:\n${logTail.join('\n')}`, {
            cause: error,
            details: { jobId: job.jobId, logTail },
          });
    return stepFailed(label, { cause, status, details: { jobId: job.jobId, status, logTail } });
  }
}

/**
 * How the runner waits on a job: short remote steps are dominated by how soon their end is seen, so it
 * asks for a finer re-poll schedule (50 ms ×1.25, capped at 2 s) than Fray's default (100 ms ×1.5).
 * On lease loss the job is terminated, so the wait settles with `stopped`.
 */
const STEP_JOB_WAIT = { raiseOnFailure: true, pollInitialMs: 50, pollBackoff: 1.25 } as const;
/** Longest wait for a terminated job to end in `terminateActiveJobs`. */
const TERMINATE_WAIT_MS = 8_000;

/** How often a waiting job's pending reason is re-read: 500 ms, ×1.5, capped at 10 s. */
const PENDING_REASON_POLL = { initialMs: 500, factor: 1.5, maximumMs: 10_000, jitter: 0 } as const;

/**
 * Logs why the step's job is not running (`step <label> waiting: <reason>`) when a reason first appears and
 * whenever it changes, until `stop` aborts. A failed look-up is skipped: the job's wait reports real trouble.
 */
async function reportPendingReasons(job: JobHandle, label: string, logger: ExecutorLogger, stop: AbortSignal): Promise<void> {
  let last: string | undefined;
  const check = async (): Promise<boolean> => {
    if (stop.aborted) return true;
    const reason = await job.pendingReason().catch(() => last);
    if (stop.aborted) return true;
    if (reason !== undefined && reason !== last) logger.info(`step ${label} waiting: ${reason}`);
    last = reason;
    return false;
  };
  await pollUntil(check, { interval: new ExponentialBackoff(PENDING_REASON_POLL), signal: stop }).catch(() => undefined);
}

/** The step an executorMain entry names (a step or a reference to one), or `null`. */
function stepOf(entry: ExecutorStep | InputName | null | undefined): ExecutorStep | null {
  if (entry instanceof ExecutorStep) return entry;
  if (entry instanceof InputName) return entry.step;
  return null;
}
