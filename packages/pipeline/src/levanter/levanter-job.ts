import { readFileSync } from 'node:fs';
import type { StepProgress } from '@marin/executor';
import { Entrypoint, FrayError, createEnvironment, currentClient, randomHex8, sanitizeJobName } from '@marin/fray';
import type { Client, JobHandle, PythonEnvSpec, ResourceConfig } from '@marin/fray';
import { exists, pollUntil, readText, schemeOf } from '@marin/rigging';
import { levanterJobScriptPath } from '../assets.js';
import { PipelineError } from '../errors.js';
import { lastErrorLine } from './levanter-log.js';
import { MetricsTail } from './levanter-metrics.js';
import { meaningfulTail } from './levanter-output.js';
import { levanterPath } from './levanter-runtime.js';
import { TrainProgress, formatTrainStatus } from './train-progress.js';

const JOB_SCRIPT = 'levanter_job.py';
/** Lines of a failed job's output its error keeps (`details.outputTail`). */
const FAILURE_TAIL_LINES = 20;

/** Options of {@link runLevanterJob}. */
export interface LevanterJobOptions {
  /** What the job runs, for names and messages: `train_lm`, `eval_lm`, `eval_harness`. */
  what: string;
  /** Prefix of the job name; each attempt gets a random suffix so a rerun never adopts a finished job. */
  jobName: string;
  /** Arguments of `python` (the environment's interpreter, first on `PATH` in the job). */
  args: readonly string[];
  /** Small files shipped with the job; an argument equal to a file name refers to the file. @default none */
  files?: Record<string, string>;
  resources: ResourceConfig;
  envVars: Readonly<Record<string, string>>;
  pythonEnv: PythonEnvSpec;
  /** Aborting terminates the job. */
  signal: AbortSignal;
  /** The config file the job reads; errors name it. */
  configPath: string;
  /**
   * Where everything the job prints (Levanter's log, JAX's, tracebacks) goes instead of the terminal: the
   * file is replaced at each attempt; a bucket URL is written on the job's disk and copied there at the end.
   */
  logPath: string;
  /** Where the metrics of Levanter's tracker go, one JSON line per step (see the package README). @default none */
  metricsPath?: string;
  /**
   * The step's progress display: the output file is named once, a training job's status (step/total, loss,
   * tokens/s, ETA, from `metricsPath`) follows the run, and at `verbose` the job's output is also shown.
   * @default none (nothing is shown)
   */
  progress?: StepProgress;
  /** The steps of a training job, for its status line; without it no status is shown. @default none */
  totalSteps?: number;
  /** @default currentClient() */
  client?: Client;
}

/** A finished Levanter job. */
export interface LevanterJobResult {
  jobId: string;
  /** The job's output lines (the file at `logPath`; the backend's output tail when that cannot be read). */
  lines: string[];
}

/**
 * Runs `python <args>` in the Levanter environment as a Fray binary job with the given resources and
 * waits for it. The job runs through the package's `levanter_job.py`, which writes its whole output to
 * `logPath` (shown only at `verbose`) and, with `metricsPath`, the tracker's metrics per step; while a
 * training job runs, its status line follows the metrics file. An aborted `signal` terminates the job
 * (the partial output stays for a rerun to resume from).
 *
 * @throws {PipelineError} PIPELINE_JOB_FAILED when the job cannot be submitted, its Python environment
 *   cannot be built (`details.stage: 'python-env'`), it fails (`details.errorLine` holds the exception
 *   line Levanter's traceback ended with, `details.outputTail` the last meaningful lines of its output,
 *   `details.configPath` the config it read, `details.logPath` its output) or it is terminated
 */
