import { leaseTimings, parsePyJson, prefixJoin } from '@marin/rigging';
import type { LeaseTimings } from '@marin/rigging';
import { ExecutorError } from '../errors.js';
import { stderrLogger } from '../logger.js';
import type { ExecutorLogger } from '../logger.js';
import { runUnderLease } from '../status/lease-loop.js';
import { canonicalJson } from './canonical-json.js';
import { captureProvenance } from './provenance.js';
import { makeRecord, writeRecord } from './record.js';

/**
 * The Cartesian product of named axes (Marin's `grid`), row-major: the last axis varies fastest.
 * `grid({ lr: [1e-3, 3e-3], wd: [0, 0.1] })` → `[{lr: 1e-3, wd: 0}, {lr: 1e-3, wd: 0.1}, {lr: 3e-3, wd: 0}, …]`.
 */
export function grid<A extends Record<string, readonly unknown[]>>(axes: A): { [K in keyof A]: A[K][number] }[] {
  let points: Record<string, unknown>[] = [{}];
  for (const [key, values] of Object.entries(axes)) {
    const next: Record<string, unknown>[] = [];
    for (const p of points) for (const v of values) next.push({ ...p, [key]: v });
    points = next;
  }
  return points as { [K in keyof A]: A[K][number] }[];
}

/** One trial per grid point (Marin's `sweep`); the trial folds the point into its name and config. */
export function sweep<A extends Record<string, readonly unknown[]>, T>(trial: (params: { [K in keyof A]: A[K][number] }) => T, axes: A): T[] {
  return grid(axes).map(trial);
}

/**
 * The artifact whose `metric` is best (`min` or `max`); ties keep the first. Marin leaves selection to user code
 * over resolved artifacts; this is that code.
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT for an empty list or a metric that is not a finite number
 */
export function selectBest<T>(items: readonly T[], metric: (item: T) => number, mode: 'min' | 'max'): T {
  let best: { item: T; value: number } | null = null;
  for (const item of items) {
    const value = metric(item);
    if (!Number.isFinite(value)) throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `select: metric is not a finite number (${value})`);
    if (best === null || (mode === 'min' ? value < best.value : value > best.value)) best = { item, value };
  }
  if (best === null) throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', 'select: no items to choose from');
  return best.item;
}

/** One unit of work of a sweep: `targetId` names its directory under the sweep root (one path segment). */
export interface SweepTarget<C = unknown> {
  targetId: string;
  config: C;
}

/** Options of {@link claimAndRun}. */
export interface ClaimAndRunOptions {
  logger?: ExecutorLogger;
  timings?: LeaseTimings;
}

/** What a worker did with each target, by id. */
export type ClaimOutcome = 'ran' | 'skipped';

/**
 * A sweep worker (Marin's `claim_and_run`, single host): walks the targets in order and races for each one's lease
 * at `<sweepRoot>/<targetId>`; a target another worker finished is skipped, a crashed claimer's stale lease is taken
 * over, a claimed one runs `runFn` and then writes the cell's `.artifact.json` (name = target id, config, provenance)
 * and SUCCESS. Workers of either language on one root split the targets between them. A failing `runFn` writes
 * FAILED and stops this worker (peers retry the target).
 *
 * @throws {ExecutorError} EXECUTOR_STEP_FAILED for a failed target (cause = its error); EXECUTOR_UNCANONICAL_CONFIG /
 *   EXECUTOR_INVALID_ARGUMENT for a config that is not a JSON object, before anything is written
 */
export async function claimAndRun<C>(
  sweepRoot: string,
  targets: readonly SweepTarget<C>[],
  runFn: (target: SweepTarget<C>, signal: AbortSignal) => Promise<void> | void,
  options: ClaimAndRunOptions = {},
): Promise<Map<string, ClaimOutcome>> {
  const logger = options.logger ?? stderrLogger;
  const timings = options.timings ?? leaseTimings();
  const configs = targets.map((t) => {
    const config = t.config === null || t.config === undefined ? null : parsePyJson(canonicalJson(t.config));
    if (config !== null && (typeof config !== 'object' || Array.isArray(config))) {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `sweep target ${t.targetId}: its config must serialize to a JSON object`, { details: { target: t.targetId } });
    }
    return config as Record<string, unknown> | null;
  });
  const provenance = await captureProvenance();
  const outcomes = new Map<string, ClaimOutcome>();
  for (const [i, target] of targets.entries()) {
    const outputPath = prefixJoin(sweepRoot, target.targetId);
    const outcome = await runUnderLease({
      label: target.targetId,
      outputPath,
      timings,
      forceRunFailed: true,
      logger,
      initialStatus: null,
      onState: () => undefined,
      verifyHit: async () => undefined,
      attempt: async (signal) => {
        await runFn(target, signal);
        signal.throwIfAborted();
        await writeRecord(makeRecord({ name: target.targetId, output_path: outputPath, config: configs[i] ?? null, provenance }));
      },
    });
    if (outcome === 'skipped') logger.info(`Skipping ${target.targetId}: already completed by a peer worker`);
    outcomes.set(target.targetId, outcome);
  }
  return outcomes;
}
