import type { Statement } from 'better-sqlite3';
import { LaunchJobRequest } from '../../gen/iris/v1/controller.js';
import { JobState, StopReason, TaskState, WorkerMetadata } from '../../gen/iris/v1/types.js';
import type { ControllerDatabase } from './database.js';
import { RESERVATION_HOLDER_NAME } from '../../core/job-names.js';
import { IrisError } from '../../errors.js';

const HOLDER_SUFFIX = `/${RESERVATION_HOLDER_NAME}`;

/**
 * A `jobs` row. The encoded request is written with the row but not read back with it: the store's
 * readers leave the blob out (a scheduling tick reads every pending and live job), and `request()`
 * decodes it once per job and caches it.
 */
export interface JobRow {
  job_id: string;
  parent_id: string | null;
  root_id: string;
  user: string;
  depth: number;
  request?: Buffer | undefined;
  state: JobState;
  error: string;
  exit_code: number;
  submitted_at_ms: number;
  root_submitted_at_ms: number;
  started_at_ms: number;
  finished_at_ms: number;
  seq: number;
  scheduling_deadline_ms: number;
}

/** A `tasks` row. */
export interface TaskRow {
  task_id: string;
  job_id: string;
  task_index: number;
  state: TaskState;
  current_attempt_id: number;
  failure_count: number;
  preemption_count: number;
  max_retries_failure: number;
  max_retries_preemption: number;
  error: string;
  exit_code: number;
  started_at_ms: number;
  finished_at_ms: number;
}

/** An `attempts` row. `state` is the last state the worker confirmed (ASSIGNED until it reports). */
export interface AttemptRow {
  task_id: string;
  attempt_id: number;
  attempt_uid: string;
  worker_id: string;
  state: TaskState;
  stop_reason: StopReason;
  exit_code: number;
  error: string;
  created_at_ms: number;
  started_at_ms: number;
  finished_at_ms: number;
  is_worker_failure: number;
  gang: string | null;
  usage: string | null;
  ports: string | null;
  /** The band stamped at assignment (a `PriorityBand` value; 0 for attempts older than bands). */
  priority_band: number;
  /** A `TaskState` a supervisor reported after the attempt had already ended otherwise; 0 = none. */
  late_state: number;
  late_exit_code: number;
  late_reported_at_ms: number;
}

/** A `user_budgets` row. */
export interface UserBudgetRow {
  user: string;
  budget_limit: number;
  /** A `PriorityBand` value; 0 = no cap. */
  max_band: number;
  updated_at_ms: number;
}

/** A `reservation_claims` row: the worker a holder task (one reservation entry) claimed. */
export interface ReservationClaimRow {
  holder_task_id: string;
  job_id: string;
  worker_id: string;
  claimed_at_ms: number;
}

/** A `workers` row. */
export interface WorkerRow {
  worker_id: string;
  boot_id: string;
  address: string;
  metadata: Buffer;
  attributes: string;
  registered_at_ms: number;
  registration_seq: number;
  last_contact_ms: number;
  first_failure_ms: number;
  consecutive_failures: number;
}

/** Every column of `jobs` but the request blob. */
const JOB_COLUMNS = `job_id, parent_id, root_id, user, depth, state, error, exit_code, submitted_at_ms, root_submitted_at_ms,
  started_at_ms, finished_at_ms, seq, scheduling_deadline_ms`;

const LIVE = `(${TaskState.TASK_STATE_ASSIGNED}, ${TaskState.TASK_STATE_BUILDING}, ${TaskState.TASK_STATE_RUNNING})`;
const TERMINAL_JOB = `(${JobState.JOB_STATE_SUCCEEDED}, ${JobState.JOB_STATE_FAILED}, ${JobState.JOB_STATE_KILLED}, ${JobState.JOB_STATE_WORKER_FAILED}, ${JobState.JOB_STATE_UNSCHEDULABLE})`;

/**
 * Row access for the controller database: prepared statements and decoded-request caching. It
 * holds no policy; the lifecycle, submission and scheduling modules decide what to write.
 */
