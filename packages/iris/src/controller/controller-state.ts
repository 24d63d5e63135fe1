import { IrisError } from '../errors.js';
import type { LaunchJobRequest, ListJobsResponse, RegisterRequest, ReportAttemptRequest, SetUserBudgetRequest, UserBudget } from '../gen/iris/v1/controller.js';
import type { DesiredAttempt, ReconcileResponse } from '../gen/iris/v1/worker.js';
import { JobState, PriorityBand, StopReason } from '../gen/iris/v1/types.js';
import type { JobStatus, TaskStatus } from '../gen/iris/v1/types.js';
import { scheduleTick } from '../scheduler/schedule-tick.js';
import type { SchedulerLimits, SchedulingResult } from '../scheduler/types.js';
import type { ControllerDatabase } from './store/database.js';
import { EndpointRegistry } from './store/endpoint-registry.js';
import { isSameOrDescendant } from '../core/job-names.js';
import { listJobs } from './job-listing.js';
import type { JobListQuery } from './job-listing.js';
import { jobTree, killJob, killJobTree } from './lifecycle.js';
import type { LifecycleContext } from './lifecycle.js';
import { SqliteLogStore } from './store/log-store.js';
import { LogArchiveStore } from './store/log-archive-store.js';
import type { LogArchive } from './log-archive.js';
import { rootJobsFinishedBefore } from './store/queries.js';
import type { LogStore } from './store/log-store.js';
import { applyReconcileResponse, applySupervisorReport } from './observations.js';
import { planDesiredAttempts } from './reconcile-planner.js';
import { buildRunSpec } from './run-spec.js';
import { refreshReservationClaims } from './reservations.js';
import { budgetView, buildSchedulingInput, commitPreemptions, commitSchedulingResult, committedByWorker, expireAttemptTimeouts, schedulerWorkers } from './scheduling.js';
import type { PendingInfo } from './scheduling.js';
import { jobStatusOf, taskStatusOf } from './status-views.js';
import { ControllerStore } from './store/store.js';
import { submitJob } from './submit-job.js';
import { isTerminalJobState } from '../wire/task-states.js';
import { recordWorkerFailure, registerWorker, resetWorkerLiveness } from './worker-registry.js';
import type { LivenessConfig } from './worker-registry.js';

/** Options of {@link ControllerState}. */
export interface ControllerStateOptions {
  readonly db: ControllerDatabase;
  /** Injected clock (ms since epoch). @default Date.now */
  readonly clock?: () => number;
  /** Liveness settings. */
  readonly liveness: LivenessConfig;
  /** Scheduler limits. */
  readonly limits?: SchedulerLimits;
  /** Operational warnings. @default console.warn */
  readonly warn?: (message: string) => void;
  /** The credential each task of a job gets in its run spec (per-user keys). @default none */
  readonly taskToken?: (jobId: string) => string;
  /** Where task logs are archived; a job is then pruned only once its lines are all there. @default none */
  readonly logArchive?: LogArchive | undefined;
}

/** One worker's share of a tick: where to send its desired set. */
export interface ReconcilePlan {
  readonly workerId: string;
  readonly address: string;
  readonly desired: DesiredAttempt[];
  /** The uids in `desired`; observations for other uids are dropped. */
  readonly planned: ReadonlySet<string>;
}

/**
 * The controller's state machine over its SQLite database: every mutation runs in one transaction
 * and reports which jobs changed. Sockets live elsewhere (`ControlLoop`, the gRPC service), so tests
 * drive this class directly with an in-memory database and a fake clock.
 */
export class ControllerState {
  readonly store: ControllerStore;
  readonly logs: LogStore;
  readonly endpoints: EndpointRegistry;
  /** What of the task logs is archived, and the archived lines' pruning. */
  readonly logArchive: LogArchiveStore;
  /** Where task logs are archived, if anywhere. */
  readonly archive: LogArchive | undefined;
  /** Why each pending job is waiting, from the last scheduling pass (recomputed, never persisted). */
  readonly pending = new Map<string, PendingInfo>();
  private readonly clock: () => number;
  private readonly listeners = new Set<(jobIds: ReadonlySet<string>) => void>();

