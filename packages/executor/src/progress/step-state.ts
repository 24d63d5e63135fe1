/**
 * The life of one step in a run: `pending` (dependencies not done), `queued` (ready, waiting for a
 * slot), `waiting` (lease held by another executor), `running`, and the settled states `succeeded`,
 * `skipped` (already succeeded), `failed` and `blocked` (a dependency failed).
 */
export type StepState =
  | 'pending'
  | 'queued'
  | 'waiting'
  | 'running'
  | 'succeeded'
  | 'skipped'
  | 'failed'
  | 'blocked';

/** Every step state, in display order for the live view's header. */
export const STEP_STATES: readonly StepState[] = [
  'pending',
  'queued',
  'waiting',
  'running',
  'succeeded',
  'skipped',
  'failed',
  'blocked',
];

/** True for the states a step never leaves. */
export function isSettled(state: StepState): boolean {
  return state === 'succeeded' || state === 'skipped' || state === 'failed' || state === 'blocked';
}

/** Counts of how a run ended, as printed by the summary line. */
export interface RunSummary {
  /** Steps selected to run. */
  total: number;
  /** Steps whose function ran to success here. */
  ran: number;
  /** Steps reused because they had already succeeded (here or by another executor). */
  skipped: number;
  /** Steps that failed. */
  failed: number;
  /** Steps not run because a dependency failed (or the run was aborted). */
  notRun: number;
  /**
   * Steps not needed because what they feed is already built and their own output is missing or
   * unfinished (pruned steps whose output succeeded count as `skipped`). @default 0
   */
  notNeeded?: number;
}

/** Formats Marin's closing line: `<n> steps: <a> ran, <b> skipped (already succeeded), …`. */
export function formatSummary(s: RunSummary): string {
  return (
    `${s.total} steps: ${s.ran} ran, ${s.skipped} skipped (already succeeded), ` +
    `${s.failed} failed, ${s.notRun} not run (dependency failed)` +
    ((s.notNeeded ?? 0) > 0 ? `, ${s.notNeeded} not needed (downstream already built)` : '')
  );
}
