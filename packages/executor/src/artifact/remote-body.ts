import { existsSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { currentClient, findWorkspaceRoot, FrayError, RemoteCallable } from '@marin/fray';
import type { Client, JobStatus } from '@marin/fray';
import { filesystemFor, parsePyJson, pyJsonDumps } from '@marin/rigging';
import { ExecutorError, stepFailed } from '../errors.js';
import type { ExecutorLogger } from '../logger.js';
import { stepJobRequest } from '../run/step-job.js';
import { buildStepReentry } from '../run/step-reentry.js';
import { fileUnder } from '../status/status-store.js';
import type { ArtifactStep } from './artifact-step.js';
import { resultPayload } from './artifact-type.js';

/** Where a re-entered worker leaves a remote body's value for the runner, which records it (then removes the file). */
export const REMOTE_RESULT_FILE = '.artifact_remote_result.json';

/**
 * How a worker of a remote backend re-enters the experiment to run one artifact's body: `artifactMain` fills it in
 * from `process.argv`; the worker calls `artifactMain` again with the same flags plus `--run-step <outputPath>`.
 */
export interface ArtifactReentryTarget {
  /** The entry script (absolute, or relative to the working directory). */
  readonly entryScript: string;
  /** Its run-wide flags (`--version`, `--override`, …); the internal ones are dropped when re-entering. */
  readonly userArgs: readonly string[];
  /** Node flags to repeat (`--conditions=@marin/source --import tsx`, …). */
  readonly execArgv: readonly string[];
}

/** Where and how remote bodies run: the Fray client (default `currentClient()`), the re-entry target, the bundle root. */
export interface RemoteBodyOptions {
  client?: Client;
  reentry?: ArtifactReentryTarget | null;
  /** @default `IRIS_WORKDIR` inside an Iris task, else the git top level of the working directory */
  workspace?: string;
}

/** The body of a handle: the function `run` is, or the one a `remote()` wraps. */
export function bodyOf(h: ArtifactStep): (config: unknown) => unknown {
  return RemoteCallable.is(h.run) ? (h.run.fn as (config: unknown) => unknown) : (h.run as (config: unknown) => unknown);
}

function isRemoteBackend(client: Client): boolean {
  const backend = (client as { backend?: unknown }).backend;
  return backend === 'iris' || backend === 'ray';
}

function workspaceOf(options: RemoteBodyOptions): string {
  if (options.workspace !== undefined) return resolve(options.workspace);
  const workdir = process.env['IRIS_WORKDIR'];
  return resolve(process.env['IRIS_TASK_ID'] && workdir ? workdir : findWorkspaceRoot());
}

/**
 * Checks, before anything is written, that the remote steps among `handles` can run on the current client: on a
 * remote backend (Iris, Ray) a worker must re-enter the entry script, which must exist inside the workspace bundle.
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT naming the step and why a worker could not run it
 */
export function checkRemoteBodies(handles: readonly ArtifactStep[], options: RemoteBodyOptions): void {
  const remote = handles.filter((h) => RemoteCallable.is(h.run));
  if (remote.length === 0) return;
  const client = options.client ?? currentClient();
  if (!isRemoteBackend(client)) return;
  const step = (remote[0] as ArtifactStep).id;
  const target = options.reentry ?? null;
  if (target === null) {
    throw new ExecutorError(
      'EXECUTOR_INVALID_ARGUMENT',
      `artifact ${step} must run as a job on a remote Fray backend, which re-enters the entry script with --run-step, but this run was not started by artifactMain, so no entry script is known; call artifactMain({ build }) from the entry script`,
      { details: { step, reason: 'no-entry-script' } },
    );
  }
  const script = resolve(target.entryScript);
  const workspace = workspaceOf(options);
  const rel = relative(workspace, script);
  if (!existsSync(script) || rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `artifact ${step}: entry script "${script}" is missing or outside the workspace "${workspace}" that workers receive`, {
      details: { step, entryScript: script, workspace, reason: 'entry-script-not-in-workspace' },
    });
  }
}