export class ControllerStore {
  private readonly requests = new Map<string, LaunchJobRequest>();
  private readonly metadata = new Map<string, { boot: string; meta: WorkerMetadata }>();
  private readonly stmts: Record<string, Statement>;

  constructor(readonly db: ControllerDatabase) {
    const p = (sql: string) => db.prepare(sql);
    this.stmts = {
      job: p(`SELECT ${JOB_COLUMNS} FROM jobs WHERE job_id = ?`),
      jobRequest: p('SELECT request FROM jobs WHERE job_id = ?'),
      jobState: p('SELECT state FROM jobs WHERE job_id = ?').pluck(),
      metaValue: p('SELECT value FROM meta WHERE key = ?').pluck(),
      setMetaValue: p('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
      jobsByIds: p(`SELECT ${JOB_COLUMNS} FROM jobs WHERE job_id IN (SELECT value FROM json_each(?))`),
      tasksOfPendingJobs: p(`SELECT * FROM tasks WHERE job_id IN (SELECT job_id FROM tasks WHERE state = ${TaskState.TASK_STATE_PENDING}) ORDER BY job_id, task_index`),
      pendingTasksWithLiveAttempt: p(`SELECT DISTINCT a.task_id FROM tasks t JOIN attempts a ON a.task_id = t.task_id
        WHERE t.state = ${TaskState.TASK_STATE_PENDING} AND a.state IN ${LIVE}`).pluck(),
      insertJob: p(`INSERT INTO jobs (job_id, parent_id, root_id, user, depth, request, state, error, exit_code, submitted_at_ms,
        root_submitted_at_ms, started_at_ms, finished_at_ms, seq, scheduling_deadline_ms) VALUES (@job_id, @parent_id, @root_id, @user,
        @depth, @request, @state, @error, @exit_code, @submitted_at_ms, @root_submitted_at_ms, @started_at_ms, @finished_at_ms, @seq,
        @scheduling_deadline_ms)`),
      updateJob: p(`UPDATE jobs SET state = @state, error = @error, exit_code = @exit_code, started_at_ms = @started_at_ms,
        finished_at_ms = @finished_at_ms WHERE job_id = @job_id`),
      deleteJob: p('DELETE FROM jobs WHERE job_id = ?'),
      childJobs: p(`SELECT ${JOB_COLUMNS} FROM jobs WHERE parent_id = ? ORDER BY seq`),
      activeJobs: p(`SELECT ${JOB_COLUMNS} FROM jobs WHERE state NOT IN ${TERMINAL_JOB} ORDER BY seq`),
      activeHolderJobs: p(`SELECT ${JOB_COLUMNS} FROM jobs WHERE state NOT IN ${TERMINAL_JOB} AND substr(job_id, -${HOLDER_SUFFIX.length}) = '${HOLDER_SUFFIX}' ORDER BY seq`),
      task: p('SELECT * FROM tasks WHERE task_id = ?'),
      tasksOfJob: p('SELECT * FROM tasks WHERE job_id = ? ORDER BY task_index'),
      insertTask: p(`INSERT INTO tasks (task_id, job_id, task_index, state, max_retries_failure, max_retries_preemption)
        VALUES (@task_id, @job_id, @task_index, @state, @max_retries_failure, @max_retries_preemption)`),
      updateTask: p(`UPDATE tasks SET state = @state, current_attempt_id = @current_attempt_id, failure_count = @failure_count,
        preemption_count = @preemption_count, error = @error, exit_code = @exit_code, started_at_ms = @started_at_ms,
        finished_at_ms = @finished_at_ms WHERE task_id = @task_id`),
      pendingTasks: p(`SELECT * FROM tasks WHERE state = ${TaskState.TASK_STATE_PENDING}`),
      attempt: p('SELECT * FROM attempts WHERE task_id = ? AND attempt_id = ?'),
      attemptByUid: p('SELECT * FROM attempts WHERE attempt_uid = ?'),
      attemptsOfTask: p('SELECT * FROM attempts WHERE task_id = ? ORDER BY attempt_id'),
      liveAttempts: p(`SELECT * FROM attempts WHERE state IN ${LIVE}`),
      liveAttemptsOnWorker: p(`SELECT * FROM attempts WHERE worker_id = ? AND state IN ${LIVE} ORDER BY created_at_ms, attempt_uid`),
      liveAttemptOfTask: p(`SELECT * FROM attempts WHERE task_id = ? AND state IN ${LIVE} LIMIT 1`),
      insertAttempt: p(`INSERT INTO attempts (task_id, attempt_id, attempt_uid, worker_id, state, created_at_ms, gang, priority_band)
        VALUES (@task_id, @attempt_id, @attempt_uid, @worker_id, @state, @created_at_ms, @gang, @priority_band)`),
      updateAttempt: p(`UPDATE attempts SET state = @state, stop_reason = @stop_reason, exit_code = @exit_code, error = @error,
        started_at_ms = @started_at_ms, finished_at_ms = @finished_at_ms, is_worker_failure = @is_worker_failure, usage = @usage,
        ports = @ports WHERE attempt_uid = @attempt_uid`),
      recordLateOutcome: p(`UPDATE attempts SET late_state = @late_state, late_exit_code = @late_exit_code,
        late_reported_at_ms = @late_reported_at_ms WHERE attempt_uid = @attempt_uid`),
      uidTaken: p('SELECT 1 FROM attempts WHERE attempt_uid = ?'),
      worker: p('SELECT * FROM workers WHERE worker_id = ?'),
      workers: p('SELECT * FROM workers ORDER BY registration_seq'),
      insertWorker: p(`INSERT INTO workers (worker_id, boot_id, address, metadata, attributes, registered_at_ms, registration_seq,
        last_contact_ms) VALUES (@worker_id, @boot_id, @address, @metadata, @attributes, @registered_at_ms, @registration_seq,
        @last_contact_ms)`),
      updateWorkerLiveness: p(`UPDATE workers SET last_contact_ms = @last_contact_ms, first_failure_ms = @first_failure_ms,
        consecutive_failures = @consecutive_failures WHERE worker_id = @worker_id`),
      deleteWorker: p('DELETE FROM workers WHERE worker_id = ?'),
      deleteEndpointsOfTask: p('DELETE FROM endpoints WHERE task_id = ?'),
      userBudget: p('SELECT * FROM user_budgets WHERE user = ?'),
      userBudgets: p('SELECT * FROM user_budgets ORDER BY user'),
      upsertUserBudget: p(`INSERT INTO user_budgets (user, budget_limit, max_band, updated_at_ms) VALUES (@user, @budget_limit, @max_band, @updated_at_ms)
        ON CONFLICT(user) DO UPDATE SET budget_limit = excluded.budget_limit, max_band = excluded.max_band, updated_at_ms = excluded.updated_at_ms`),
      claims: p('SELECT * FROM reservation_claims ORDER BY claimed_at_ms, holder_task_id'),
      insertClaim: p('INSERT INTO reservation_claims (holder_task_id, job_id, worker_id, claimed_at_ms) VALUES (@holder_task_id, @job_id, @worker_id, @claimed_at_ms)'),
      deleteClaim: p('DELETE FROM reservation_claims WHERE holder_task_id = ?'),
    };
  }

  private s(name: string): Statement {
    return this.stmts[name]!;
  }

  /** Runs `fn` in one SQLite transaction (nested calls join the outer one). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /** Next value of the monotonic insertion sequence (persisted in `meta`). */
  nextSeq(key: 'job_seq' | 'worker_seq'): number {
    // Prepared once: every submit takes a sequence number.
    const value = this.s('metaValue').get(key) as string | undefined;
    const next = (value === undefined ? 0 : Number(value)) + 1;
    this.s('setMetaValue').run(key, String(next));
    return next;
  }

  job(jobId: string): JobRow | undefined {
    return this.s('job').get(jobId) as JobRow | undefined;
  }

  /** The rows of the given jobs (those that exist) by id, in one query. */
  jobsByIds(jobIds: Iterable<string>): Map<string, JobRow> {
    const rows = this.s('jobsByIds').all(JSON.stringify([...jobIds])) as JobRow[];
    return new Map(rows.map((r) => [r.job_id, r]));
  }

  /** Every task (in `task_index` order) of the jobs that have a PENDING task, by job id, in one query. */
  tasksOfPendingJobs(): Map<string, TaskRow[]> {
    const out = new Map<string, TaskRow[]>();
    for (const t of this.s('tasksOfPendingJobs').all() as TaskRow[]) {
      const list = out.get(t.job_id);
      if (list === undefined) out.set(t.job_id, [t]);
      else list.push(t);
    }
    return out;
  }

  /** PENDING tasks that still have a live attempt (one being stopped before a retry). */
  pendingTasksWithLiveAttempt(): Set<string> {
    return new Set(this.s('pendingTasksWithLiveAttempt').all() as string[]);
  }

  /** A job's state alone (what a client polling many jobs asks for); undefined when there is no such job. */
  jobState(jobId: string): JobState | undefined {
    return this.s('jobState').get(jobId) as JobState | undefined;
  }

  /** The decoded (effective, post-merge) request of a job; cached, since requests never change. */
  request(job: JobRow): LaunchJobRequest {
    const r = this.requests.get(job.job_id) ?? this.#loadRequest(job.job_id, job.request);
    if (r === undefined) throw new IrisError('IRIS_INTERNAL', `job "${job.job_id}" has no stored request`);
    return r;
  }

  /** The decoded request of a job by id, without reading its row; undefined once the job is gone. */
  requestOf(jobId: string): LaunchJobRequest | undefined {
    return this.requests.get(jobId) ?? this.#loadRequest(jobId, undefined);
  }

  #loadRequest(jobId: string, blob: Buffer | undefined): LaunchJobRequest | undefined {
    const bytes = blob ?? (this.s('jobRequest').get(jobId) as { request: Buffer } | undefined)?.request;
    if (bytes === undefined) return undefined;
    const r = LaunchJobRequest.decode(bytes);
    this.requests.set(jobId, r);
    return r;
  }

