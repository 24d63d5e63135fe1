
/** Job states without the wire prefix. */
export type JobState = 'PENDING' | 'BUILDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'KILLED' | 'WORKER_FAILED' | 'UNSCHEDULABLE';

/** Task states without the wire prefix. */
export type TaskState = JobState | 'ASSIGNED' | 'PREEMPTED' | 'COSCHED_FAILED';

/** Terminal job states. */
export const TERMINAL_JOB_STATES: ReadonlySet<JobState> = new Set<JobState>(['SUCCEEDED', 'FAILED', 'KILLED', 'WORKER_FAILED', 'UNSCHEDULABLE']);

/** One attempt of a task. */
export interface AttemptInfo {
  readonly attemptId: number;
  readonly attemptUid: string;
  readonly workerId: string;
  readonly state: TaskState;
  readonly exitCode: number;
  readonly error: string;
  readonly startedAtMs: number;
  readonly finishedAtMs: number;
  readonly isWorkerFailure: boolean;
  /**
   * How the attempt really ended when its task supervisor reported it only after the controller had
   * already ended the attempt otherwise (a worker failure): `{ state: 'SUCCEEDED', exitCode: 0 }` on a
   * WORKER_FAILED attempt means the body ran to completion although the task was run again. Null when
   * no such report came.
   */
  readonly lateOutcome: { readonly state: TaskState; readonly exitCode: number; readonly reportedAtMs: number } | null;
}

/** A task as the client sees it. */
export interface TaskInfo {
  readonly taskId: string;
  readonly taskIndex: number;
  readonly state: TaskState;
  readonly workerId: string;
  readonly workerAddress: string;
  readonly exitCode: number;
  readonly error: string;
  readonly startedAtMs: number;
  readonly finishedAtMs: number;
  readonly ports: Readonly<Record<string, number>>;
  /** -1 before the first attempt. */
  readonly currentAttemptId: number;
  readonly attempts: readonly AttemptInfo[];
  readonly pendingReason: string;
  readonly failureCount: number;
  readonly preemptionCount: number;
  /** Peak RSS of the current attempt's process group, when sampled. */
  readonly peakMemoryBytes: number;
}

/** Scheduling bands, best first. */
export type PriorityBand = 'PRODUCTION' | 'INTERACTIVE' | 'BATCH';

/** A user's scheduling budget and current spend. */
export interface UserBudget {
  readonly user: string;
  /** Spend above which the user's INTERACTIVE work runs as BATCH; 0 = unlimited. */
  readonly budgetLimit: number;
  /** The best band the user's jobs may run in; null = no cap. */
  readonly maxBand: PriorityBand | null;
  /** Summed resource value of the user's live tasks outside the BATCH band. */
  readonly spend: number;
  readonly updatedAtMs: number;
}

/** A job as the client sees it. */
export interface JobInfo {
  readonly jobId: string;
  readonly user: string;
  readonly state: JobState;
  readonly error: string;
  readonly exitCode: number;
  readonly submittedAtMs: number;
  readonly startedAtMs: number;
  readonly finishedAtMs: number;
  readonly taskCount: number;
  readonly completedCount: number;
  readonly taskStateCounts: Readonly<Record<string, number>>;
  readonly failureCount: number;
  readonly preemptionCount: number;
  /** Why the job is still pending; empty when nothing is pending. */
  readonly pendingReason: string;
  /** False when no current worker could host the job even if idle. */
  readonly canBeScheduled: boolean;
  readonly hasChildren: boolean;
  /** A running job whose child job has not started: `child job <id> (pending: <reason>)`; empty otherwise. */
  readonly waitingFor: string;
  readonly parentJobId: string | null;
  /** Requested resources per task, in domain units. */
  readonly resources: { readonly cpu: number; readonly memoryBytes: number; readonly device: string };
  readonly submitArgv: readonly string[];
  /** The band the job asked for, after inheritance. */
  readonly priority: PriorityBand;
  /** The band the scheduler uses for it now (after the user's `max_band` and budget). */
  readonly effectivePriority: PriorityBand;
  /** Filled by `getJob(id, { includeTasks: true })`. */
  readonly tasks: readonly TaskInfo[];
}

/** `ListJobs` filters. */
export interface JobQuery {
  /** Job id prefix, e.g. `/alice/`. */
  readonly prefix?: string;
  readonly states?: readonly JobState[];
  readonly rootsOnly?: boolean;
  /** @default 0 */
  readonly offset?: number;
  /** @default 50 (max 500) */
  readonly limit?: number;
}

/** Log sources. */
export type LogSource = 'stdout' | 'stderr' | 'build' | 'system';

/** One stored log line. */
export interface LogEntry {
  readonly taskId: string;
  readonly attemptId: number;
  readonly attemptUid: string;
  readonly seq: number;
  readonly timestampMs: number;
  readonly source: LogSource;
  /** DEBUG=10 INFO=20 WARNING=30 ERROR=40 CRITICAL=50. */
  readonly level: number;
  readonly data: string;
}

/** A log query: by task or by job (with children by default). */
export interface LogQuery {
  readonly taskId?: string;
  readonly jobId?: string;
  /** @default true */
  readonly includeChildren?: boolean;
  /** @default all attempts */
  readonly attemptId?: number;
  readonly sinceMs?: number;
  /** @default 1000 (max 10000) */
  readonly maxLines?: number;
  /** Return the last matches instead of the first. */
  readonly tail?: boolean;
  readonly substring?: string;
  readonly minLevel?: number;
  /** Continue after a previous page. */
  readonly cursor?: string;
}

/** One event of `followLogs`: new entries, the job state, and `done` once everything was sent. */
export interface FollowEvent {
  readonly entries: readonly LogEntry[];
  readonly jobState: JobState;
  readonly done: boolean;
  readonly cursor: string;
}

/** An endpoint to register for the current task. */
export interface EndpointSpec {
  /** Must start with the task's root job id, e.g. `/alice/train/coordinator`. */
  readonly name: string;
  readonly address: string;
  /** @default IRIS_TASK_ID */
  readonly taskId?: string;
  /** @default IRIS_ATTEMPT_ID */
  readonly attemptId?: number;
  readonly metadata?: Readonly<Record<string, string>>;
  /** Client-chosen id so retries are idempotent. @default a random UUID */
  readonly endpointId?: string;
}

/** A registered endpoint. */
export interface Endpoint {
  readonly endpointId: string;
  readonly name: string;
  readonly address: string;
  readonly taskId: string;
  readonly attemptId: number;
  readonly metadata: Readonly<Record<string, string>>;
}

/** `ListEndpoints` filter: an exact name or a prefix. */
export interface EndpointQuery {
  readonly prefix?: string;
  readonly exact?: string;
}

/** A worker as `listWorkers` reports it. */
export interface WorkerInfo {
  readonly workerId: string;
  readonly address: string;
  readonly healthy: boolean;
  readonly attributes: Readonly<Record<string, string | number>>;
  readonly capacity: { readonly cpuMillicores: number; readonly memoryBytes: number; readonly gpuCount: number; readonly tpuChips: number };
  readonly free: { readonly cpuMillicores: number; readonly memoryBytes: number; readonly gpuCount: number; readonly tpuChips: number };
  readonly runningAttempts: number;
  readonly lastContactMs: number;
}

/** `GetClusterStatus`. */
export interface ClusterStatus {
  readonly version: string;
  readonly startedAtMs: number;
  readonly workerCount: number;
  readonly jobCounts: Readonly<Record<string, number>>;
  /** The controller's web dashboard URL; empty when it serves none. */
  readonly dashboardUrl: string;
}