/**
 * Runs a remote artifact body as one Fray job (Marin's remote steps): the `remote()` callable's resources, env vars
 * and dependency groups; on the local backend the job calls the body in this process, elsewhere the worker
 * re-enters the experiment (`artifactMain … --run-step <outputPath>`) and leaves the value in
 * {@link REMOTE_RESULT_FILE}. The runner keeps the lease, the heartbeat, the record and the status; the job only
 * computes, and is terminated when `signal` aborts (lease lost).
 * @throws {ExecutorError} EXECUTOR_STEP_FAILED when the job fails or is stopped (`details.jobId`, `details.status`)
 */
export async function runRemoteBody(
  h: ArtifactStep,
  inv: { outputPath: string; prefix: string; config: unknown; canonical: string; signal: AbortSignal; logger: ExecutorLogger },
  options: RemoteBodyOptions,
): Promise<unknown> {
  const rc = h.run as RemoteCallable<never>;
  const client = options.client ?? currentClient();
  const target = options.reentry ?? null;
  const resultUrl = fileUnder(inv.outputPath, REMOTE_RESULT_FILE);
  let value: unknown;
  let inProcess = false;
  const request = stepJobRequest({
    label: h.id.replace('@', '-'),
    remote: rc,
    run: async () => {
      inProcess = true;
      value = await (rc.fn as (config: unknown) => unknown)(inv.config);
    },
    ...(target === null
      ? {}
      : {
          reentry: buildStepReentry({
            outputPath: inv.outputPath,
            prefix: inv.prefix,
            stepConfigJson: inv.canonical,
            entryScript: target.entryScript,
            userArgs: target.userArgs,
            execArgv: target.execArgv,
            workspace: workspaceOf(options),
          }),
        }),
  });
  const job = await client.submit(request, { adoptExisting: false });
  inv.logger.info(`Step ${h.id} submitted as Fray job ${job.jobId}`);
  const onAbort = (): void => void job.terminate().catch(() => undefined);
  inv.signal.addEventListener('abort', onAbort, { once: true });
  try {
    await job.wait({ raiseOnFailure: true, pollInitialMs: 50, pollBackoff: 1.25 });
  } catch (error) {
    if (inv.signal.aborted) throw inv.signal.reason;
    const status: JobStatus = FrayError.hasCode(error, 'FRAY_JOB_FAILED') && (error as { failedStatus?: JobStatus }).failedStatus === 'stopped' ? 'stopped' : 'failed';
    const logTail = await job.logs({ maxLines: 50 }).catch(() => [] as string[]);
    throw stepFailed(h.id, {
      cause: logTail.length === 0 ? error : new ExecutorError('EXECUTOR_STEP_FAILED', `job ${job.jobId} ${status}; its output ends with:\n${logTail.join('\n')}`, { cause: error }),
      status,
      details: { jobId: job.jobId, status, logTail },
    });
  } finally {
    inv.signal.removeEventListener('abort', onAbort);
  }
  if (inProcess) return value;
  // Re-entered elsewhere: the worker left the value's payload (or nothing, for a data artifact).
  const fs = filesystemFor(resultUrl);
  if (!(await fs.exists(resultUrl))) return undefined;
  const payload = parsePyJson(await fs.readText(resultUrl));
  await fs.rm(resultUrl, { missingOk: true });
  return payload === null ? undefined : payload;
}

/** A worker's half of {@link runRemoteBody}: runs the body on `config` and leaves the value for the runner. */
export async function runBodyAsWorker(h: ArtifactStep, outputPath: string, config: unknown): Promise<void> {
  const value = await bodyOf(h)(config);
  const payload = resultPayload(h.artifactType, value);
  const url = fileUnder(outputPath, REMOTE_RESULT_FILE);
  await filesystemFor(url).writeText(url, pyJsonDumps(payload));
}
