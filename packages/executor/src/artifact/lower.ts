import { prefixJoin } from '@marin/rigging';
import { ExecutorError } from '../errors.js';
import { isRelativePath } from './artifact-step.js';
import type { ArtifactStep } from './artifact-step.js';
import { fingerprintHash } from './canonical-json.js';
import { isMutableVersion } from './version.js';

/** One artifact of a lowered graph: its handle, identity facts and resolved place. */
export interface ArtifactNode {
  handle: ArtifactStep;
  /** `name@version`. */
  id: string;
  /** Where the step's status, lease and record live: its pin, else `{prefix}/{name}/{version}` (also when adopted). */
  outputPath: string;
  payload: string;
  fingerprint: string;
  /** `name@version` of each dep, in declared order. */
  depRefs: string[];
  /** The nodes of the declared deps (deduplicated by output path). */
  deps: ArtifactNode[];
  /** The node's position in the lowered `nodes` (callers keep per-node facts in arrays, not maps). */
  index: number;
}

/** Depth-first states of a handle while ordering; a lowered handle maps to its node instead. */
const IN_STACK = 0;
const ORDERED = 1;

/**
 * Lowers handle graphs into nodes in dependency order (Marin's `_lower` with its memo): every handle once, shared
 * by identity; handles at one output path are one node (the first seen). Computes each fingerprint and checks the
 * identity rules before anything runs.
 *
 * @throws {ExecutorError} EXECUTOR_CYCLE for a dep cycle; EXECUTOR_FINGERPRINT_MISMATCH when an
 *   `expectedFingerprint` differs from the computed one; EXECUTOR_MUTABLE_DEPENDENCY for a fixed version with a
 *   `dev` dep; EXECUTOR_UNCANONICAL_CONFIG from the fingerprint
 */
export async function lowerArtifacts(roots: readonly ArtifactStep[], prefix: string): Promise<{ nodes: ArtifactNode[]; byHandle: Map<ArtifactStep, ArtifactNode> }> {
  // One map serves the depth-first walk (cycle detection) and then, value by value, maps each handle to its node.
  const state = new Map<ArtifactStep, ArtifactNode | typeof IN_STACK | typeof ORDERED>();
  const order = dependencyOrder(roots, state);
  // Payloads of synchronous buildConfigs are computed inline; async ones are awaited together. Errors surface in
  // dependency order, as the depth-first lowering raises them.
  const payloads: (string | Promise<string>)[] = order.map((h) => h.fingerprintPayloadNow());
  if (payloads.some((p) => typeof p !== 'string')) {
    const settled = await Promise.allSettled(payloads);
    settled.forEach((r, i) => {
      if (r.status === 'rejected') throw r.reason;
      payloads[i] = r.value;
    });
  }
  const byHandle = state as Map<ArtifactStep, ArtifactNode>;
  const byPath = new Map<string, ArtifactNode>();
  const nodes: ArtifactNode[] = [];
  const base = prefixJoin(prefix, '');
  const dirBase = base === '' || base.endsWith('/') ? base : `${base}/`;
  for (let i = 0; i < order.length; i++) {
    const handle = order[i] as ArtifactStep;
    const payload = payloads[i] as string;
    const fingerprint = fingerprintHash(payload);
    if (handle.expectedFingerprint !== null && fingerprint !== handle.expectedFingerprint) {
      throw new ExecutorError(
        'EXECUTOR_FINGERPRINT_MISMATCH',
        `${handle.id}: config fingerprint is ${fingerprint}, but expectedFingerprint pins ${handle.expectedFingerprint}; the recipe changed — update the pin, and bump the version if this is meant to be a different artifact`,
        { details: { step: handle.id, computed: fingerprint, expected: handle.expectedFingerprint } },
      );
    }
    if (!isMutableVersion(handle.version)) {
      for (const mutable of handle.deps) {
        if (!isMutableVersion(mutable.version)) continue;
        throw new ExecutorError(
          'EXECUTOR_MUTABLE_DEPENDENCY',
          `${handle.id} is a fixed version but depends on mutable ${mutable.id}; a mutable dep would rebuild while the fixed parent stays cached — make the parent dev, or pin the dep`,
          { details: { step: handle.id, dep: mutable.id } },
        );
      }
    }
    // `{name}/{version}` is relative by construction (validated segments): join without re-parsing the prefix.
    const outputPath = handle.overridePath === null ? `${dirBase}${handle.name}/${handle.version}` : stepOutputPath(handle, prefix);
    const existing = byPath.get(outputPath);
    if (existing !== undefined) {
      byHandle.set(handle, existing);
      continue;
    }
    const deps: ArtifactNode[] = [];
    for (const d of handle.deps) {
      const n = byHandle.get(d) as ArtifactNode;
      if (!deps.includes(n)) deps.push(n);
    }
    const depRefs: string[] = [];
    for (const d of handle.deps) depRefs.push(d.id);
    const node: ArtifactNode = { handle, id: handle.id, outputPath, payload, fingerprint, depRefs, deps, index: nodes.length };
    byHandle.set(handle, node);
    byPath.set(outputPath, node);
    nodes.push(node);
  }
  return { nodes, byHandle };
}

/**
 * Every handle reachable from `roots`, each once, deps before dependents (depth-first post-order).
 * @throws {ExecutorError} EXECUTOR_CYCLE for a dep cycle (`details.cycle`, the ids around it)
 */
function dependencyOrder(roots: readonly ArtifactStep[], state: Map<ArtifactStep, unknown>): ArtifactStep[] {
  const trail: ArtifactStep[] = [];
  const order: ArtifactStep[] = [];
  const visit = (handle: ArtifactStep): void => {
    const seen = state.get(handle);
    if (seen === ORDERED) return;
    if (seen === IN_STACK) {
      const ids = trail.map((h) => h.id);
      const cycle = [...ids.slice(ids.indexOf(handle.id)), handle.id];
      throw new ExecutorError('EXECUTOR_CYCLE', `Cycle detected in artifact graph: ${cycle.join(' -> ')}`, { details: { cycle } });
    }
    state.set(handle, IN_STACK);
    trail.push(handle);
    for (const dep of handle.deps) visit(dep);
    trail.pop();
    state.set(handle, ORDERED);
    order.push(handle);
  };
  for (const root of roots) visit(root);
  return order;
}

/** The runner's output path of a handle: its `overridePath` (relative to the prefix unless absolute), else `{prefix}/{name}/{version}`. */
export function stepOutputPath(handle: ArtifactStep, prefix: string): string {
  const rel = handle.overridePath ?? `${handle.name}/${handle.version}`;
  return isRelativePath(rel) ? prefixJoin(prefix, rel) : rel;
}
