import { isStepFailureWrapper } from '../errors.js';
import type { RunSummary } from '../progress/step-state.js';

/** How one step ended in a run; `pruned` steps were not needed because what they feed is built. */
export type StepOutcome = 'ran' | 'skipped' | 'failed' | 'blocked' | 'not-started' | 'pruned';

/** Why a step failed, flattened for printing and JSON. */
export interface FailureReport {
  /** The code of the innermost coded error in the chain (`EXECUTOR_LEASE_LOST`, `RIGGING_PERMISSION_DENIED`), if any. */
  code: string | null;
  /** The message of the innermost error: the cause worth reading first. */
  cause: string;
  /** Every message of the cause chain, outermost first. */
  chain: string[];
  /** Where the step's own logs are (`iris job logs <id>` for a remote step), or `null` when they went to this process. */
  logs: string | null;
}

/** One step of a {@link RunReport}. */
export interface StepReport {
  name: string;
  label: string;
  outputPath: string;
  outcome: StepOutcome;
  /** Set for `failed` steps. */
  failure: FailureReport | null;
}

/** What a finished (or failed) run did, step by step: the JSON summary of `--json`. */
export interface RunReport {
  summary: RunSummary;
  steps: StepReport[];
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null;
}

/** The messages of an error's `cause` chain, outermost first (cycles cut). */
export function causeChain(error: unknown): unknown[] {
  const out: unknown[] = [];
  const seen = new Set<unknown>();
  let e: unknown = error;
  while (e !== undefined && e !== null && !seen.has(e)) {
    seen.add(e);
    out.push(e);
    e = isObject(e) ? e['cause'] : undefined;
  }
  return out;
}

function messageOf(e: unknown): string {
  if (isObject(e) && typeof e['message'] === 'string') return e['message'];
  return String(e);
}

function codeOf(e: unknown): string | null {
  return isObject(e) && typeof e['code'] === 'string' && /^[A-Z]+_[A-Z_]+$/.test(e['code']) ? e['code'] : null;
}

/** The line of a remote job's output tail that names its error (the worker prints `error: …`). */
function tailCause(tail: unknown): string | null {
  if (!Array.isArray(tail)) return null;
  const lines = tail.filter((l): l is string => typeof l === 'string' && l.trim() !== '');
  const marked = [...lines].reverse().find((l) => /^error: /i.test(l.trim()));
  return (marked ?? lines[lines.length - 1] ?? null)?.trim() ?? null;
}

/**
 * Flattens a failure: the innermost cause (for a remote step, the error line of its job's output),
 * the code of the first error below the generic `Step failed` wrappers, the whole chain, and where
 * the step's logs are.
 */
export function describeFailure(error: unknown): FailureReport {
  const chain = causeChain(error);
  let code: string | null = null;
  let logs: string | null = null;
  let remoteCause: string | null = null;
  for (const e of chain) {
    if (code === null && !isStepFailureWrapper(e)) code = codeOf(e);
    const details = isObject(e) ? e['details'] : undefined;
    if (!isObject(details)) continue;
    if (logs === null && typeof details['jobId'] === 'string') logs = `iris job logs ${details['jobId']}`;
    remoteCause ??= tailCause(details['logTail']);
  }
  code ??= codeOf(chain[0]);
  const innermost = messageOf(chain[chain.length - 1]).split('\n')[0] ?? '';
  return { code, cause: remoteCause ?? innermost, chain: chain.map(messageOf), logs };
}
