import { jobInfoFromProto, jobStateFromProto, jobStateToProto, logEntryFromProto, priorityFromProto, taskInfoFromProto, taskStateFromProto, userBudgetFromProto, workerInfoFromProto } from '../wire/proto-views.js';
import type { JobState } from '../core/job-types.js';
import type { AutoscalerStatus } from '../autoscaler/autoscaler.js';
import { autoscalerStatusToWire } from '../controller/services/cluster-service.js';
import type { ControllerState } from '../controller/controller-state.js';
import type { JobSortKey } from '../controller/job-listing.js';
import { workerInfos } from '../controller/status-views.js';
import { marinPrefix } from '@marin/rigging';
import { IrisError } from '../errors.js';
import { LogQuery } from '../gen/iris/v1/controller.js';
import { JobState as ProtoJobState, PriorityBand as ProtoBand } from '../gen/iris/v1/types.js';
import { findPrunedJob } from '../controller/pruned-job.js';
import type { PrunedJob } from '../controller/pruned-job.js';
import { queryLogs } from '../controller/log-archiver.js';
import { jobCountsByState, jobsWithIdContaining, lastAttemptFinishedOn } from '../controller/store/queries.js';
import type {
  AutoscalerResponse,
  BudgetsResponse,
  ExperimentListResponse,
  ExperimentView,
  StepOutputView,
  StepRunsView,
  JobDetailResponse,
  JobListResponse,
  LogPageResponse,
  OverviewResponse,
  PrunedJobView,
  TaskView,
  WorkersResponse,
} from './api-types.js';
import { servedPrefix } from './experiment-access.js';
import { listExperiments, readExperimentView } from './experiment-files.js';
import { listStepRuns, readStepOutput } from './step-outputs.js';

/** What the JSON API needs from the controller: the same state the gRPC handlers use. */
export interface DashboardApiDeps {
  readonly state: ControllerState;
  /** Wakes the control loop after a mutation (a stop). */
  readonly wake: () => void;
  readonly version: string;
  readonly startedAtMs: number;
  /** The autoscaler's status, as `GetAutoscalerStatus` reads it; undefined when the controller runs none. */
  readonly autoscalerStatus?: (() => AutoscalerStatus | undefined) | undefined;
  /** The prefixes the experiments view may read, as configured. @default the local cluster's prefix (`marinPrefix()`) */
  readonly experimentPrefixes?: (() => Promise<readonly string[]>) | undefined;
  /** How long the controller keeps an ended job (told to the reader of a pruned job's page). */
  readonly jobRetentionMs?: number | undefined;
}

