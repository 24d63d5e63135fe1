import { createHash } from 'node:crypto';
import { Entrypoint, ResourceConfig, currentClient, sanitizeJobName } from '@marin/fray';
import type { Client, JobHandle, JobRequest, JsonValue, ResourceOptions } from '@marin/fray';
import { mapLimit } from '@marin/rigging';

/** One unit of a step's work: a name (unique within the step) and the JSON arguments of its worker function. */
export interface PartSpec<TArgs extends JsonValue> {
  /** Names the part in job names and logs, e.g. `part-00003`. */
  name: string;
  /** What the worker function receives; JSON so it can travel to a Fray job. */
  args: TArgs;
}

/** Options of {@link runParts}. */
export interface RunPartsOptions<TArgs extends JsonValue> {
  /** The parts to run; finished parts should already be filtered out by the caller. */
  parts: readonly PartSpec<TArgs>[];
  /** Runs one part in this process (and is what the job's module export calls). */
  run: (args: TArgs, signal: AbortSignal) => Promise<void>;
  /**
   * The export of `@marin/pipeline` a Fray job calls with `args` (a function of one JSON argument);
   * it must do exactly what `run` does.
   */
  exportName: string;
  /**
   * Resources of each part's Fray job; `null` runs every part in this process, `maxParallelism` at a time.
   * @default null
   */
  resources?: ResourceConfig | ResourceOptions | null;
  /** Parts in flight at once: in this process, or as Fray jobs submitted and not yet finished. */
  maxParallelism: number;
  /** Aborts in-process work between records and terminates submitted jobs. */
  signal: AbortSignal;
  /** Prefix of job names: `<prefix>-<part name>-<hash of the part's args>` (see {@link partJobName}). */
  jobNamePrefix: string;
}

/**
 * Runs a step's parts: in this process with bounded concurrency, or as one Fray job per part through
 * `currentClient()` when `resources` is given. Each part must be idempotent and write its output
 * atomically, so a rerun (or a retried job) resumes where the last run stopped.
 *
 * When a part fails, parts not yet started are dropped and parts in flight are let finish (their output
 * is kept for the rerun); then the first failure is thrown.
 *
 * @throws the first part's error in-process; `JobFailed` (FRAY_JOB_FAILED) for the first failed job
 */
export async function runParts<TArgs extends JsonValue>(options: RunPartsOptions<TArgs>): Promise<void> {
  const { parts, signal } = options;
  if (parts.length === 0) return;
  const resources = options.resources ?? null;
  const runOne = resources === null ? (part: PartSpec<TArgs>) => options.run(part.args, signal) : jobRunner(options, resources);
  // After a failure, queued parts never start; parts in flight finish, so their work is kept for the rerun.
  await mapLimit(parts, options.maxParallelism, async (part) => {
    signal.throwIfAborted();
    await runOne(part);
  });
}

/**
 * The Fray job name of a part: `<prefix>-<part name>-<8 hex digits of its JSON args>`. Part names repeat across
 * steps (every MinHash step has a `part-00000-of-00016`) and across output prefixes (the same step run under two
 * prefixes on one cluster), and a cluster keeps finished jobs by name; the args name the part's outputs, so the
 * hash keeps those jobs apart, while a rerun of the same part gets the same name and can adopt its running job.
 */
export function partJobName(prefix: string, part: PartSpec<JsonValue>): string {
  const hash = createHash('sha256').update(JSON.stringify(part.args)).digest('hex').slice(0, 8);
  return `${sanitizeJobName(`${prefix}-${part.name}`).slice(0, 119).replace(/[-.]+$/, '')}-${hash}`;
}

/**
 * Submits a part's job afresh: a finished job of the same name (a failed attempt of this part, or a success whose
 * output was since removed) is replaced, since the caller only submits parts that are not done; a job of that name
 * still running (left by an interrupted run of this step) is adopted instead of started twice.
 */
async function submitFresh(client: Client, request: JobRequest): Promise<JobHandle> {
  try {
    return await client.submit(request, { adoptExisting: false });
  } catch (e) {
    if ((e as { code?: unknown }).code !== 'FRAY_JOB_ALREADY_EXISTS') throw e;
    return client.submit(request, { adoptExisting: true });
  }
}

/** Runs a part as a Fray job calling the part's export of `@marin/pipeline`; aborting `signal` terminates it. */
function jobRunner<TArgs extends JsonValue>(
  options: RunPartsOptions<TArgs>,
  resources: ResourceConfig | ResourceOptions,
): (part: PartSpec<TArgs>) => Promise<void> {
  const config = resources instanceof ResourceConfig ? resources : new ResourceConfig(resources);
  const client = currentClient();
  return async (part) => {
    const job = await submitFresh(client, {
      name: partJobName(options.jobNamePrefix, part),
      entrypoint: Entrypoint.fromModule({ module: '@marin/pipeline', exportName: options.exportName, args: part.args }),
      resources: config,
    });
    const stop = (): void => void job.terminate();
    options.signal.addEventListener('abort', stop, { once: true });
    try {
      await job.wait();
    } finally {
      options.signal.removeEventListener('abort', stop);
    }
  };
}
