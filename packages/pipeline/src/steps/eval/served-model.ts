import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ACTOR_PARENT_PID_ENV, ACTOR_READY_PREFIX, Entrypoint, FrayError, connectActor, createEnvironment, currentClient, isFinished, randomHex8, sanitizeJobName } from '@marin/fray';
import type { ActorHandle, Client, JobHandle, PythonEnvSpec, ResourceConfig } from '@marin/fray';
import { exists, pollUntil, readText } from '@marin/rigging';
import { frayActorsPythonDir, servedLmScriptPath } from '../../assets.js';
import { PipelineError } from '../../errors.js';
import { lastErrorLine } from '../../levanter/levanter-log.js';
import { meaningfulTail } from '../../levanter/levanter-output.js';
import { levanterPath } from '../../levanter/levanter-runtime.js';

const SCRIPT = 'served_lm.py';
/** With fray's parent pid: the actor exits when that pid is gone on this host (a crashed step leaves no server behind). */
const PARENT_HOST_ENV = 'FRAY_ACTOR_PARENT_HOST';
/** How often the job's status and output are read while waiting for the ready line. */
const READY_POLL_MS = 200;
/** How long `close()` waits for the terminated job to be seen finished. */
const STOP_WAIT_MS = 30_000;

/** Options of {@link startServedModel}. */
export interface ServedModelOptions {
  /** Prefix of the job's name (a random suffix is added). */
  jobName: string;
  /** The actor's YAML config (`hf_checkpoint`, `model`, `trainer`, `batch_size`, `seq_len`). */
  configPath: string;
  /** Where the actor's own output (Levanter's and JAX's logging) goes. */
  logPath: string;
  resources: ResourceConfig;
  envVars: Readonly<Record<string, string>>;
  pythonEnv: PythonEnvSpec;
  /** How long loading and compiling may take before the ready line. */
  readyTimeoutMs: number;
  /** Aborting stops the wait (and the job). */
  signal: AbortSignal;
  /** @default currentClient() */
  client?: Client;
}

/** A served model: its Fray job, the actor's address and pid from its ready line, and a handle to call it. */
export interface ServedModel extends AsyncDisposable {
  readonly jobId: string;
  readonly address: string;
  readonly pid: number;
  readonly handle: ActorHandle;
  /** Closes the connection and terminates the job (idempotent); waits until the job is seen finished. */
  close(): Promise<void>;
}

/** The address and pid of the last ready line in `lines`, if any. */
export function readyLineOf(lines: readonly string[]): { address: string; pid: number } | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] ?? '';
    const at = line.indexOf(ACTOR_READY_PREFIX);
    if (at < 0) continue;
    try {
      const parsed = JSON.parse(line.slice(at + ACTOR_READY_PREFIX.length)) as { address?: unknown; pid?: unknown };
      if (typeof parsed.address === 'string' && typeof parsed.pid === 'number') return { address: parsed.address, pid: parsed.pid };
    } catch {
      continue;
    }
  }
  return null;
}

/** The files shipped with the job: the actor script and `@marin/fray`'s Python actor host, flattened. */
function jobFiles(): Record<string, string> {
  const fray = frayActorsPythonDir();
  return {
    [SCRIPT]: readFileSync(servedLmScriptPath(), 'utf8'),
    'fray_actors_client.py': readFileSync(join(fray, 'client.py'), 'utf8'),
    'fray_actors_host.py': readFileSync(join(fray, 'host.py'), 'utf8'),
  };
}

async function outputTail(logPath: string): Promise<string[]> {
  try {
    if (!(await exists(logPath))) return [];
    return (await readText(logPath)).split('\n');
  } catch {
    return [];
  }
}

