// The dashboard's JSON API: what each route returns. The browser code imports these types, so the
// server and the page are checked against one contract.
import type { JobInfo, JobState, LogEntry, PriorityBand, TaskInfo, UserBudget, WorkerInfo } from '../client/job-types.js';
import type { JobSortKey } from '../controller/job-listing.js';

export type { JobInfo, JobState, LogEntry, PriorityBand, TaskInfo, UserBudget, WorkerInfo, JobSortKey };

/** `GET /api/overview`: the header line and which optional views exist. */
export interface OverviewResponse {
  readonly version: string;
  readonly startedAtMs: number;
  readonly workerCount: number;
  readonly jobCounts: Readonly<Record<string, number>>;
  /** Priority bands the scheduler knows, best first. */
  readonly bands: readonly PriorityBand[];
  /** Views backed by controller features; the autoscaler (slices and scale groups) does not exist yet. */
  readonly features: { readonly budgets: boolean; readonly autoscaler: boolean };
}

/** `GET /api/jobs?state=&user=&band=&prefix=&roots=&sort=&dir=&offset=&limit=`. */
export interface JobListResponse {
  readonly jobs: readonly JobInfo[];
  readonly totalCount: number;
  readonly hasMore: boolean;
}

/** A task with what the dashboard shows beyond {@link TaskInfo}. */
export interface TaskView extends TaskInfo {
  /** Sampled usage of the current attempt, when the worker reported one. */
  readonly usage: { readonly cpuMillicores: number; readonly memoryBytes: number; readonly peakMemoryBytes: number; readonly processCount: number } | null;
  /** The band the current attempt was placed in, when placed. */
  readonly band: PriorityBand | null;
}

/** `GET /api/job?id=`: one job, its tasks and its direct children. */
export interface JobDetailResponse {
  readonly job: JobInfo;
  readonly tasks: readonly TaskView[];
  readonly children: readonly JobInfo[];
}

/** `GET /api/logs?id=&cursor=&tail=`: one page of a job's logs (children included). */
export interface LogPageResponse {
  readonly entries: readonly LogEntry[];
  readonly cursor: string;
  readonly truncated: boolean;
}

/**
 * One server-sent event of `GET /api/logs/stream?id=` (event name `logs`): new lines and the job's
 * state; `done` once the job and its children are terminal, after which the server closes the stream.
 */
export interface LogStreamEvent {
  readonly entries: readonly LogEntry[];
  readonly jobState: JobState;
  readonly done: boolean;
}

/** A worker with the tasks it is running. */
export interface WorkerView extends WorkerInfo {
  readonly registeredAtMs: number;
  /** The TPU slice (`tpu-name` attribute) the worker belongs to, if any. */
  readonly slice: string | null;
  readonly tasks: readonly { readonly taskId: string; readonly jobId: string; readonly state: string; readonly attemptId: number }[];
}

/** `GET /api/workers`. */
export interface WorkersResponse {
  readonly workers: readonly WorkerView[];
}

/** `GET /api/budgets`. */
export interface BudgetsResponse {
  readonly budgets: readonly UserBudget[];
}

/** One experiment file under `<prefix>/experiments/`. */
export interface ExperimentSummary {
  readonly file: string;
  /** The file name without its hash and extension. */
  readonly name: string;
  readonly createdDate: string | null;
  readonly callerPath: string | null;
  readonly stepCount: number;
  readonly mtimeMs: number;
}

/** `GET /api/experiments?prefix=`. */
export interface ExperimentListResponse {
  readonly prefix: string;
  readonly experiments: readonly ExperimentSummary[];
}

/** One changed leaf between two step versions: `~` changed, `+` added, `-` removed. */
export interface VersionChange {
  readonly kind: '~' | '+' | '-';
  readonly path: string;
  readonly before?: string;
  readonly after?: string;
}

/** One step of an experiment. */
export interface ExperimentStepView {
  readonly index: number;
  readonly name: string;
  readonly fnName: string | null;
  readonly outputPath: string;
  /** `.executor_status` (SUCCESS, FAILED, RUNNING, …); null when the step never ran. */
  readonly status: string | null;
  /** Indexes of the steps this one reads. */
  readonly dependencies: readonly number[];
  /** Inputs that are not steps of this file (paths). */
  readonly externalDependencies: readonly string[];
  /** The previous run of this step (another version of it) and the version diff against it. */
  readonly previousRun: { readonly outputPath: string; readonly changes: readonly VersionChange[] } | null;
  /** Jobs of this controller that ran the step remotely. */
  readonly jobs: readonly { readonly jobId: string; readonly state: JobState }[];
}

/** `GET /api/experiment?prefix=&file=`. */
export interface ExperimentView {
  readonly file: string;
  readonly prefix: string;
  readonly createdDate: string | null;
  readonly callerPath: string | null;
  readonly steps: readonly ExperimentStepView[];
}

/** Every error body: the Iris error code and a message. */
export interface ApiError {
  readonly code: string;
  readonly message: string;
}
