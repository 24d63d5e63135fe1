import { readFile } from 'node:fs/promises';
import { parsePyJson } from '@marin/rigging';
import { ExecutorStep } from '../dag/executor-step.js';
import { InputName } from '../dag/input-name.js';
import type { StepContext } from '../dag/types.js';
import { ExecutorError } from '../errors.js';
import type { ExecutorLogger } from '../logger.js';
import { stripFloatValues } from '../resolution/instantiate-config.js';
import { absolutePrefix } from '../resolution/make-prefix-absolute.js';
import { maxMirrorBudgetGb } from '../resolution/max-mirror-budget.js';
import { callStepFunction } from '../run/step-runner.js';
import { VersionGraph } from '../versioning/version-graph.js';

/** Options of {@link runStepWorker}. */
export interface RunStepWorkerOptions {
  /** The entry script's steps (what it passes to `executorMain`). */
  steps: readonly (ExecutorStep | InputName | null | undefined)[];
  /** The submitter's prefix, so output paths come out the same. */
  prefix: string;
  /** `--run-step`: the output path of the step to run. */
  outputPath: string;
  /** `--step-config-file`: the instantiated config as Python-compatible JSON. */
  stepConfigFile: string;
  /** Where progress lines go. */
  logger: ExecutorLogger;
  /** Writes the error of a failed attempt. */
  writeError: (text: string) => void;
  /** Time a step gets to settle after SIGTERM aborted its signal. @default 2000 */
  termGraceMs?: number;
}

const DEFAULT_TERM_GRACE_MS = 2000;

/**
 * Finds the step whose output path is `outputPath` among every versioned step of `steps` under
 * `prefix` (pseudo-only steps included).
 *
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT `step <outputPath> not found in the rebuilt DAG;
 * the worker's steps differ from the submitter's` (`details.reason = 'step-not-found'`).
 */
export function findStepByOutputPath(
  steps: RunStepWorkerOptions['steps'],
  prefix: string,
  outputPath: string,
): { step: ExecutorStep; label: string; graph: VersionGraph } {
  const graph = new VersionGraph({ prefix: absolutePrefix(prefix), logger: { info: () => {}, warn: () => {} } });
  for (const entry of steps) {
    const step = entry instanceof InputName ? entry.step : entry;
    if (step instanceof ExecutorStep) graph.computeVersion(step, false);
  }
  const step = graph.steps.find((s) => graph.outputPaths.get(s) === outputPath);
  if (step === undefined) {
    throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `step ${outputPath} not found in the rebuilt DAG; the worker's steps differ from the submitter's`, {
      details: { outputPath, prefix, reason: 'step-not-found', known: graph.steps.length },
    });
  }
  return { step, label: graph.label(step), graph };
}

async function readStepConfig(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `cannot read step config file "${file}"`, { cause, details: { file } });
  }
  try {
    // Floats arrive as FloatValue markers (so 1.0 survives the trip); the step sees plain numbers.
    return stripFloatValues(parsePyJson(text));
  } catch (cause) {
    throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `step config file "${file}" is not valid JSON`, { cause, details: { file } });
  }
}

/**
 * Worker mode of `executorMain`: rebuild the DAG, find the step by output path,
 * and run only its function with the shipped config and a `StepContext` whose signal aborts on
 * SIGTERM, inside `mirrorBudget` when the step has mirrored inputs. Writes no status, lease, info or
 * experiment file. Resolves the process exit code: 0 on success, 1 on any error (printed).
 */
export async function runStepWorker(options: RunStepWorkerOptions): Promise<number> {
  const { logger } = options;
  let label = options.outputPath;
  const controller = new AbortController();
  let onTerm: (() => void) | undefined;
  try {
    const found = findStepByOutputPath(options.steps, options.prefix, options.outputPath);
    label = found.label;
    const config = await readStepConfig(options.stepConfigFile);
    const ctx: StepContext = { name: found.step.name, outputPath: options.outputPath, signal: controller.signal };
    logger.info(`Worker running step ${label} (${options.outputPath})`);
    const started = performance.now();
    const work = callStepFunction({ step: found.step, label, config, ctx, mirrorBudgetGb: maxMirrorBudgetGb(found.step.config) });
    // A listener replaces Node's default exit on SIGTERM: abort the step's signal, give it a grace
    // period to stop, then give up on it.
    const terminated = new Promise<never>((_, reject) => {
      onTerm = () => {
        const reason = new ExecutorError('EXECUTOR_STEP_FAILED', `step ${label} was terminated (SIGTERM)`, { details: { step: label } });
        controller.abort(reason);
        setTimeout(() => reject(reason), options.termGraceMs ?? DEFAULT_TERM_GRACE_MS).unref();
      };
      process.once('SIGTERM', onTerm);
    });
    await Promise.race([work, terminated]);
    logger.info(`Worker finished step ${label} in ${((performance.now() - started) / 1000).toFixed(2)}s`);
    return 0;
  } catch (error) {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    options.writeError(`error: step ${label} failed in worker mode: ${text}\n${causeText(error)}`);
    return 1;
  } finally {
    if (onTerm !== undefined) process.removeListener('SIGTERM', onTerm);
  }
}

/** The messages of an error's cause chain, one per line (the stack already shows the first). */
function causeText(error: unknown): string {
  const lines: string[] = [];
  let cause = error instanceof Error ? error.cause : undefined;
  for (let depth = 0; cause !== undefined && cause !== null && depth < 8; depth++) {
    lines.push(`caused by: ${cause instanceof Error ? cause.message : String(cause)}`);
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return lines.map((l) => `${l}\n`).join('');
}