  insertJob(row: JobRow & { request: Buffer }): void {
    this.requests.delete(row.job_id);
    this.s('insertJob').run(row);
  }

  updateJob(row: JobRow): void {
    this.s('updateJob').run(row);
  }

  /** Deletes a job row; tasks, attempts and endpoints go by cascade, logs explicitly. */
  deleteJob(jobId: string): void {
    this.requests.delete(jobId);
    this.db.prepare('DELETE FROM logs WHERE job_id = ?').run(jobId);
    this.s('deleteJob').run(jobId);
  }

  childJobs(jobId: string): JobRow[] {
    return this.s('childJobs').all(jobId) as JobRow[];
  }

  activeJobs(): JobRow[] {
    return this.s('activeJobs').all() as JobRow[];
  }

  /** Active reservation holder jobs (`<job>/:reservation:`), oldest first. */
  activeHolderJobs(): JobRow[] {
    return this.s('activeHolderJobs').all() as JobRow[];
  }

  task(taskId: string): TaskRow | undefined {
    return this.s('task').get(taskId) as TaskRow | undefined;
  }

  tasksOfJob(jobId: string): TaskRow[] {
    return this.s('tasksOfJob').all(jobId) as TaskRow[];
  }

  insertTask(row: Pick<TaskRow, 'task_id' | 'job_id' | 'task_index' | 'state' | 'max_retries_failure' | 'max_retries_preemption'>): void {
    this.s('insertTask').run(row);
  }

