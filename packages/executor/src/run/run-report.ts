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

/** Flattens a step failure: the innermost cause, its code, the chain, and where the step's logs are. */
export function describeFailure(error: unknown): FailureReport {
  const chain = causeChain(error);
  const innermost = chain[chain.length - 1];
  let code: string | null = null;
  let logs: string | null = null;
  for (const e of chain) {
    if (!isObject(e)) continue;
    if (typeof e['code'] === 'string' && /^[A-Z]+_[A-Z_]+$/.test(e['code'])) code = e['code'];
    const details = e['details'];
    if (logs === null && isObject(details) && typeof details['jobId'] === 'string') logs = `iris job logs ${details['jobId']}`;
  }
  return { code, cause: messageOf(innermost).split('\n')[0] ?? '', chain: chain.map(messageOf), logs };
}
