import { createLease, filesystemFor, isRecord, parsePyJson, RiggingError } from '@marin/rigging';
import type { LeaseTimings } from '@marin/rigging';
import type { ExecutorStep } from '../dag/executor-step.js';
import { ExecutorError } from '../errors.js';
import type { ExecutorLogger } from '../logger.js';
import { fileUnder, INFO_FILE, LEASE_FILE } from '../status/status-store.js';
import { isFailedStatus, STATUS_RUNNING, STATUS_SUCCESS } from '../status/status.js';
import type { StepStatus } from '../status/status.js';
import type { VersionGraph } from '../versioning/version-graph.js';
import { diffVersions, formatChange } from './version-diff.js';

/**
 * What a dry run would do with one step: `prune` is a step left out because everything it feeds
 * is already built (`not needed: downstream already built`).
 */
export type PlanAction = 'skip' | 'run' | 'wait' | 'take over' | 'prune';

/** One entry of `Executor.explain()`: the action for a step and why. */
export interface StepPlan {
  step: ExecutorStep;
  /** `<name>-<hash6>`. */
  label: string;
  outputPath: string;
  action: PlanAction;
  /** Human-readable reason, e.g. `no status recorded; after a-123456`. */
  reason: string;
  /**
   * For `run` / `take over`: diff lines against the nearest earlier version of the same step name
   * (`~ config.n: 3 → 4`), empty when nothing differs; `null` for `skip` / `wait` or when there is
   * no earlier version (the reason then says so).
   */
  diff: string[] | null;
  /** The output path of the earlier version the diff compares against, if any. */
  baseline: string | null;
}

/** Inputs of `explainSteps`. */
export interface ExplainInput {
  graph: VersionGraph;
  stepsToRun: readonly ExecutorStep[];
  /** Steps pruned by selection, each with the built step it feeds. @default none */
  pruned?: ReadonlyMap<ExecutorStep, ExecutorStep>;
  statuses: ReadonlyMap<ExecutorStep, StepStatus | null>;
  forceRunFailed: boolean;
  /** Steps `forceRun` selects: planned as `run` whatever their status. @default none */
  forced?: ReadonlySet<ExecutorStep>;
  /** SUCCESS steps whose recorded config differs in unversioned fields, with those fields. @default none */
  unversioned?: ReadonlyMap<ExecutorStep, string>;
  timings: LeaseTimings;
  logger: ExecutorLogger;
  /** Clock in milliseconds. @default Date.now */
  now?: () => number;
}

const MAX_CANDIDATES = 100;

function parentOf(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  const i = trimmed.lastIndexOf('/');
  return i <= 0 ? (i === 0 ? '/' : '.') : trimmed.slice(0, i);
}

