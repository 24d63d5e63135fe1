import { mapLimit, RiggingError } from '@marin/rigging';
import type { ExecutorStep } from '../dag/executor-step.js';
import type { ExecutorLogger } from '../logger.js';
import { INFO_FILE, fileUnder } from '../status/status-store.js';
import { STATUS_RUNNING, STATUS_SUCCESS } from '../status/status.js';
import type { StepStatus } from '../status/status.js';
import { readInfoText } from '../status/verify-on-hit.js';
import type { VersionGraph } from '../versioning/version-graph.js';
import { buildExperimentInfo, buildStepInfo, experimentInfoPath, infoFileText, writeTextFile } from './info-files.js';

/** What the info writer reads of a run. */
export interface InfoWriterContext {
  graph: VersionGraph;
  logger: ExecutorLogger;
  prefix: string;
  /** Directory of the experiment JSON files. */
  executorInfoBasePath: string;
  /** Concurrent reads and writes at most. */
  ioConcurrency: number;
}

/** Writes `<out>/.executor_info` unless it already holds exactly `text` (no-op re-runs touch no mtimes). */
export async function writeInfoIfChanged(ctx: InfoWriterContext, step: ExecutorStep, text: string): Promise<void> {
  const out = ctx.graph.outputPaths.get(step)!;
  if ((await readInfoText(out).catch(() => null)) === text) return;
  await writeTextFile(fileUnder(out, INFO_FILE), text);
}

/**
 * The holder of a step's lease writes its own `.executor_info` after acquiring and again right
 * before SUCCESS, so the info always describes the run that wrote SUCCESS, even when another
 * executor with different unversioned config values wrote its info meanwhile.
 */
export async function writeOwnInfo(ctx: InfoWriterContext, step: ExecutorStep): Promise<void> {
  await writeInfoIfChanged(ctx, step, infoFileText(buildStepInfo(ctx.graph, step), ctx.logger));
}

/**
 * Writes every step's `.executor_info` (except outputs whose info belongs to another run) and the
 * experiment JSON; returns the experiment JSON's path. A fully built prefix can be re-run read-only.
 */
export async function writeRunInfos(
  ctx: InfoWriterContext,
  run: { statuses: ReadonlyMap<ExecutorStep, StepStatus | null>; keepInfo: ReadonlySet<ExecutorStep>; stepsToRun: readonly ExecutorStep[] },
): Promise<string> {
  const all = ctx.graph.steps;
  const infos = all.map((s) => buildStepInfo(ctx.graph, s));
  await mapLimit(all, ctx.ioConcurrency, async (step, i) => {
    // A SUCCESS output keeps the info of the run that wrote it, and a RUNNING one is the
    // holder's to describe (it writes its info under the lease, see writeOwnInfo).
    const status = run.statuses.get(step);
    if (run.keepInfo.has(step) || status === STATUS_SUCCESS || status === STATUS_RUNNING) return;
    await writeInfoIfChanged(ctx, step, infoFileText(infos[i], ctx.logger));
  });
  const infoPath = experimentInfoPath(ctx.executorInfoBasePath, infos);
  const experiment = await buildExperimentInfo(ctx.prefix, infos);
  const nothingToRun = run.stepsToRun.every((s) => run.statuses.get(s) === STATUS_SUCCESS);
  try {
    await writeTextFile(infoPath, infoFileText(experiment, ctx.logger));
  } catch (e) {
    // A fully built prefix can be re-run read-only: nothing else would be written.
    if (!(nothingToRun && RiggingError.hasCode(e, 'RIGGING_PERMISSION_DENIED'))) throw e;
    ctx.logger.warn(`every step has already succeeded and ${infoPath} cannot be written (${e.message}); continuing read-only`);
  }
  return infoPath;
}
