import { type FitFailure, type TickCapacity, closestFailure, formatFitFailure } from './capacity.js';
import type { ConstraintIndex } from './constraint-index.js';
import { formatConstraint } from '../core/constraint-match.js';
import type { GangShape } from './gang-placement.js';
import { fittingMembers } from './gang-placement.js';
import type { CandidateGroup } from './gang-groups.js';
import type { JobCandidates } from './job-candidates.js';
import { TAINT_PREFIX } from './taints.js';
import type { SchedulerJob } from './types.js';

/** A reason and whether the job could run on the current workers if they were idle. */
export interface Diagnosis {
  readonly reason: string;
  readonly canBeScheduled: boolean;
}

/** The text for a job that fits now and only waits for the next pass. */
export const SCHEDULABLE_REASON = 'schedulable; waiting for the next scheduling pass';

/**
 * Explains a job whose candidate set is empty (no workers, or a constraint removes the rest), or
 * returns `undefined` when it has candidates.
 */
export function diagnoseCandidates(index: ConstraintIndex, candidates: JobCandidates): Diagnosis | undefined {
  if (index.healthyCount === 0) return { reason: 'no healthy workers registered', canBeScheduled: false };
  const emptied = candidates.emptiedBy;
  if (emptied === undefined) return undefined;
  const { constraint, before } = emptied;
  if (constraint.key.startsWith(TAINT_PREFIX) && constraint.op === 'NOT_EXISTS') {
    return {
      reason: `all ${before} matching workers carry ${constraint.key}; add a constraint on ${constraint.key} to use them`,
      canBeScheduled: false,
    };
  }
  return {
    reason: `no worker matches constraint ${formatConstraint(constraint)} (0 of ${before} workers)`,
    canBeScheduled: false,
  };
}

/** Explains why a job of independent tasks still has pending tasks after this tick's placement. */
export function diagnoseSingle(
  index: ConstraintIndex,
  candidates: JobCandidates,
  job: Pick<SchedulerJob, 'resources'>,
  capacity: TickCapacity,
): Diagnosis {
  const empty = diagnoseCandidates(index, candidates);
  if (empty !== undefined) return empty;
  const need = job.resources;
  const idle: FitFailure[] = [];
  let idleFits = false;
  for (const i of candidates.order) {
    const f = capacity.idleFitFailure(i, need);
    if (f === null) {
      idleFits = true;
      break;
    }
    idle.push(f);
  }
  if (!idleFits) return { reason: formatFitFailure(closestFailure(idle) ?? fallbackFailure(job)), canBeScheduled: false };
  const now: FitFailure[] = [];
  for (const i of candidates.order) {
    const f = capacity.fitFailure(i, need);
    if (f === null) return { reason: SCHEDULABLE_REASON, canBeScheduled: true };
    now.push(f);
  }
  return { reason: formatFitFailure(closestFailure(now) ?? fallbackFailure(job)), canBeScheduled: true };
}

/** What a gang diagnosis needs besides the shared tick state. */
export interface GangDiagnosisInput {
  readonly job: Pick<SchedulerJob, 'resources'>;
  readonly groupBy: string;
  readonly shape: GangShape;
  readonly groups: readonly CandidateGroup[];
  readonly taintSkipped: number;
  /** Non-terminal tasks of the gang that are not placeable yet (live or stopping attempts). */
  readonly waitingOn: number;
}

/** Explains why a coscheduled job is still pending after this tick's placement. */
export function diagnoseGang(
  index: ConstraintIndex,
  candidates: JobCandidates,
  input: GangDiagnosisInput,
  capacity: TickCapacity,
): Diagnosis {
  const empty = diagnoseCandidates(index, candidates);
  if (empty !== undefined) return empty;
  const { job, groupBy, shape, groups, taintSkipped, waitingOn } = input;
  if (waitingOn > 0) {
    return {
      reason: `coscheduling: waiting for ${waitingOn} task(s) of the gang to stop before placing it as a whole`,
      canBeScheduled: true,
    };
  }
  const k = shape.k;
  const g = shape.slices.size;
  const tainted = taintSkipped > 0 ? `; ${taintSkipped} group(s) skipped because a worker is tainted` : '';
  if (groups.length === 0 && taintSkipped === 0) {
    return { reason: `coscheduling: no matching worker has attribute '${groupBy}'`, canBeScheduled: false };
  }
  const largest = groups.reduce((m, grp) => Math.max(m, grp.members.length), 0);
  if (largest < k) {
    return {
      reason: `coscheduling: need ${k} workers in the same '${groupBy}' group, largest group has ${largest}${tainted}`,
      canBeScheduled: false,
    };
  }
  const bigEnough = groups.filter((grp) => grp.members.length >= k);
  if (bigEnough.length < g) {
    return {
      reason: `coscheduling: need ${g} groups of ${k} workers by '${groupBy}', ${bigEnough.length} available${tainted}`,
      canBeScheduled: false,
    };
  }
  const need = job.resources;
  const idle: FitFailure[] = [];
  let idleGroups = 0;
  for (const grp of bigEnough) {
    let fit = 0;
    for (const i of grp.members) {
      const f = capacity.idleFitFailure(i, need);
      if (f === null) fit += 1;
      else idle.push(f);
    }
    if (fit >= k) idleGroups += 1;
  }
  if (idleGroups < g) return { reason: formatFitFailure(closestFailure(idle) ?? fallbackFailure(job)), canBeScheduled: false };

  let best: { group: CandidateGroup; fit: number } | undefined;
  let readyGroups = 0;
  for (const grp of bigEnough) {
    const fit = fittingMembers(grp, job, capacity, true).length;
    if (fit >= k) readyGroups += 1;
    if (best === undefined || fit > best.fit) best = { group: grp, fit };
  }
  if (readyGroups >= g || best === undefined) return { reason: SCHEDULABLE_REASON, canBeScheduled: true };
  if (g > 1 && readyGroups > 0) {
    return {
      reason: `coscheduling: need ${g} groups of ${k} workers by '${groupBy}' with capacity, ${readyGroups} have it`,
      canBeScheduled: true,
    };
  }
  return {
    reason: `coscheduling: group '${best.group.value}' has ${best.group.members.length} matching workers but only ${best.fit} have capacity`,
    canBeScheduled: true,
  };
}

function fallbackFailure(job: Pick<SchedulerJob, 'resources'>): FitFailure {
  return { check: 'cpu', need: job.resources.cpuMillicores, available: 0 };
}