  updateTask(row: TaskRow): void {
    this.s('updateTask').run(row);
  }

  pendingTasks(): TaskRow[] {
    return this.s('pendingTasks').all() as TaskRow[];
  }

  attempt(taskId: string, attemptId: number): AttemptRow | undefined {
    return this.s('attempt').get(taskId, attemptId) as AttemptRow | undefined;
  }

  attemptByUid(uid: string): AttemptRow | undefined {
    return this.s('attemptByUid').get(uid) as AttemptRow | undefined;
  }

  attemptsOfTask(taskId: string): AttemptRow[] {
    return this.s('attemptsOfTask').all(taskId) as AttemptRow[];
  }

  /** Attempts that may still hold resources somewhere (ASSIGNED, BUILDING, RUNNING). */
  liveAttempts(): AttemptRow[] {
    return this.s('liveAttempts').all() as AttemptRow[];
  }

  liveAttemptsOnWorker(workerId: string): AttemptRow[] {
    return this.s('liveAttemptsOnWorker').all(workerId) as AttemptRow[];
  }

  liveAttemptOfTask(taskId: string): AttemptRow | undefined {
    return this.s('liveAttemptOfTask').get(taskId) as AttemptRow | undefined;
  }

  insertAttempt(row: Pick<AttemptRow, 'task_id' | 'attempt_id' | 'attempt_uid' | 'worker_id' | 'state' | 'created_at_ms' | 'gang' | 'priority_band'>): void {
    this.s('insertAttempt').run(row);
  }

