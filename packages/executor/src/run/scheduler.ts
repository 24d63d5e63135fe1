import { ExecutorError } from '../errors.js';
import type { StepState } from '../progress/step-state.js';

/** How a scheduled node ended. */
export type NodeOutcome = 'ran' | 'skipped' | 'failed' | 'blocked' | 'not-started';

/** Options of `scheduleDag`. */
export interface ScheduleOptions<TNode> {
  /** The nodes to run, in discovery order (dependencies before dependents, then the order given). */
  nodes: readonly TNode[];
  /** Blocking dependencies of a node; ones outside `nodes` count as already completed. */
  dependencies(node: TNode): readonly TNode[];
  /** At most this many nodes are active (executing) at once. */
  maxConcurrent: number;
  /** Display label of a node, for errors. */
  label(node: TNode): string;
  /** Runs one node; resolves `ran` or `skipped`, rejects on failure. */
  execute(node: TNode): Promise<'ran' | 'skipped'>;
  /** True for an error that aborts the whole run (no new node starts) instead of failing one node. */
  abortsRun?(error: unknown): boolean;
  /** Observer of scheduler-driven state changes (`pending`, `queued`, settled states). */
  onState?(node: TNode, state: StepState, detail?: string): void;
  /** The detail shown with a node's `failed` state (its cause, say). @default none */
  failureDetail?(error: unknown): string;
  /** Once aborted, no node starts; active ones settle (they see the same signal). @default never */
  stop?: AbortSignal;
}

/** What `scheduleDag` reports once every started node has settled. */
export interface ScheduleResult<TNode> {
  outcomes: Map<TNode, NodeOutcome>;
  /** Failed nodes with their errors, in the order they failed. */
  failures: { node: TNode; error: unknown }[];
  /** The first run-aborting error, if any. */
  abortError: unknown;
}

/**
 * Checks that the nodes form a DAG.
 *
 * @throws {ExecutorError} EXECUTOR_CYCLE `Cycle detected in step graph involving <label>`.
 */
export function assertAcyclic<TNode>(
  nodes: readonly TNode[],
  dependencies: (node: TNode) => readonly TNode[],
  label: (node: TNode) => string,
): void {
  const members = new Set(nodes);
  const remaining = new Map<TNode, number>();
  const dependents = new Map<TNode, TNode[]>();
  for (const n of nodes) {
    const deps = dependencies(n).filter((d) => members.has(d));
    remaining.set(n, deps.length);
    for (const d of deps) dependents.set(d, [...(dependents.get(d) ?? []), n]);
  }
  const ready = nodes.filter((n) => remaining.get(n) === 0);
  let seen = 0;
  while (ready.length > 0) {
    const n = ready.pop()!;
    seen++;
    for (const c of dependents.get(n) ?? []) {
      const left = remaining.get(c)! - 1;
      remaining.set(c, left);
      if (left === 0) ready.push(c);
    }
  }
  if (seen < nodes.length) {
    const stuck = nodes.find((n) => remaining.get(n)! > 0)!;
    throw new ExecutorError('EXECUTOR_CYCLE', `Cycle detected in step graph involving ${label(stuck)}`, {
      details: { step: label(stuck) },
    });
  }
}

/**
 * Runs a DAG eagerly with bounded concurrency: a node starts as soon as all its dependencies have
 * completed and a slot is free; ready nodes start in discovery order; there is no level barrier.
 * A failed node blocks its transitive dependents but not independent branches. An error for which
 * `abortsRun` is true stops new starts; active nodes settle first.
 *
 * @throws {ExecutorError} EXECUTOR_CYCLE before anything starts if the graph has a cycle.
 */
export async function scheduleDag<TNode>(opts: ScheduleOptions<TNode>): Promise<ScheduleResult<TNode>> {
  const { nodes, maxConcurrent } = opts;
  assertAcyclic(nodes, opts.dependencies, opts.label);
  const index = new Map<TNode, number>(nodes.map((n, i) => [n, i]));
  const outcomes = new Map<TNode, NodeOutcome>();
  const waitingOn = new Map<TNode, number>();
  const dependents = new Map<TNode, TNode[]>();
  for (const n of nodes) {
    const deps = [...new Set(opts.dependencies(n))].filter((d) => index.has(d) && d !== n);
    waitingOn.set(n, deps.length);
    for (const d of deps) dependents.set(d, [...(dependents.get(d) ?? []), n]);
    opts.onState?.(n, 'pending');
  }
  const ready: number[] = [];
  const pushReady = (n: TNode): void => {
    const i = index.get(n)!;
    // Keep `ready` sorted by discovery index so the earliest-discovered ready node starts first.
    let lo = 0;
    let hi = ready.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ready[mid]! < i) lo = mid + 1;
      else hi = mid;
    }
    ready.splice(lo, 0, i);
    opts.onState?.(n, 'queued');
  };
  for (const n of nodes) if (waitingOn.get(n) === 0) pushReady(n);

  const failures: { node: TNode; error: unknown }[] = [];
  let abortError: unknown = undefined;
  let aborted = false;
  let active = 0;

  const block = (failed: TNode): void => {
    const stack = [...(dependents.get(failed) ?? [])];
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (outcomes.has(n)) continue;
      outcomes.set(n, 'blocked');
      opts.onState?.(n, 'blocked', `dependency ${opts.label(failed)} failed`);
      stack.push(...(dependents.get(n) ?? []));
    }
  };

  await new Promise<void>((resolveAll) => {
    const pump = (): void => {
      const stopped = (): boolean => aborted || opts.stop?.aborted === true;
      while (!stopped() && active < maxConcurrent && ready.length > 0) {
        const node = nodes[ready.shift()!]!;
        if (outcomes.has(node)) continue;
        active++;
        void opts.execute(node).then(
          (result) => {
            outcomes.set(node, result);
            opts.onState?.(node, result === 'ran' ? 'succeeded' : 'skipped');
            for (const c of dependents.get(node) ?? []) {
              const left = waitingOn.get(c)! - 1;
              waitingOn.set(c, left);
              if (left === 0 && !outcomes.has(c)) pushReady(c);
            }
          },
          (error: unknown) => {
            if (opts.abortsRun?.(error) === true) {
              if (!aborted) abortError = error;
              aborted = true;
              outcomes.set(node, 'not-started');
            } else {
              outcomes.set(node, 'failed');
              failures.push({ node, error });
              opts.onState?.(node, 'failed', opts.failureDetail?.(error));
              block(node);
            }
          },
        ).finally(() => {
          active--;
          pump();
        });
      }
      if (active === 0 && (stopped() || ready.length === 0)) resolveAll();
    };
    pump();
  });

  for (const n of nodes) if (!outcomes.has(n)) outcomes.set(n, 'not-started');
  return { outcomes, failures, abortError };
}
