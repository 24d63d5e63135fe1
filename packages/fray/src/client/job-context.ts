import { AsyncLocalStorage } from 'node:async_hooks';

/** What code running inside a Fray job can learn about it. */
export interface JobContext {
  /** The job's backend id. */
  readonly jobId: string;
  /** This task's index, `0..numTasks-1`. */
  readonly taskIndex: number;
  /** The job's replica count. */
  readonly numTasks: number;
  /** The job's own environment variables (locally they are not written into `process.env`). */
  readonly env: Readonly<Record<string, string>>;
  /** Aborts when the job is terminated. */
  readonly signal: AbortSignal;
}

/** Environment variables the local backend sets on its subprocesses, read back by {@link currentJobContext}. */
export const FRAY_JOB_ENV = Object.freeze({
  jobId: 'FRAY_JOB_ID',
  taskIndex: 'FRAY_TASK_INDEX',
  numTasks: 'FRAY_NUM_TASKS',
} as const);

const storage = new AsyncLocalStorage<JobContext>();

/** A signal that never aborts, for contexts rebuilt from the environment of a subprocess. */
const neverSignal = new AbortController().signal;

/** Runs `fn` with `context` as the current job context (used by in-process backends). */
export function runInJobContext<T>(context: JobContext, fn: () => T): T {
  return storage.run(context, fn);
}

/**
 * The job this code runs in, or `null` outside any Fray job. In-process local jobs see their scoped context;
 * local subprocesses and Iris tasks get one rebuilt from their environment (`FRAY_*` or `IRIS_*` variables),
 * whose `signal` never aborts (those processes receive SIGTERM instead).
 */
export function currentJobContext(env: Readonly<Record<string, string | undefined>> = process.env): JobContext | null {
  const scoped = storage.getStore();
  if (scoped !== undefined) return scoped;
  const frayId = env[FRAY_JOB_ENV.jobId];
  if (frayId !== undefined && frayId !== '') {
    return Object.freeze({
      jobId: frayId,
      taskIndex: Number(env[FRAY_JOB_ENV.taskIndex] ?? '0'),
      numTasks: Number(env[FRAY_JOB_ENV.numTasks] ?? '1'),
      env: Object.freeze({}),
      signal: neverSignal,
    });
  }
  const irisTask = env['IRIS_TASK_ID'];
  const irisJob = env['IRIS_JOB_ID'];
  if (irisTask !== undefined && irisTask !== '' && irisJob !== undefined) {
    let jobEnv: Record<string, string> = {};
    try {
      jobEnv = JSON.parse(env['IRIS_JOB_ENV'] ?? '{}') as Record<string, string>;
    } catch {
      // IRIS_JOB_ENV is informational; a malformed value leaves env empty rather than failing the task.
    }
    return Object.freeze({
      jobId: irisJob,
      taskIndex: Number(env['IRIS_TASK_INDEX'] ?? '0'),
      numTasks: Number(env['IRIS_NUM_TASKS'] ?? '1'),
      env: Object.freeze(jobEnv),
      signal: neverSignal,
    });
  }
  return null;
}
