import { Entrypoint, ResourceConfig, currentClient, sanitizeJobName } from '@marin/fray';
import type { JsonValue, ResourceOptions } from '@marin/fray';
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
  /** Prefix of job names: `<prefix>-<part name>`. */
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

/** Runs a part as a Fray job calling the part's export of `@marin/pipeline`; aborting `signal` terminates it. */
function jobRunner<TArgs extends JsonValue>(
  options: RunPartsOptions<TArgs>,
  resources: ResourceConfig | ResourceOptions,
): (part: PartSpec<TArgs>) => Promise<void> {
  const config = resources instanceof ResourceConfig ? resources : new ResourceConfig(resources);
  const client = currentClient();
  return async (part) => {
    const job = await client.submit({
      name: sanitizeJobName(`${options.jobNamePrefix}-${part.name}`),
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