export async function runLevanterJob(options: LevanterJobOptions): Promise<LevanterJobResult> {
  const { what, signal, configPath, logPath, progress } = options;
  signal.throwIfAborted();
  const client = options.client ?? currentClient();
  const name = `${sanitizeJobName(options.jobName).slice(0, 110)}-${randomHex8()}`;
  let handle: JobHandle;
  try {
    handle = await client.submit(
      {
        name,
        entrypoint: Entrypoint.fromBinary('python', jobArgs(options), { files: { ...options.files, [JOB_SCRIPT]: jobScript() } }),
        resources: options.resources,
        environment: createEnvironment({ envVars: { ...options.envVars } }),
        pythonEnv: options.pythonEnv,
      },
      { adoptExisting: false },
    );
  } catch (cause) {
    throw new PipelineError('PIPELINE_JOB_FAILED', `cannot submit the Levanter ${what} job "${name}"`, {
      cause,
      details: { stage: 'submit', what, configPath },
    });
  }
  progress?.note(`Levanter ${what} output: ${logPath}`);
  const stop = (): void => void handle.terminate().catch(() => undefined);
  signal.addEventListener('abort', stop, { once: true });
  const following = new AbortController();
  const followed = followTraining(options, following.signal);
  let failure: unknown = null;
  try {
    await handle.wait();
  } catch (e) {
    failure = e;
  } finally {
    signal.removeEventListener('abort', stop);
    following.abort();
    await followed;
  }
  const lines = (await readOutput(logPath)) ?? (await handle.logs({ maxLines: 1000 }).catch(() => [] as string[]));
  if (failure === null) return { jobId: handle.jobId, lines };

  const details = { what, jobId: handle.jobId, configPath, logPath, outputTail: meaningfulTail(lines, { maxLines: FAILURE_TAIL_LINES }) };
  if (signal.aborted) {
    throw new PipelineError('PIPELINE_JOB_FAILED', `the Levanter ${what} job "${handle.jobId}" was terminated because the step was interrupted; rerun the step to resume`, {
      cause: signal.reason,
      details: { ...details, stage: 'interrupted' },
    });
  }
  const envError = pythonEnvError(failure);
  if (envError !== null) {
    throw new PipelineError('PIPELINE_JOB_FAILED', `cannot build the Python environment of "${options.pythonEnv.name}" for the Levanter ${what} job: ${envError}`, {
      cause: failure,
      details: { ...details, stage: 'python-env', lock: options.pythonEnv.name, errorLine: envError },
    });
  }
  const errorLine = lastErrorLine(lines) ?? 'the job printed nothing';
  throw new PipelineError('PIPELINE_JOB_FAILED', `Levanter ${what} failed: ${errorLine} (config "${configPath}", output kept in "${logPath}")`, {
    cause: failure,
    details: { ...details, stage: 'levanter', errorLine },
  });
}

/**
 * The job's `python` arguments: the shipped `levanter_job.py` with the output file, the metrics file when
 * asked, `--echo` at `verbose` (the output is shown as well), then the Levanter command.
 */
export function jobArgs(options: Pick<LevanterJobOptions, 'args' | 'logPath' | 'metricsPath' | 'progress'>): string[] {
  const args = [JOB_SCRIPT, '--output-log', levanterPath(options.logPath)];
  if (options.metricsPath !== undefined) args.push('--metrics', levanterPath(options.metricsPath));
  if (options.progress?.level === 'verbose') args.push('--echo');
  return [...args, '--', ...options.args];
}

let jobScriptText: string | undefined;
function jobScript(): string {
  jobScriptText ??= readFileSync(levanterJobScriptPath(), 'utf8');
  return jobScriptText;
}

/** The job's output file as lines, or `null` when it cannot be read (never written, or on another machine's disk). */
async function readOutput(url: string): Promise<string[] | null> {
  try {
    if (!(await exists(url))) return null;
    const text = await readText(url);
    return (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
  } catch {
    return null;
  }
}

/**
 * Shows a training job's status from its metrics file until `stop` aborts, then once more: every second
 * for a local file, every 10 s for one on a bucket (which the job only writes at its end).
 */
async function followTraining(options: LevanterJobOptions, stop: AbortSignal): Promise<void> {
  const { metricsPath, progress, totalSteps } = options;
  if (metricsPath === undefined || progress === undefined || totalSteps === undefined) return;
  const tail = new MetricsTail(metricsPath);
  const training = new TrainProgress(totalSteps);
  const scheme = schemeOf(metricsPath);
  const check = async (): Promise<boolean> => {
    training.add(await tail.read().catch(() => []));
    const status = training.status();
    if (status !== null) progress.status(formatTrainStatus(status));
    return false;
  };
  await pollUntil(check, { interval: scheme === null || scheme === 'file' ? 1000 : 10_000, signal: stop }).catch(() => undefined);
  await check();
}

/** The build error text of a job that failed before it started because its Python environment could not be built. */
function pythonEnvError(error: unknown): string | null {
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 8; depth += 1) {
    if (FrayError.is(e)) {
      const text = e.details['errorText'];
      if (typeof text === 'string' && typeof e.details['lock'] === 'string') return text;
      if (typeof e.details['command'] === 'string' && e.message.startsWith('cannot start')) return e.message;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}
