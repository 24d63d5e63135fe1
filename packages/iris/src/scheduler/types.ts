/**
 * Plain data in and out of the scheduling kernel. The controller adapts one consistent DB snapshot
 * to `SchedulingInput` each tick and commits the `SchedulingResult` it gets back; nothing here
 * touches a socket, a clock or the DB.
 */

import type { AttributeValue, Constraint, ConstraintMode, ConstraintOp, WorkerAttributes } from '../core/constraints.js';
import type { Coscheduling, DeviceSpec } from '../core/device-spec.js';
import type { PriorityBand } from './priority-band.js';

export type { AttributeValue, Constraint, ConstraintMode, ConstraintOp, Coscheduling, DeviceSpec, WorkerAttributes };

/** Quantities the scheduler enforces. Zero requirements are never checked. */
export interface ResourceAmounts {
  /** 1000 = one core. */
  readonly cpuMillicores: number;
  readonly memoryBytes: number;
  readonly gpuCount: number;
  /** TPU chips (per task = chips per VM). */
  readonly tpuChips: number;
}

/** One registered worker as the scheduler sees it this tick. */
export interface SchedulerWorker {
  readonly workerId: string;
  /** Unhealthy workers are never candidates. */
  readonly healthy: boolean;
  readonly attributes: WorkerAttributes;
  /** Totals the worker advertised at registration. */
  readonly capacity: ResourceAmounts;
  /**
   * Resources held by live attempts (ASSIGNED, BUILDING, RUNNING, including ones being stopped),
   * derived from attempt rows each tick, never stored as a counter.
   */
  readonly committed: ResourceAmounts;
  /** Attempts on this worker still preparing (ASSIGNED or BUILDING). */
  readonly buildingCount: number;
}

/** A job's scheduling-relevant configuration. */
export interface SchedulerJob {
  readonly jobId: string;
  /** Job components below the user: `/alice/train` = 1. Deeper jobs go first. */
  readonly depth: number;
  /** Submission time of the job's root; older trees go first. */
  readonly rootSubmittedAtMs: number;
  readonly submittedAtMs: number;
  /** Monotonic insertion sequence; the FIFO tie-break. */
  readonly insertionSeq: number;
  /** What one task needs. */
  readonly resources: ResourceAmounts;
  /** Merged constraints (derived device constraints, user, parent), in that order. */
  readonly constraints: readonly Constraint[];
  /** Gang shape, or `null` for independently placed tasks. */
  readonly coscheduling: Coscheduling | null;
  /**
   * Tasks of the job (its replicas), used for a gang's slice count.
   * @default one more than the highest task index in the snapshot
   */
  readonly taskCount?: number;
  /** The band the job is scheduled in now (after the user's cap and budget); the first queue key. @default 'INTERACTIVE' */
  readonly band?: PriorityBand;
  /** Submitting user; bands interleave users round-robin by ascending spend. @default '' */
  readonly user?: string;
  /**
   * Device class for preemption (`tpu:v5litepod-16`, `gpu:h100`, `cpu`): a preemptor only evicts
   * tasks of the same class. @default ''
   */
  readonly deviceKey?: string;
  /**
   * The reservation this job may use: workers whose `reservation-job` attribute equals it are open
   * to the job (and preferred); workers claimed by any other reservation are not. @default none
   */
  readonly reservationScope?: string;
  /** When set, the job is not placed this tick and this is its pending reason (e.g. reservation claims outstanding). */
  readonly blockedReason?: string;
}

/** Task states as stored by the controller (`MISSING` only appears in worker observations). */
export type SchedulerTaskState =
  | 'PENDING'
  | 'ASSIGNED'
  | 'BUILDING'
  | 'RUNNING'
  | 'SUCCEEDED'
  | 'FAILED'
  | 'KILLED'
  | 'WORKER_FAILED'
  | 'UNSCHEDULABLE'
  | 'PREEMPTED'
  | 'COSCHED_FAILED';

/** A task of a job in the snapshot. Terminal tasks may be left out. */
export interface SchedulerTask {
  readonly taskId: string;
  readonly jobId: string;
  /** `0..replicas-1`; the last queue key, and the rank source for gangs. */
  readonly taskIndex: number;
  readonly state: SchedulerTaskState;
  /**
   * True while an attempt of this task is still live on a worker (e.g. a bounced gang member whose
   * old process is being stopped); such a task is not placed until the attempt has ended.
   * @default false
   */
  readonly hasLiveAttempt?: boolean;
  /** Absolute scheduling deadline; `null`/absent = wait forever. */
  readonly schedulingDeadlineMs?: number | null;
}

