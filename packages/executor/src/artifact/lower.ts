import { prefixJoin } from '@marin/rigging';
import { ExecutorError } from '../errors.js';
import { isRelativePath, setWalkState, walkState } from './artifact-step.js';
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

/** The walk state of a handle on the depth-first path (marks of finished handles are their order index). */
const IN_STACK = -2;

/** A lowered graph: its nodes in dependency order and the node of each root. */
export interface LoweredArtifacts {
  nodes: ArtifactNode[];
  /** The node of each root handle, index-aligned with the roots given (handles at one path share a node). */
  roots: ArtifactNode[];
  /** The node of every handle reached (built on first use). */
  readonly byHandle: Map<ArtifactStep, ArtifactNode>;
}

/**
 * Lowers handle graphs into nodes in dependency order (Marin's `_lower` with its memo): every handle once, shared
 * by identity; handles at one output path are one node (the first seen). Computes each fingerprint and checks the
 * identity rules before anything runs.
 *
 * @throws {ExecutorError} EXECUTOR_CYCLE for a dep cycle; EXECUTOR_FINGERPRINT_MISMATCH when an
 *   `expectedFingerprint` differs from the computed one; EXECUTOR_MUTABLE_DEPENDENCY for a fixed version with a
 *   `dev` dep; EXECUTOR_UNCANONICAL_CONFIG from the fingerprint
 */
export async function lowerArtifacts(roots: readonly ArtifactStep[], prefix: string): Promise<LoweredArtifacts> {
  const { order, depStart, depIndex, rootIndex } = dependencyOrder(roots);
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
  // The node of each handle, by its position in `order`.
  const nodeAt: ArtifactNode[] = new Array<ArtifactNode>(order.length);
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
    // `{name}/{version}` is relative by construction (validated segments): join without re-parsing the prefix, into
    // one flat string (a template would keep a rope of three concatenations alive beside the flattened text).
    const outputPath = handle.overridePath === null ? [dirBase, handle.name, '/', handle.version].join('') : stepOutputPath(handle, prefix);
    const existing = byPath.get(outputPath);
    if (existing !== undefined) {
      nodeAt[i] = existing;
      continue;
    }
    const deps: ArtifactNode[] = [];
    const depRefs: string[] = [];
    for (let k = depStart[i] as number; k < (depStart[i + 1] as number); k++) {
      const n = nodeAt[depIndex[k] as number] as ArtifactNode;
      if (!deps.includes(n)) deps.push(n);
    }
    for (const d of handle.deps) depRefs.push(d.id);
    const node: ArtifactNode = { handle, id: handle.id, outputPath, payload, fingerprint, depRefs, deps, index: nodes.length };
    nodeAt[i] = node;
    byPath.set(outputPath, node);
    nodes.push(node);
  }
  let byHandle: Map<ArtifactStep, ArtifactNode> | undefined;
  return {
    nodes,
    roots: Array.from(rootIndex, (i) => nodeAt[i] as ArtifactNode),
    get byHandle(): Map<ArtifactStep, ArtifactNode> {
      return (byHandle ??= new Map(order.map((h, i) => [h, nodeAt[i] as ArtifactNode])));
    },
  };
}

/**
 * Every handle reachable from `roots`, each once, deps before dependents (depth-first post-order), with each
 * handle's deps and each root as positions in that order (`depIndex[depStart[i]..depStart[i+1])` for `order[i]`),
 * read before anything can yield: the walk's marks live on the handles (no map of 10,000 entries).
 * @throws {ExecutorError} EXECUTOR_CYCLE for a dep cycle (`details.cycle`, the ids around it)
 */
function dependencyOrder(roots: readonly ArtifactStep[]): { order: ArtifactStep[]; depStart: Int32Array; depIndex: Int32Array; rootIndex: Int32Array } {
  const token = {};
  const trail: ArtifactStep[] = [];
  const order: ArtifactStep[] = [];
  let edges = 0;
  const visit = (handle: ArtifactStep): void => {
    const seen = walkState(handle, token);
    if (seen >= 0) return;
    if (seen === IN_STACK) {
      const ids = trail.map((h) => h.id);
      const cycle = [...ids.slice(ids.indexOf(handle.id)), handle.id];
      throw new ExecutorError('EXECUTOR_CYCLE', `Cycle detected in artifact graph: ${cycle.join(' -> ')}`, { details: { cycle } });
    }
    setWalkState(handle, token, IN_STACK);
    trail.push(handle);
    for (const dep of handle.deps) visit(dep);
    trail.pop();
    setWalkState(handle, token, order.length);
    order.push(handle);
    edges += handle.deps.length;
  };
  for (const root of roots) visit(root);
  const depStart = new Int32Array(order.length + 1);
  const depIndex = new Int32Array(edges);
  let k = 0;
  for (let i = 0; i < order.length; i++) {
    depStart[i] = k;
    for (const dep of (order[i] as ArtifactStep).deps) depIndex[k++] = walkState(dep, token);
  }
  depStart[order.length] = k;
  return { order, depStart, depIndex, rootIndex: Int32Array.from(roots, (r) => walkState(r, token)) };
}

/** The runner's output path of a handle: its `overridePath` (relative to the prefix unless absolute), else `{prefix}/{name}/{version}`. */
export function stepOutputPath(handle: ArtifactStep, prefix: string): string {
  const rel = handle.overridePath ?? `${handle.name}/${handle.version}`;
  return isRelativePath(rel) ? prefixJoin(prefix, rel) : rel;
}
