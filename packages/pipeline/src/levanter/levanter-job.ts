import { Entrypoint, FrayError, createEnvironment, currentClient, randomHex8, sanitizeJobName } from '@marin/fray';
import type { Client, JobHandle, PythonEnvSpec, ResourceConfig } from '@marin/fray';
import { writeText } from '@marin/rigging';
import { PipelineError } from '../errors.js';
import { lastErrorLine } from './levanter-log.js';

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
  /** Where the job's output (its last 1,000 lines) is kept once it ends, whatever the outcome. */
  logPath: string;
  /** @default currentClient() */
  client?: Client;
}

/** A finished Levanter job. */
export interface LevanterJobResult {
  jobId: string;
  /** The job's last output lines. */
  lines: string[];
}

/**
 * Runs `python <args>` in the Levanter environment as a Fray binary job with the given resources and
 * waits for it; Fray's client logs each output line as it arrives, and the tail is kept at `logPath`.
 * An aborted `signal` terminates the job (the partial output stays for a rerun to resume from).
 *
 * @throws {PipelineError} PIPELINE_JOB_FAILED when the job cannot be submitted, its Python environment
 *   cannot be built (`details.stage: 'python-env'`), it fails (`details.errorLine` holds the exception
 *   line Levanter's traceback ended with, `details.configPath` the config it read) or it is terminated
 */
export async function runLevanterJob(options: LevanterJobOptions): Promise<LevanterJobResult> {
  const { what, signal, configPath, logPath } = options;
  signal.throwIfAborted();
  const client = options.client ?? currentClient();
  const name = `${sanitizeJobName(options.jobName).slice(0, 110)}-${randomHex8()}`;
  let handle: JobHandle;
  try {
    handle = await client.submit(
      {
        name,
        entrypoint: Entrypoint.fromBinary('python', options.args, options.files === undefined ? {} : { files: options.files }),
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
  const stop = (): void => void handle.terminate().catch(() => undefined);
  signal.addEventListener('abort', stop, { once: true });
  let failure: unknown = null;
  try {
    await handle.wait();
  } catch (e) {
    failure = e;
  } finally {
    signal.removeEventListener('abort', stop);
  }
  const lines = await handle.logs({ maxLines: 1000 }).catch(() => [] as string[]);
  // Keeping the output is best effort: a failed write must not hide the job's own outcome.
  await writeText(logPath, `${lines.join('\n')}\n`).catch(() => undefined);
  if (failure === null) return { jobId: handle.jobId, lines };

  const details = { what, jobId: handle.jobId, configPath, logPath };
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