/** Per-tick scheduler limits. */
export interface SchedulerLimits {
  /** A worker with this many preparing attempts takes no more. @default 8 */
  readonly maxBuildingTasks?: number;
  /** Assignments one worker may receive in one tick. @default 4 */
  readonly maxAssignmentsPerWorker?: number;
}

/** A live attempt as preemption sees it: who holds what, where, in which band. */
export interface RunningTask {
  readonly taskId: string;
  readonly jobId: string;
  readonly workerId: string;
  /** The band the task is judged in as a victim now (stamped band, demoted while its user is over budget). */
  readonly band: PriorityBand;
  /** What the task holds on its worker. */
  readonly resources: ResourceAmounts;
  /** Device class, as `SchedulerJob.deviceKey`. */
  readonly deviceKey: string;
  /** Member of a coscheduled job: only a coscheduled preemptor may evict it, and only with its whole slice. */
  readonly coscheduled: boolean;
  /** Already being stopped: its resources are on their way back and it is no victim. @default false */
  readonly stopping?: boolean;
}

/** Everything `scheduleTick` reads. */
export interface SchedulingInput {
  /** The tick's clock reading, used only for scheduling deadlines. */
  readonly nowMs: number;
  /** Workers in registration order (the last tie-break between candidates). */
  readonly workers: readonly SchedulerWorker[];
  readonly jobs: readonly SchedulerJob[];
  readonly tasks: readonly SchedulerTask[];
  readonly limits?: SchedulerLimits;
  /** Live attempts, the preemption candidates; without them nothing is preempted. @default [] */
  readonly running?: readonly RunningTask[];
  /** Spend per user (their live non-BATCH resource value); orders users within a band. @default 0 for everyone */
  readonly userSpend?: ReadonlyMap<string, number>;
}

/** Where a gang member sits in its gang; the controller fills `RunTaskRequest.gang` from it. */
export interface GangPlacement {
  /** The `groupBy` attribute value shared by the group, e.g. the slice name. */
  readonly groupValue: string;
  /** Rank inside the group (`taskIndex mod tasksPerGroup`); on TPU equals `tpu-worker-id`. */
  readonly rank: number;
  /** Tasks per group. */
  readonly groupSize: number;
  /** Which group (slice) of the job, `floor(taskIndex / groupSize)`. */
  readonly sliceIndex: number;
  /** Groups (slices) the job spans. */
  readonly sliceCount: number;
  /** Worker ids of this group by rank; the controller maps them to addresses. */
  readonly peerWorkerIds: readonly string[];
}

/** One decision: start the next attempt of `taskId` on `workerId`. */
export interface Assignment {
  readonly taskId: string;
  readonly jobId: string;
  readonly workerId: string;
  /** Set for coscheduled jobs. */
  readonly gang?: GangPlacement;
  /** The job's band at assignment, stamped on the attempt. */
  readonly band: PriorityBand;
}

/** One decision: stop `victimTaskId` so that `preemptorJobId` can take its place. */
export interface Preemption {
  readonly victimTaskId: string;
  readonly victimJobId: string;
  readonly preemptorJobId: string;
}

/** Why a job still has pending tasks after this tick. */
export interface PendingJobDiagnostic {
  readonly jobId: string;
  /** The first pending task, the one the reason describes. */
  readonly taskId: string;
  /** Human-readable reason; never empty and never "unknown". */
  readonly reason: string;
  /** False when no current worker could host the job even if it were idle. */
  readonly canBeScheduled: boolean;
}

/** Everything `scheduleTick` decides. */
export interface SchedulingResult {
  /** New attempts to commit, in placement order. */
  readonly assignments: readonly Assignment[];
  /** Pending tasks whose scheduling deadline has passed: the controller marks them UNSCHEDULABLE. */
  readonly expiredTaskIds: readonly string[];
  /** One entry per job that still has placeable pending tasks after this tick. */
  readonly pendingJobs: readonly PendingJobDiagnostic[];
  /** Live tasks to evict for higher-band work that fits nowhere, each victim at most once. */
  readonly preemptions: readonly Preemption[];
}