  updateAttempt(row: AttemptRow): void {
    this.s('updateAttempt').run(row);
  }

  /** Keeps a supervisor's report about an attempt that had already ended otherwise; the attempt's own state stays. */
  recordLateOutcome(row: Pick<AttemptRow, 'attempt_uid' | 'late_state' | 'late_exit_code' | 'late_reported_at_ms'>): void {
    this.s('recordLateOutcome').run(row);
  }

  uidTaken(uid: string): boolean {
    return this.s('uidTaken').get(uid) !== undefined;
  }

  worker(workerId: string): WorkerRow | undefined {
    return this.s('worker').get(workerId) as WorkerRow | undefined;
  }

  /** Registered workers in registration order. */
  workers(): WorkerRow[] {
    return this.s('workers').all() as WorkerRow[];
  }

  /** Decoded registration metadata of a worker row (cached per boot). */
  workerMetadata(row: WorkerRow): WorkerMetadata {
    const hit = this.metadata.get(row.worker_id);
    if (hit && hit.boot === `${row.boot_id}:${row.registration_seq}`) return hit.meta;
    const meta = WorkerMetadata.decode(row.metadata);
    this.metadata.set(row.worker_id, { boot: `${row.boot_id}:${row.registration_seq}`, meta });
    return meta;
  }

  insertWorker(row: Omit<WorkerRow, 'first_failure_ms' | 'consecutive_failures'>): void {
    this.s('insertWorker').run(row);
  }

  updateWorkerLiveness(row: Pick<WorkerRow, 'worker_id' | 'last_contact_ms' | 'first_failure_ms' | 'consecutive_failures'>): void {
    this.s('updateWorkerLiveness').run(row);
  }

  deleteWorker(workerId: string): void {
    this.metadata.delete(workerId);
    this.s('deleteWorker').run(workerId);
  }

  deleteEndpointsOfTask(taskId: string): void {
    this.s('deleteEndpointsOfTask').run(taskId);
  }

  userBudget(user: string): UserBudgetRow | undefined {
    return this.s('userBudget').get(user) as UserBudgetRow | undefined;
  }

  userBudgets(): UserBudgetRow[] {
    return this.s('userBudgets').all() as UserBudgetRow[];
  }

  upsertUserBudget(row: UserBudgetRow): void {
    this.s('upsertUserBudget').run(row);
  }

  /** Every reservation claim, oldest first. */
  claims(): ReservationClaimRow[] {
    return this.s('claims').all() as ReservationClaimRow[];
  }

  insertClaim(row: ReservationClaimRow): void {
    this.s('insertClaim').run(row);
  }

  deleteClaim(holderTaskId: string): void {
    this.s('deleteClaim').run(holderTaskId);
  }
}
