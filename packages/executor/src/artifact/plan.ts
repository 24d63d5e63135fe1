import { mapLimit, marinPrefix } from '@marin/rigging';
import { silentLogger } from '../logger.js';
import type { ExecutorLogger } from '../logger.js';
import type { VersionChange } from '../plan/version-diff.js';
import { STATUS_SUCCESS } from '../status/status.js';
import type { ArtifactStep } from './artifact-step.js';
import { checkDrift } from './drift.js';
import type { DriftResult } from './drift.js';
import { lowerArtifacts } from './lower.js';
import { readStatuses } from './status-scan.js';
import type { ArtifactNode } from './lower.js';
import { isMutableVersion } from './version.js';

/** What a run would do with an artifact. */
export type ArtifactPlanAction = 'run' | 'skip' | 'prune' | 'adopt' | 'rebuild';

/** One artifact of a plan, deps first. */
export interface ArtifactPlanEntry {
  /** `name@version`. */
  id: string;
  outputPath: string;
  fingerprint: string;
  /** The canonical config the fingerprint hashes. */
  payload: string;
  /** The `expectedFingerprint` pin, if any. */
  expectedFingerprint: string | null;
  /** `name@version` of each declared dep. */
  deps: string[];
  /**
   * `run` (not built), `skip` (built), `prune` (built or not, only feeds built artifacts), `adopt` (registers
   * existing data, not yet recorded), `rebuild` (a mutable `dev` version: rebuilt every run).
   */
  action: ArtifactPlanAction;
  status: string | null;
  /** The recorded fingerprint when a built artifact's recipe changed (served anyway unless pinned). */
  driftFrom: string | null;
  changes: VersionChange[];
}

const NO_CHANGES: VersionChange[] = [];

/** Options of {@link planArtifacts}. */
export interface ArtifactPlanOptions {
  prefix?: string;
  /** Status and record reads in flight at once. @default 32 */
  concurrency?: number;
  /** Check built artifacts' records for drift (one record read each). @default true */
  checkDrift?: boolean;
  logger?: ExecutorLogger;
}

/**
 * What a run of `handles` would do, without running or writing anything: lowers the graph (fingerprints and the
 * identity checks), reads each status, marks the subtrees of built artifacts as pruned, and compares built
 * artifacts' records for drift. A pinned drift is reported as a plan entry here; the run refuses it.
 */
export async function planArtifacts(handles: readonly ArtifactStep[], options: ArtifactPlanOptions = {}): Promise<ArtifactPlanEntry[]> {
  const prefix = options.prefix ?? (await marinPrefix());
  const { nodes, roots } = await lowerArtifacts(handles, prefix);
  // Per-node facts live in arrays by `node.index`: a 10,000-artifact plan allocates no maps or sets for them.
  const statuses = await readStatuses(nodes.map((n) => n.outputPath), options.concurrency ?? 32);
  const built = (n: ArtifactNode): boolean => statuses[n.index] === STATUS_SUCCESS && !isMutableVersion(n.handle.version);
  const needed = new Uint8Array(nodes.length);
  const mark = (n: ArtifactNode): void => {
    if (needed[n.index] === 1) return;
    needed[n.index] = 1;
    if (!built(n)) for (const d of n.deps) mark(d);
  };
  for (const r of roots) mark(r);
  const logger = options.logger ?? silentLogger;
  const toCheck = options.checkDrift === false ? [] : nodes.filter(built);
  const checked = await mapLimit(toCheck, options.concurrency ?? 32, (n) =>
    checkDrift({ id: n.id, version: n.handle.version, outputPath: n.outputPath, fingerprint: n.fingerprint, payload: n.payload, expectedFingerprint: null }, logger),
  );
  const drift: (DriftResult | undefined)[] = new Array<DriftResult | undefined>(nodes.length);
  toCheck.forEach((n, i) => (drift[n.index] = checked[i]));
  const entries: ArtifactPlanEntry[] = new Array<ArtifactPlanEntry>(nodes.length);
  for (const n of nodes) {
    const d = drift[n.index];
    let action: ArtifactPlanAction;
    if (needed[n.index] !== 1) action = 'prune';
    else if (isMutableVersion(n.handle.version)) action = 'rebuild';
    else if (built(n)) action = 'skip';
    else action = n.handle.adoptSource !== null ? 'adopt' : 'run';
    entries[n.index] = {
      id: n.id,
      outputPath: n.outputPath,
      fingerprint: n.fingerprint,
      payload: n.payload,
      expectedFingerprint: n.handle.expectedFingerprint,
      deps: n.depRefs,
      action,
      status: statuses[n.index] ?? null,
      driftFrom: d?.recorded ?? null,
      changes: d?.changes ?? NO_CHANGES,
    };
  }
  return entries;
}

/** One plan line: `run   demo/total@2026.11.25  3f2a9c1e  <path>`, plus `drift` details when the recipe changed. */
export function formatPlanEntry(e: ArtifactPlanEntry): string {
  const drift = e.driftFrom === null ? '' : `  (drift: recorded ${e.driftFrom}${e.changes.length > 0 ? `; changed ${e.changes.map((c) => c.path).join(', ')}` : ''})`;
  return `${e.action.padEnd(7)} ${e.id}  ${e.fingerprint}  ${e.outputPath}${drift}`;
}
