import type { JsonValue } from '@marin/fray';
import { atomicWrite, exists, readText } from '@marin/rigging';
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
 * Wraps a task body so it is resumable: a task whose `done_url` exists is skipped; otherwise the body
 * runs and its result is written to `done_url` (atomically) as the last thing the task does. The
 * returned function is what a stage exports from `@marin/pipeline` for its Fray jobs, and what it runs
 * in-process.
 */
export function dataflowTask<TArgs extends DataflowTaskArgs, TResult extends JsonValue>(
  body: DataflowTaskBody<TArgs, TResult>,
): DataflowTask<TArgs> {
  return async (args, signal) => {
    if (await exists(args.done_url)) return;
    const result = await body(args, signal ?? new AbortController().signal);
    await atomicWrite(args.done_url, `${JSON.stringify({ result })}\n`);
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
