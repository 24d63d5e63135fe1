// The dashboard's JSON API: what each route returns. The browser code imports these types, so the
// server and the page are checked against one contract.
import type { JobInfo, JobState, LogEntry, PriorityBand, TaskInfo, UserBudget, WorkerInfo } from '../core/job-types.js';
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
  /** Views backed by controller features: `autoscaler` when the controller runs one (slices and scale groups). */
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
  /** For an ArtifactStep (`{prefix}/{name}/{version}`): its identity, the plan's fingerprint and what its record says. */
  readonly artifact?: ArtifactStepView | null;
}

/** An ArtifactStep of an experiment file, compared with the `.artifact.json` record at its output. */
export interface ArtifactStepView {
  /** `name@version`. */
  readonly id: string;
  readonly version: string;
  /** The fingerprint the plan computed (the experiment file's `config.fingerprint`), when it carries one. */
  readonly planFingerprint: string | null;
  /** Dependencies as `name@version`. */
  readonly deps: readonly string[];
  /** The record's fingerprint; null when no record is stored (never built, pinned, or outside the prefix). */
  readonly recordFingerprint: string | null;
  readonly resultType: string | null;
  /** True when both fingerprints are known and differ (the recipe changed without a version bump). */
  readonly drift: boolean;
}

/** One metric over training steps, `[step, value]` in step order, downsampled to at most 1,000 points. */
export interface MetricSeries {
  readonly points: readonly (readonly [number, number])[];
  /** Points before downsampling. */
  readonly total: number;
}

/** A train step's metrics read from the files it writes. */
export interface TrainMetricsView {
  /** The file read, relative to the step's output path. */
  readonly file: string;
  /** Per-step records in it that hold a metric drawn (Levanter logs several records per step). */
  readonly records: number;
  readonly lastStep: number | null;
  readonly trainLoss: MetricSeries;
  readonly learningRate: MetricSeries;
  readonly tokensPerSecond: MetricSeries;
  /** Validation loss per validation set (`validation` for the untagged one). */
  readonly evalLoss: Readonly<Record<string, MetricSeries>>;
  readonly evalBpb: Readonly<Record<string, MetricSeries>>;
}

/** One row of an eval step's results table. */
export interface EvalResultRow {
  readonly task: string;
  readonly metric: string;
  readonly value: number;
  readonly stderr: number | null;
}

/** `GET /api/step-output?prefix=&path=`: what a step's output holds that the page can draw. */
export interface StepOutputView {
  readonly outputPath: string;
  /** The step name its `.executor_info` (or `.artifact.json`) gives. */
  readonly name: string | null;
  readonly status: string | null;
  readonly metrics: TrainMetricsView | null;
  readonly evalResults: readonly EvalResultRow[] | null;
  readonly artifact: { readonly id: string; readonly fingerprint: string; readonly resultType: string; readonly deps: readonly string[] } | null;
}

/** `GET /api/step-runs?prefix=&path=`: output paths of runs of the same step name, newest first (the asked one included). */
export interface StepRunsView {
  readonly name: string | null;
  readonly runs: readonly { readonly outputPath: string; readonly mtimeMs: number }[];
}

/** `GET /api/experiment?prefix=&file=`. */
export interface ExperimentView {
  readonly file: string;
  readonly prefix: string;
  readonly createdDate: string | null;
  readonly callerPath: string | null;
  readonly steps: readonly ExperimentStepView[];
}

/** A scale group as `GetAutoscalerStatus` reports it, with what the dashboard adds. */
export interface ScaleGroupView {
  readonly name: string;
  readonly platform: string;
  readonly priority: number;
  readonly minSlices: number;
  readonly maxSlices: number;
  readonly bufferSlices: number;
  /** No creates before this time; 0 = not backing off. */
  readonly backoffUntilMs: number;
  readonly consecutiveFailures: number;
  /** Quarantined after too many failed creates in the churn window. */
  readonly churning: boolean;
  readonly lastError: string;
  readonly createAttempts: number;
  readonly routedDemand: number;
  readonly heldBack: string;
  /** The slice shape its workers advertise (`cpu`, `tpu v5litepod-16`); null until one registered. */
  readonly template: string | null;
  /** Slices counting toward the group's size (REQUESTING, BOOTING, INITIALIZING, READY, UNHEALTHY). */
  readonly currentSlices: number;
}

/** A slice as `GetAutoscalerStatus` reports it, with its workers and idle time. */
export interface SliceView {
  readonly sliceId: string;
  readonly group: string;
  /** REQUESTING, BOOTING, INITIALIZING, READY, UNHEALTHY, STOPPING, TERMINATED, FAILED or PREEMPTED. */
  readonly state: string;
  readonly createdAtMs: number;
  readonly stateSinceMs: number;
  readonly workersRegistered: number;
  readonly vmCount: number;
  /** The last error (a failed create or delete); empty when none. */
  readonly error: string;
  /** Registered workers carrying this slice's `slice-id` attribute. */
  readonly workers: readonly string[];
  /** READY with no live attempt on any of its workers since this time; null when busy or not READY. */
  readonly idleSinceMs: number | null;
}

/** `GET /api/autoscaler`: scale groups and slices; `enabled: false` when the controller runs no autoscaler. */
export interface AutoscalerResponse {
  readonly enabled: boolean;
  /** The controller's clock, for ages and idle times. */
  readonly nowMs: number;
  readonly evaluatedAtMs: number;
  readonly groups: readonly ScaleGroupView[];
  readonly slices: readonly SliceView[];
  /** Demand no group can take, with the reason. */
  readonly unmet: readonly { readonly jobId: string; readonly tasks: number; readonly reason: string }[];
}

/** Every error body: the Iris error code and a message. */
export interface ApiError {
  readonly code: string;
  readonly message: string;
  /** With `IRIS_JOB_PRUNED`: what is left of the job. */
  readonly prunedJob?: PrunedJobView;
}

/** A job pruned from the controller's database whose logs are in the log archive (`IRIS_JOB_PRUNED` from `/api/job`). */
export interface PrunedJobView {
  readonly jobId: string;
  /** The state it ended in; null when not known. */
  readonly state: JobState | null;
  readonly submittedAtMs: number;
  /** 0 when not known. */
  readonly finishedAtMs: number;
  /** When it was pruned; 0 when not known (pruned before this was recorded, or the database was lost). */
  readonly prunedAtMs: number;
  /** When its logs were last archived. */
  readonly archivedAtMs: number;
  /** Its logs are read from the archive (`/api/logs`, `/api/logs/stream`), its child jobs' with them. */
  readonly logsArchived: true;
  /** Where its log files are: `<archive>/<job path>`. */
  readonly logsUrl: string;
  /** How long the controller keeps an ended job. */
  readonly jobRetentionMs: number | null;
}

/** `GET /api/whoami`: who the dashboard acts as. */
export interface WhoAmIView {
  /** null without per-user keys. */
  user: string | null;
  role: 'admin' | 'user' | 'worker' | 'job';
  authMode: 'none' | 'shared-token' | 'api-keys';
}
