import { createHash } from 'node:crypto';
import type { JsonValue } from '@marin/fray';
import { atomicWrite, readText } from '@marin/rigging';
import { PipelineError } from '../errors.js';

/** The JSON arguments every dataflow task receives: its own arguments plus where its done marker goes. */
export interface DataflowTaskArgs {
  [key: string]: JsonValue;
  /** The task's done marker, written last with the task's result; its existence means the task finished. */
  done_url: string;
}

/** A task body: does the work (idempotently, writing outputs atomically) and returns a JSON result. */
export type DataflowTaskBody<TArgs extends DataflowTaskArgs, TResult extends JsonValue> = (args: TArgs, signal: AbortSignal) => Promise<TResult>;

/** A task as run in-process or called by a Fray job: skips when done, else runs and writes the marker. */
export type DataflowTask<TArgs extends DataflowTaskArgs> = (args: TArgs, signal?: AbortSignal) => Promise<void>;

/**
 * The fingerprint a done marker records: a hash of the task's arguments (without `done_url`). Arguments
 * name the task's input parts with their sizes and every setting the result depends on (the number of
 * shuffle partitions, the text field, …), so a marker left by a run over other inputs or settings — an
 * input fixed in place after a failed run, a dataset that grew — does not count as done.
 */
export function taskArgsFingerprint(args: DataflowTaskArgs): string {
  const { done_url: _done, ...rest } = args;
  return createHash('sha256').update(JSON.stringify(rest)).digest('hex').slice(0, 32);
}

/** Whether the task's marker exists and was written for these very arguments. */
export async function isTaskDone(args: DataflowTaskArgs): Promise<boolean> {
  let text: string;
  try {
    text = await readText(args.done_url);
  } catch {
    return false;
  }
  try {
    return (JSON.parse(text) as { args?: unknown }).args === taskArgsFingerprint(args);
  } catch {
    return false;
  }
}

/**
 * Wraps a task body so it is resumable: a task whose `done_url` holds a marker for the same arguments
 * ({@link taskArgsFingerprint}) is skipped; otherwise the body runs and `{ args, result }` is written to
 * `done_url` (atomically) as the last thing the task does. The returned function is what a stage
 * exports from `@marin/pipeline` for its Fray jobs, and what it runs in-process.
 */
export function dataflowTask<TArgs extends DataflowTaskArgs, TResult extends JsonValue>(
  body: DataflowTaskBody<TArgs, TResult>,
): DataflowTask<TArgs> {
  return async (args, signal) => {
    if (await isTaskDone(args)) return;
    const result = await body(args, signal ?? new AbortController().signal);
    await atomicWrite(args.done_url, `${JSON.stringify({ args: taskArgsFingerprint(args), result })}\n`);
  };
}

/**
 * Reads a finished task's result from its done marker.
 *
 * @throws {PipelineError} PIPELINE_CACHE_INVALID when the marker is missing or malformed
 */
export async function readTaskResult<TResult extends JsonValue>(doneUrl: string): Promise<TResult> {
  let text: string;
  try {
    text = await readText(doneUrl);
  } catch (cause) {
    throw new PipelineError('PIPELINE_CACHE_INVALID', `task marker ${doneUrl} is missing: the task did not finish`, { cause, details: { path: doneUrl } });
  }
  try {
    return (JSON.parse(text) as { result: TResult }).result;
  } catch (cause) {
    throw new PipelineError('PIPELINE_CACHE_INVALID', `task marker ${doneUrl} is not JSON; delete it to rerun the task`, { cause, details: { path: doneUrl } });
  }
}