  constructor(private readonly options: ControllerStateOptions) {
    this.store = new ControllerStore(options.db);
    this.logs = new SqliteLogStore(options.db);
    this.endpoints = new EndpointRegistry(options.db, this.store);
    this.logArchive = new LogArchiveStore(options.db);
    this.archive = options.logArchive;
    this.clock = options.clock ?? Date.now;
  }

  /** The injected clock's reading. */
  now(): number {
    return this.clock();
  }

  /** Subscribes to job changes (state, tasks); returns the unsubscribe function. */
  onJobsChanged(listener: (jobIds: ReadonlySet<string>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Notifies log followers of new entries for these jobs. */
  notify(jobIds: ReadonlySet<string>): void {
    if (jobIds.size === 0) return;
    for (const l of this.listeners) l(jobIds);
  }

  /** Runs `fn` in one transaction with a fresh lifecycle context, then notifies listeners. */
  mutate<T>(fn: (ctx: LifecycleContext) => T): T {
    const ctx: LifecycleContext = {
      store: this.store,
      now: this.now(),
      changedJobs: new Set(),
      warn: this.options.warn ?? ((m) => console.warn(`[iris controller] ${m}`)),
    };
    const out = this.store.transaction(() => fn(ctx));
    this.notify(ctx.changedJobs);
    return out;
  }

  /** `LaunchJob`. @throws {IrisError} IRIS_INVALID_ARGUMENT, IRIS_FAILED_PRECONDITION or IRIS_ALREADY_EXISTS, as `submitJob` does. */
  launchJob(req: LaunchJobRequest): string {
    return this.mutate((ctx) => submitJob(ctx, req));
  }

  /**
   * `TerminateJob`: kills the job and (by default) all descendants, deepest first.
   * @throws {IrisError} IRIS_JOB_NOT_FOUND for an unknown job.
   */
  terminateJob(jobId: string, includeChildren = true): void {
    this.mutate((ctx) => {
      const job = this.store.job(jobId);
      if (!job) throw new IrisError('IRIS_JOB_NOT_FOUND', `job "${jobId}" not found`);
      if (includeChildren) killJobTree(ctx, jobId, StopReason.STOP_REASON_CANCELLED, 'terminated by user');
      else killJob(ctx, job, StopReason.STOP_REASON_CANCELLED, 'terminated by user');
    });
  }

  /** `Register`. */
  register(req: RegisterRequest): { workerId: string; reconnected: boolean } {
    if (req.workerId === '' || req.address === '') throw new IrisError('IRIS_INVALID_ARGUMENT', 'worker_id and address are required');
    return this.mutate((ctx) => registerWorker(ctx, req));
  }

  /** Restart recovery: every worker's liveness grace starts now. */
  resetLiveness(): void {
    this.mutate((ctx) => resetWorkerLiveness(ctx));
  }

  /**
   * Steps 1–3 of a tick in one transaction: attempt timeouts, the pure scheduler over one snapshot,
   * and the commit of its decisions; pending reasons are refreshed.
   */
  schedulingPass(): SchedulingResult {
    return this.mutate((ctx) => {
      expireAttemptTimeouts(ctx);
      const committed = committedByWorker(this.store);
      refreshReservationClaims(ctx, schedulerWorkers(this.store, committed));
      const result = scheduleTick(buildSchedulingInput(this.store, ctx.now, this.options.limits ?? {}, committed));
      commitSchedulingResult(ctx, result, committed);
      commitPreemptions(ctx, result.preemptions);
      this.pending.clear();
      for (const p of result.pendingJobs) this.pending.set(p.jobId, { reason: p.reason, canBeScheduled: p.canBeScheduled });
      return result;
    });
  }

  /** Every worker's desired set, built only from committed state. */
  planReconcile(): ReconcilePlan[] {
    return this.store.workers().map((w) => {
      const rows = this.store.liveAttemptsOnWorker(w.worker_id);
      const desired = planDesiredAttempts(
        rows.map((a) => ({ attemptUid: a.attempt_uid, taskId: a.task_id, attemptId: a.attempt_id, attemptState: a.state, stopReason: a.stop_reason })),
        (row) => buildRunSpec(this.store, rows.find((a) => a.attempt_uid === row.attemptUid)!, this.options.taskToken),
      );
      return { workerId: w.worker_id, address: w.address, desired, planned: new Set(desired.map((d) => d.attemptUid)) };
    });
  }

  /** Applies a worker's Reconcile outcome: observations on success, liveness bookkeeping on failure. */
  applyReconcileResult(plan: ReconcilePlan, result: { response: ReconcileResponse } | { error: unknown }): boolean {
    let changed = false;
    this.mutate((ctx) => {
      if ('response' in result) applyReconcileResponse(ctx, plan.workerId, plan.planned, result.response);
      else recordWorkerFailure(ctx, plan.workerId, this.options.liveness);
      changed = ctx.changedJobs.size > 0;
    });
    return changed;
  }

  /**
   * `ReportAttempt`: a task supervisor tells how an attempt ended because its worker daemon could
   * not. Applied like that worker's observation of the attempt, so a terminal attempt is never
   * rewritten. @returns whether anything changed
   */
  reportAttempt(req: ReportAttemptRequest): boolean {
    return this.mutate((ctx) => {
      applySupervisorReport(ctx, req);
      return ctx.changedJobs.size > 0;
    });
  }

  /**
   * Deletes terminal jobs (whole trees) finished before `now - retentionMs`, with tasks, attempts and
   * logs; with an archive, only trees whose lines are all archived, and each job's `log_archive` row
   * records that it was pruned (see `findPrunedJob`).
   */
  pruneJobs(retentionMs: number): number {
    let pruned = 0;
    this.mutate((ctx) => {
      const cutoff = ctx.now - retentionMs;
      for (const job_id of rootJobsFinishedBefore(this.store, cutoff)) {
        const tree = jobTree(this.store, job_id);
        if (!tree.every((j) => isTerminalJobState(j.state))) continue;
        // Never delete lines the archive does not hold yet; the archiver catches up and a later pass prunes.
        if (this.archive !== undefined && tree.some((j) => this.logArchive.hasUnarchivedLines(j.job_id))) continue;
        for (const j of tree) {
          // The archived job's row remembers how it ended and when it went, for readers of its logs.
          if (this.archive !== undefined) this.logArchive.markJobPruned({ jobId: j.job_id, submittedAtMs: j.submitted_at_ms, state: j.state, finishedAtMs: j.finished_at_ms }, ctx.now);
          this.store.deleteJob(j.job_id);
        }
        pruned += tree.length;
      }
    });
    return pruned;
  }

  /**
   * @throws {IrisError} IRIS_JOB_NOT_FOUND for an unknown job; for a pruned job whose logs are
   *   archived the message says so (the code stays, so callers that branch on it are unchanged).
   */
  getJobStatus(jobId: string, includeTasks: boolean): JobStatus {
    const job = this.store.job(jobId);
    if (!job) {
      const pruned = this.archive === undefined ? undefined : this.logArchive.prunedJob(jobId);
      const why = pruned === undefined ? '' : ` (it ended and was pruned from the controller; its logs are in the log archive: \`iris job logs ${jobId}\`)`;
      throw new IrisError('IRIS_JOB_NOT_FOUND', `job "${jobId}" not found${why}`);
    }
    return jobStatusOf(this.store, job, includeTasks, this.pending, budgetView(this.store));
  }

  /** States of several jobs; unknown ids are left out. */
  getJobStates(jobIds: readonly string[]): Record<string, JobState> {
    const out: Record<string, JobState> = {};
    for (const id of jobIds) {
      const state = this.store.jobState(id);
      if (state !== undefined) out[id] = state;
    }
    return out;
  }

  /** True when the job and (optionally) all its descendants are terminal. */
  isTreeTerminal(jobId: string, includeChildren: boolean): boolean {
    const jobs = includeChildren ? jobTree(this.store, jobId) : [this.store.job(jobId)].filter((j) => j !== undefined);
    return jobs.length > 0 && jobs.every((j) => isTerminalJobState(j.state));
  }

  /** `ListJobs` with prefix, states, roots-only, paging (limit 50 by default, max 500) and the dashboard's filters and orders. */
  listJobs(q: JobListQuery): ListJobsResponse {
    return listJobs(this.store, this.pending, budgetView(this.store), q);
  }

  /** @throws {IrisError} IRIS_JOB_NOT_FOUND for an unknown job. */
  listTasks(jobId: string): TaskStatus[] {
    if (!this.store.job(jobId)) throw new IrisError('IRIS_JOB_NOT_FOUND', `job "${jobId}" not found`);
    return this.store.tasksOfJob(jobId).map((t) => taskStatusOf(this.store, t, this.pending.get(jobId)));
  }

  /** @throws {IrisError} IRIS_NOT_FOUND for an unknown task. */
  getTaskStatus(taskId: string): TaskStatus {
    const task = this.store.task(taskId);
    if (!task) throw new IrisError('IRIS_NOT_FOUND', `task "${taskId}" not found`);
    return taskStatusOf(this.store, task, this.pending.get(task.job_id));
  }

  /**
   * `SetUserBudget`: stores a user's budget limit (0 = unlimited) and best allowed band
   * (UNSPECIFIED = no cap); applies from the next scheduling pass.
   * @throws {IrisError} IRIS_INVALID_ARGUMENT for an empty user, a negative limit or an unknown band.
   */
  setUserBudget(req: SetUserBudgetRequest): UserBudget {
    if (req.user === '') throw new IrisError('IRIS_INVALID_ARGUMENT', 'user must not be empty');
    if (!Number.isSafeInteger(req.budgetLimit) || req.budgetLimit < 0) throw new IrisError('IRIS_INVALID_ARGUMENT', 'budget_limit must be >= 0 (0 = unlimited)');
    if (![PriorityBand.PRIORITY_BAND_UNSPECIFIED, PriorityBand.PRIORITY_BAND_PRODUCTION, PriorityBand.PRIORITY_BAND_INTERACTIVE, PriorityBand.PRIORITY_BAND_BATCH].includes(req.maxBand)) {
      throw new IrisError('IRIS_INVALID_ARGUMENT', 'max_band must be PRODUCTION, INTERACTIVE, BATCH or unspecified');
    }
    this.mutate((ctx) => this.store.upsertUserBudget({ user: req.user, budget_limit: req.budgetLimit, max_band: req.maxBand, updated_at_ms: ctx.now }));
    return this.getUserBudget(req.user);
  }

  /** `GetUserBudget`: a user's limits (defaults when never set) and current spend. */
  getUserBudget(user: string): UserBudget {
    if (user === '') throw new IrisError('IRIS_INVALID_ARGUMENT', 'user must not be empty');
    const row = this.store.userBudget(user);
    const spend = budgetView(this.store).spend.get(user) ?? 0;
    return { user, budgetLimit: row?.budget_limit ?? 0, maxBand: row?.max_band ?? 0, spend, updatedAtMs: row?.updated_at_ms ?? 0 };
  }

  /** `ListUserBudgets`: every user with a stored budget or current spend, by name. */
  listUserBudgets(): UserBudget[] {
    const { spend } = budgetView(this.store);
    const rows = new Map(this.store.userBudgets().map((r) => [r.user, r]));
    const users = [...new Set([...rows.keys(), ...spend.keys()])].sort();
    return users.map((user) => {
      const row = rows.get(user);
      return { user, budgetLimit: row?.budget_limit ?? 0, maxBand: row?.max_band ?? 0, spend: spend.get(user) ?? 0, updatedAtMs: row?.updated_at_ms ?? 0 };
    });
  }

  /** Job ids of `jobId`'s subtree (for log-follow wake-ups). */
  isInTree(jobId: string, candidate: string): boolean {
    return isSameOrDescendant(candidate, jobId);
  }
}