function lastSegment(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Finds the nearest earlier version of a step under its output path's parent directory: siblings
 * named `<last name segment>-<6 hex>` whose `.executor_info` has the same `name` and a non-empty
 * `version` (the 100 most recent), picking the fewest differing leaves (ties: newest info, then path).
 */
export async function nearestEarlierVersion(
  outputPath: string,
  name: string,
  version: unknown,
): Promise<{ path: string; changes: string[]; before: Record<string, unknown> } | null> {
  const parent = parentOf(outputPath);
  const fs = filesystemFor(parent);
  let entries;
  try {
    entries = await fs.ls(parent);
  } catch (e) {
    if (RiggingError.is(e)) return null;
    throw e;
  }
  const own = lastSegment(outputPath);
  const pattern = new RegExp(`^${escapeRegExp(lastSegment(name))}-[0-9a-f]{6}$`);
  const siblings = entries
    .filter((e) => e.type === 'directory')
    .map((e) => e.url.replace(/\/+$/, ''))
    .filter((u) => pattern.test(lastSegment(u)) && lastSegment(u) !== own);
  const stamped = await Promise.all(
    siblings.map(async (dir) => {
      const infoUrl = fileUnder(dir, INFO_FILE);
      try {
        const st = await fs.stat(infoUrl);
        return { dir, infoUrl, mtime: st.mtimeMs ?? 0 };
      } catch {
        return null;
      }
    }),
  );
  const recent = stamped
    .filter((s): s is { dir: string; infoUrl: string; mtime: number } => s !== null)
    .sort((a, b) => b.mtime - a.mtime || (a.dir < b.dir ? -1 : 1))
    .slice(0, MAX_CANDIDATES);
  let best: { path: string; changes: string[]; mtime: number; before: Record<string, unknown> } | null = null;
  for (const c of recent) {
    let info: unknown;
    try {
      info = parsePyJson(await fs.readText(c.infoUrl));
    } catch {
      continue;
    }
    if (!isRecord(info) || info['name'] !== name) continue;
    const earlier = info['version'];
    if (!isRecord(earlier) || Object.keys(earlier).length === 0) continue;
    const changes = diffVersions(earlier, version).map(formatChange);
    if (
      best === null ||
      changes.length < best.changes.length ||
      (changes.length === best.changes.length && (c.mtime > best.mtime || (c.mtime === best.mtime && c.dir < best.path)))
    ) {
      best = { path: c.dir, changes, mtime: c.mtime, before: earlier };
    }
  }
  return best === null ? null : { path: best.path, changes: best.changes, before: best.before };
}

/**
 * Plans a run without writing anything: one entry per step to run, in run
 * order, with the action (`skip`, `run`, `wait`, `take over`), the reason, and for steps that will
 * run a field-level diff against the nearest earlier version of the same name.
 *
 * @throws {ExecutorError} EXECUTOR_PREVIOUSLY_FAILED for a FAILED step when `forceRunFailed` is off.
 */
export async function explainSteps(input: ExplainInput): Promise<StepPlan[]> {
  const { graph, statuses } = input;
  const now = input.now ?? Date.now;
  const plans = new Map<ExecutorStep, StepPlan>();
  for (const step of input.stepsToRun) {
    const label = graph.label(step);
    const outputPath = graph.outputPaths.get(step)!;
    const status = statuses.get(step) ?? null;
    let action: PlanAction;
    let reason: string;
    if (status === STATUS_SUCCESS && input.forced?.has(step) === true) {
      action = 'run';
      reason = 'already succeeded; forced (--force-run), the output is replaced';
    } else if (status === STATUS_SUCCESS) {
      action = 'skip';
      reason = 'already succeeded';
      const changed = input.unversioned?.get(step);
      if (changed !== undefined) reason += `, although its unversioned config changed: ${changed}`;
    } else if (isFailedStatus(status)) {
      if (!input.forceRunFailed) {
        throw new ExecutorError('EXECUTOR_PREVIOUSLY_FAILED', `Step ${label} failed previously. Status: ${status}`, {
          details: { step: label, status },
        });
      }
      action = 'run';
      reason = `previous attempt ${status}; rerun (force_run_failed)`;
    } else if (status === STATUS_RUNNING) {
      const lease = createLease(fileUnder(outputPath, LEASE_FILE), { workerId: 'explain', timings: input.timings, clock: now, warn: (m) => input.logger.warn(m) });
      const current = await lease.read();
      const ago = current === null ? null : `${Math.max(0, Math.round(now() / 1000 - current.lease.timestamp))}s ago`;
      if (current !== null && current.fresh) {
        action = 'wait';
        reason = `running elsewhere (holder ${current.lease.workerId}, heartbeat ${ago ?? 'unknown'})`;
      } else {
        action = 'take over';
        reason = current === null ? 'RUNNING but no lease' : `RUNNING but lease stale (last heartbeat ${ago ?? 'unknown'})`;
      }
    } else if (status === null) {
      action = 'run';
      reason = 'no status recorded';
    } else {
      action = 'run';
      reason = `status ${status} recorded; run`;
    }
    const first = (graph.dependencies.get(step) ?? [])
      .map((d) => plans.get(d))
      .filter((p): p is StepPlan => p !== undefined && p.action !== 'skip')
      .map((p) => p.label);
    if (first.length > 0) reason += `; after ${first.join(', ')}`;
    let diff: string[] | null = null;
    let baseline: string | null = null;
    if (action === 'run' || action === 'take over') {
      const earlier = await nearestEarlierVersion(outputPath, step.name, graph.versions.get(step));
      if (earlier === null) {
        reason += `; no earlier version of ${step.name} under ${graph.prefix}`;
      } else {
        diff = earlier.changes;
        baseline = earlier.path;
      }
    }
    plans.set(step, { step, label, outputPath, action, reason, diff, baseline });
  }
  // Pruned steps come after the selected ones, dependencies first as in the graph.
  for (const step of graph.steps) {
    const builtBy = input.pruned?.get(step);
    if (builtBy === undefined) continue;
    plans.set(step, {
      step,
      label: graph.label(step),
      outputPath: graph.outputPaths.get(step)!,
      action: 'prune',
      reason: `not needed: downstream already built (${graph.label(builtBy)})`,
      diff: null,
      baseline: null,
    });
  }
  return [...plans.values()];
}

/** One plan entry as plain JSON (`--dry-run --json`): the step by name and label, no objects. */
export interface StepPlanJson {
  name: string;
  label: string;
  outputPath: string;
  action: PlanAction;
  reason: string;
  diff: string[] | null;
  baseline: string | null;
}

/** The JSON form of a plan entry. */
export function planToJson(p: StepPlan): StepPlanJson {
  return { name: p.step.name, label: p.label, outputPath: p.outputPath, action: p.action, reason: p.reason, diff: p.diff, baseline: p.baseline };
}

/** Renders a plan for printing: one line per step, diff lines indented below it. */
export function formatPlan(plans: readonly StepPlan[]): string[] {
  const pruned = plans.filter((p) => p.action === 'prune').length;
  const lines = [
    `Dry run: ${plans.length - pruned} step(s) selected${pruned > 0 ? `, ${pruned} pruned` : ''}; nothing will be written`,
  ];
  for (const p of plans) {
    lines.push(`  ${p.action} ${p.label}: ${p.reason}`);
    if (p.diff !== null) {
      lines.push(`    diff against ${lastSegment(p.baseline ?? '')}${p.diff.length === 0 ? ': no version differences' : ':'}`);
      for (const d of p.diff) lines.push(`      ${d}`);
    }
  }
  return lines;
}