/**
 * Starts `served_lm.py` as a Fray binary job in the Levanter environment and waits for its ready line
 * (`FRAY_ACTOR_READY {"address", "pid"}` in the job's output, as `@marin/fray`'s actor hosts print it), then
 * connects to it with `connectActor`. The job gets this process's pid and host name, so on this machine it exits
 * within about a second of this process's death.
 *
 * @throws {PipelineError} PIPELINE_JOB_FAILED when the job cannot be submitted (`details.stage: 'submit'`), ends
 *   before it serves (`'serve'`, with `details.errorLine` from its log), or prints no ready line within
 *   `readyTimeoutMs` (`'ready'`, cause FRAY_ACTOR_NOT_READY); the job is terminated in every case
 */
export async function startServedModel(options: ServedModelOptions): Promise<ServedModel> {
  const { signal, logPath } = options;
  signal.throwIfAborted();
  const client = options.client ?? currentClient();
  const name = `${sanitizeJobName(options.jobName).slice(0, 110)}-${randomHex8()}`;
  let job: JobHandle;
  try {
    job = await client.submit(
      {
        name,
        entrypoint: Entrypoint.fromBinary('python', [SCRIPT, '--config_path', levanterPath(options.configPath), '--output-log', levanterPath(logPath)], { files: jobFiles() }),
        resources: options.resources,
        environment: createEnvironment({ envVars: { ...options.envVars, [ACTOR_PARENT_PID_ENV]: String(process.pid), [PARENT_HOST_ENV]: hostname() } }),
        pythonEnv: options.pythonEnv,
      },
      { adoptExisting: false },
    );
  } catch (cause) {
    throw new PipelineError('PIPELINE_JOB_FAILED', `cannot submit the served model job "${name}"`, { cause, details: { stage: 'submit', what: 'serve' } });
  }
  const details = { what: 'serve', jobId: job.jobId, configPath: options.configPath, logPath };
  let ready: { address: string; pid: number } | null = null;
  let finished = false;
  try {
    await pollUntil(
      async () => {
        finished = isFinished(await job.status());
        ready = readyLineOf(await job.logs({ maxLines: 50 }));
        return ready !== null || finished;
      },
      { timeoutMs: options.readyTimeoutMs, interval: READY_POLL_MS, signal },
    );
  } catch (cause) {
    await job.terminate().catch(() => undefined);
    throw new PipelineError('PIPELINE_JOB_FAILED', `the served model job "${job.jobId}" was terminated because the step was interrupted`, {
      cause,
      details: { ...details, stage: 'interrupted' },
    });
  }
  if (ready === null || finished) {
    await job.terminate().catch(() => undefined);
    const lines = await outputTail(logPath);
    const outputTailLines = meaningfulTail(lines, { maxLines: 20 });
    if (finished && ready === null) {
      const errorLine = lastErrorLine(lines) ?? 'the job printed nothing';
      throw new PipelineError('PIPELINE_JOB_FAILED', `the served model ended before it served: ${errorLine} (output kept in "${logPath}")`, {
        details: { ...details, stage: 'serve', errorLine, outputTail: outputTailLines },
      });
    }
    const notReady = new FrayError('FRAY_ACTOR_NOT_READY', `actor "${name}" printed no ready line within ${options.readyTimeoutMs} ms`, {
      details: { actor: name, jobId: job.jobId, tail: outputTailLines },
    });
    throw new PipelineError('PIPELINE_JOB_FAILED', `the served model was not ready within ${options.readyTimeoutMs} ms (output kept in "${logPath}")`, {
      cause: notReady,
      details: { ...details, stage: 'ready', outputTail: outputTailLines },
    });
  }
  const { address, pid } = ready as { address: string; pid: number };
  const handle = connectActor(address, { name });
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await handle.close().catch(() => undefined);
      await job.terminate().catch(() => undefined);
      await pollUntil(async () => isFinished(await job.status()), { timeoutMs: STOP_WAIT_MS, interval: READY_POLL_MS }).catch(() => false);
    })();
    return closing;
  };
  return { jobId: job.jobId, address, pid, handle, close, [Symbol.asyncDispose]: close };
}
