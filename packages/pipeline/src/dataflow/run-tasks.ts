import type { JsonValue, ResourceConfig, ResourceOptions } from '@marin/fray';
import { mapLimit, prefixJoin } from '@marin/rigging';
import { runParts } from '../fanout/run-parts.js';
import { isTaskDone, readTaskResult } from './dataflow-task.js';
import type { DataflowTask, DataflowTaskArgs } from './dataflow-task.js';

/** One task of a stage: a name unique in the stage and its arguments (without `done_url`, which is assigned). */
export interface TaskSpec<TArgs extends DataflowTaskArgs> {
  name: string;
  args: Omit<TArgs, 'done_url'>;
}

/** Options of {@link runTasks}. */
export interface RunTasksOptions<TArgs extends DataflowTaskArgs> {
  /** Names the phase (`map`, `reduce`, …): markers go under `<workDir>/<phase>/`. */
  phase: string;
  /** The stage's scratch directory (usually `<step output>/.work`), which holds markers and shuffle files. */
  workDir: string;
  tasks: readonly TaskSpec<TArgs>[];
  /** The task, wrapped by `dataflowTask`; run in this process when `resources` is null. */
  task: DataflowTask<TArgs>;
  /** The export of `@marin/pipeline` that is `task`, for Fray jobs. */
  exportName: string;
  /** One Fray job per task with these resources; `null` runs tasks in this process. @default null */
  resources?: ResourceConfig | ResourceOptions | null;
  /** Tasks in flight at once. */
  maxParallelism: number;
  signal: AbortSignal;
  /** Prefix of job names. */
  jobNamePrefix: string;
}

/** The done marker of a task. */
export function taskDoneUrl(workDir: string, phase: string, name: string): string {
  return prefixJoin(workDir, `${phase}/${name}.done.json`);
}

/**
 * Runs a phase of a data-parallel stage and returns every task's result, in task order. Tasks whose
 * done marker exists for the same arguments are skipped (their recorded result is returned), so a rerun
 * after a crash or a killed job resumes with the unfinished tasks only, and a task whose inputs or
 * settings changed since its marker was written runs again. Scheduling is `runParts`: in-process with bounded
 * concurrency, or one Fray job per task.
 *
 * @throws the first failing task's error (a `PipelineError`, or Fray's `FRAY_JOB_FAILED` for a job)
 */
export async function runTasks<TArgs extends DataflowTaskArgs, TResult extends JsonValue>(options: RunTasksOptions<TArgs>): Promise<TResult[]> {
  const all = options.tasks.map((t) => ({ name: t.name, args: { ...t.args, done_url: taskDoneUrl(options.workDir, options.phase, t.name) } as unknown as TArgs }));
  const done = await mapLimit(all, 16, (t) => isTaskDone(t.args));
  const pending = all.filter((_, i) => done[i] !== true);
  await runParts<TArgs>({
    parts: pending,
    run: (args, signal) => options.task(args, signal),
    exportName: options.exportName,
    resources: options.resources ?? null,
    maxParallelism: options.maxParallelism,
    signal: options.signal,
    jobNamePrefix: `${options.jobNamePrefix}-${options.phase}`,
  });
  return mapLimit(all, 16, (t) => readTaskResult<TResult>(t.args.done_url));
}