const JOB_STATES: readonly JobState[] = ['PENDING', 'BUILDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'KILLED', 'WORKER_FAILED', 'UNSCHEDULABLE'];
const SORT_KEYS: readonly JobSortKey[] = ['submitted', 'id', 'state', 'user'];
const BANDS = ['PRODUCTION', 'INTERACTIVE', 'BATCH'] as const;
const MAX_CHILDREN = 500;

function required(params: URLSearchParams, name: string): string {
  const v = params.get(name);
  if (v === null || v === '') throw new IrisError('IRIS_INVALID_ARGUMENT', `query parameter "${name}" is required`);
  return v;
}

function intParam(params: URLSearchParams, name: string, fallback: number): number {
  const v = params.get(name);
  if (v === null || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new IrisError('IRIS_INVALID_ARGUMENT', `query parameter "${name}"="${v}" is not a non-negative integer`);
  return n;
}

function listParam<T extends string>(params: URLSearchParams, name: string, allowed: readonly T[]): T[] {
  const values = params.getAll(name).flatMap((v) => v.split(',')).filter((v) => v !== '');
  for (const v of values) {
    if (!allowed.includes(v as T)) throw new IrisError('IRIS_INVALID_ARGUMENT', `query parameter "${name}"="${v}" is not one of ${allowed.join(', ')}`);
  }
  return values as T[];
}

/** `GET /api/overview`. */
export function overview(deps: DashboardApiDeps): OverviewResponse {
  const rows = jobCountsByState(deps.state.store);
  const jobCounts: Record<string, number> = {};
  for (const r of rows) jobCounts[jobStateFromProto(r.state)] = r.n;
  return {
    version: deps.version,
    startedAtMs: deps.startedAtMs,
    workerCount: deps.state.store.workers().length,
    jobCounts,
    bands: [...BANDS],
    features: { budgets: true, autoscaler: deps.autoscalerStatus?.() !== undefined },
  };
}

/** `GET /api/jobs`: one page, filtered and sorted in SQL. */
export function listJobsPage(deps: DashboardApiDeps, params: URLSearchParams): JobListResponse {
  const sort = params.get('sort') ?? 'submitted';
  if (!SORT_KEYS.includes(sort as JobSortKey)) throw new IrisError('IRIS_INVALID_ARGUMENT', `sort "${sort}" is not one of ${SORT_KEYS.join(', ')}`);
  const r = deps.state.listJobs({
    prefix: params.get('prefix') ?? '',
    states: listParam(params, 'state', JOB_STATES).map(jobStateToProto),
    rootsOnly: params.get('roots') === '1',
    offset: intParam(params, 'offset', 0),
    limit: intParam(params, 'limit', 50),
    user: params.get('user') ?? '',
    bands: listParam(params, 'band', BANDS).map((b) => ProtoBand[`PRIORITY_BAND_${b}`]),
    sort: sort as JobSortKey,
    descending: params.get('dir') !== 'asc',
  });
  return { jobs: r.jobs.map(jobInfoFromProto), totalCount: r.totalCount, hasMore: r.hasMore };
}

/**
 * `GET /api/job?id=`.
 * @throws {IrisError} IRIS_JOB_PRUNED for a job pruned from the database whose logs are archived
 *   (`details.prunedJob` is a {@link PrunedJobView}); IRIS_JOB_NOT_FOUND for an unknown job.
 */
export async function jobDetail(deps: DashboardApiDeps, params: URLSearchParams): Promise<JobDetailResponse> {
  const { state } = deps;
  const id = required(params, 'id');
  if (state.store.job(id) === undefined) {
    const pruned = await findPrunedJob(state, id);
    if (pruned !== undefined) {
      const prunedJob = prunedJobView(pruned, deps.jobRetentionMs);
      const ended = prunedJob.state === null ? 'it ended' : `it ended ${prunedJob.state}`;
      throw new IrisError('IRIS_JOB_PRUNED', `job "${id}" was pruned from the controller (${ended}); its logs are in the log archive`, { details: { prunedJob } });
    }
  }
  const status = state.getJobStatus(id, true);
  const tasks = status.tasks.map(
    (t): TaskView => ({
      ...taskInfoFromProto(t),
      usage: t.usage ? { cpuMillicores: t.usage.cpuMillicores, memoryBytes: t.usage.memoryBytes, peakMemoryBytes: t.usage.peakMemoryBytes, processCount: t.usage.processCount } : null,
      band: priorityFromProto(t.priorityBand),
    }),
  );
  const children = state.store
    .childJobs(status.jobId)
    .slice(0, MAX_CHILDREN)
    .map((c) => jobInfoFromProto(state.getJobStatus(c.job_id, false)));
  return { job: jobInfoFromProto({ ...status, tasks: [] }), tasks, children };
}

/** The dashboard's view of a pruned job. */
export function prunedJobView(p: PrunedJob, jobRetentionMs: number | undefined): PrunedJobView {
  return {
    jobId: p.jobId,
    state: p.state === ProtoJobState.JOB_STATE_UNSPECIFIED ? null : jobStateFromProto(p.state),
    submittedAtMs: p.submittedAtMs,
    finishedAtMs: p.finishedAtMs,
    prunedAtMs: p.prunedAtMs,
    archivedAtMs: p.archivedAtMs,
    logsArchived: true,
    logsUrl: p.logsUrl,
    jobRetentionMs: jobRetentionMs ?? null,
  };
}

/**
 * `POST /api/job/stop?id=`: terminates the job and its children, as `TerminateJob` does.
 * @throws {IrisError} IRIS_JOB_NOT_FOUND for an unknown job.
 */
export function stopJob(deps: DashboardApiDeps, params: URLSearchParams): Record<string, never> {
  deps.state.terminateJob(required(params, 'id'), params.get('children') !== '0');
  deps.wake();
  return {};
}

/** The log query of the dashboard's log routes: a job with its children, optionally one task. */
export function logQueryOf(params: URLSearchParams, cursor: string): LogQuery {
  const task = params.get('task') ?? '';
  return LogQuery.fromPartial({
    jobId: task === '' ? required(params, 'id') : '',
    taskId: task,
    cursor,
    tail: params.get('tail') === '1',
    maxLines: intParam(params, 'lines', 1000),
  });
}

/** `GET /api/logs`: one page of logs. */
export async function logPage(deps: DashboardApiDeps, params: URLSearchParams): Promise<LogPageResponse> {
  const page = await queryLogs(deps.state, logQueryOf(params, params.get('cursor') ?? ''));
  return { entries: page.entries.map(logEntryFromProto), cursor: page.cursor, truncated: page.truncated };
}

/** `GET /api/workers`: workers with their TPU slice and live attempts. */
export function workers(deps: DashboardApiDeps): WorkersResponse {
  const { store } = deps.state;
  return {
    workers: workerInfos(store).map((w) => {
      const info = workerInfoFromProto(w);
      const slice = info.attributes['tpu-name'];
      return {
        ...info,
        registeredAtMs: w.registeredAtMs,
        slice: typeof slice === 'string' && slice !== '' ? slice : null,
        tasks: store.liveAttemptsOnWorker(w.workerId).map((a) => ({
          taskId: a.task_id,
          jobId: a.task_id.slice(0, a.task_id.lastIndexOf('/')),
          state: taskStateFromProto(a.state),
          attemptId: a.attempt_id,
        })),
      };
    }),
  };
}

/** `GET /api/budgets`: every user with a budget or current spend. */
export function budgets(deps: DashboardApiDeps): BudgetsResponse {
  return { budgets: deps.state.listUserBudgets().map(userBudgetFromProto) };
}

const LIVE_SLICE_STATES = new Set(['REQUESTING', 'BOOTING', 'INITIALIZING', 'READY', 'UNHEALTHY']);

/**
 * `GET /api/autoscaler`: the `GetAutoscalerStatus` response, plus what the controller's workers say
 * about each slice: its members (by their `slice-id` attribute), the shape they advertise, and how
 * long a READY slice has had no live attempt on any of them.
 */
export function autoscaler(deps: DashboardApiDeps): AutoscalerResponse {
  const { state } = deps;
  const status = autoscalerStatusToWire(deps.autoscalerStatus?.());
  const nowMs = state.now();
  if (!status.enabled) return { enabled: false, nowMs, evaluatedAtMs: 0, groups: [], slices: [], unmet: [] };
  const membersOf = new Map<string, ReturnType<typeof workerInfoFromProto>[]>();
  for (const w of workerInfos(state.store).map(workerInfoFromProto)) {
    const id = w.attributes['slice-id'];
    if (typeof id === 'string' && id !== '') membersOf.set(id, [...(membersOf.get(id) ?? []), w]);
  }
  const lastFinished = lastAttemptFinishedOn(state.store);
  const templateOf = new Map<string, string>();
  const slices = status.slices.map((s) => {
    const members = membersOf.get(s.sliceId) ?? [];
    const first = members[0];
    if (first !== undefined && !templateOf.has(s.group)) {
      const variant = first.attributes['device-variant'];
      templateOf.set(s.group, [String(first.attributes['device-type'] ?? 'cpu'), variant === undefined ? '' : String(variant)].filter((x) => x !== '').join(' '));
    }
    let idleSinceMs: number | null = null;
    if (s.state === 'READY' && members.every((m) => state.store.liveAttemptsOnWorker(m.workerId).length === 0)) {
      idleSinceMs = Math.max(s.stateSinceMs, ...members.map((m) => lastFinished(m.workerId)));
    }
    return { ...s, workers: members.map((m) => m.workerId), idleSinceMs };
  });
  return {
    enabled: true,
    nowMs,
    evaluatedAtMs: status.evaluatedAtMs,
    groups: status.groups.map((g) => ({
      ...g,
      template: templateOf.get(g.name) ?? null,
      currentSlices: slices.filter((s) => s.group === g.name && LIVE_SLICE_STATES.has(s.state)).length,
    })),
    slices,
    unmet: status.unmet,
  };
}

async function servedPrefixOf(deps: DashboardApiDeps, params: URLSearchParams): Promise<string> {
  const allowed = deps.experimentPrefixes ? await deps.experimentPrefixes() : [await marinPrefix()];
  return servedPrefix(required(params, 'prefix'), allowed);
}

/** `GET /api/experiments?prefix=`: only for a prefix the controller is configured with. */
export async function experiments(deps: DashboardApiDeps, params: URLSearchParams): Promise<ExperimentListResponse> {
  const prefix = await servedPrefixOf(deps, params);
  return { prefix, experiments: await listExperiments(prefix) };
}

/**
 * `GET /api/experiment?prefix=&file=`: the DAG, with the jobs of this controller that ran each step
 * remotely (a remote step's job is named after its label, `<name with "-" for "/">-<hash>`).
 */
export async function experiment(deps: DashboardApiDeps, params: URLSearchParams): Promise<ExperimentView> {
  const view = await readExperimentView(await servedPrefixOf(deps, params), required(params, 'file'));
  const find = jobsWithIdContaining(deps.state.store, 5);
  return {
    ...view,
    steps: view.steps.map((s) => {
      const hash = /-([0-9a-f]{6})$/.exec(s.outputPath)?.[1];
      if (hash === undefined) return s;
      const rows = find(`${s.name.replaceAll('/', '-')}-${hash}`);
      return { ...s, jobs: rows.map((r) => ({ jobId: r.job_id, state: jobStateFromProto(r.state) })) };
    }),
  };
}

/**
 * `GET /api/step-output?prefix=&path=`: a step output's train metrics, eval results and artifact record,
 * read from the files the step wrote; only for a served prefix and a path under it.
 */
export async function stepOutput(deps: DashboardApiDeps, params: URLSearchParams): Promise<StepOutputView> {
  return readStepOutput(await servedPrefixOf(deps, params), required(params, 'path'));
}

/** `GET /api/step-runs?prefix=&path=`: the output paths of the runs of that output's step, to compare two. */
export async function stepRuns(deps: DashboardApiDeps, params: URLSearchParams): Promise<StepRunsView> {
  return listStepRuns(await servedPrefixOf(deps, params), required(params, 'path'));
}
