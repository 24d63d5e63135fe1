import { parsePyJson } from '@marin/rigging';
import { ExecutorError } from '../errors.js';
import type { ExecutorLogger } from '../logger.js';
import { diffVersions, formatChange } from '../plan/version-diff.js';
import type { VersionChange } from '../plan/version-diff.js';
import { readRecord } from './record.js';
import type { ArtifactRecord } from './record.js';
import { isMutableVersion } from './version.js';

/** At most this many changed fields are spelled out in a drift message. */
const MAX_DIFF_LINES = 20;

/** The identity facts the drift check compares a stored record against. */
export interface DriftTarget {
  /** `name@version`. */
  id: string;
  version: string;
  outputPath: string;
  fingerprint: string;
  payload: string;
  expectedFingerprint: string | null;
}

/** What the drift check found for a step. */
export interface DriftResult {
  /** A mutable (`dev`) version: never checked, always rebuilt. */
  mutable: boolean;
  /** The recorded fingerprint when it differs from the computed one, else `null`. */
  recorded: string | null;
  /** Field-level changes from the recorded payload to the current one (empty when unknown). */
  changes: VersionChange[];
}

function parsePayload(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return parsePyJson(text);
  } catch {
    return undefined;
  }
}

/** The changed fields between two canonical payloads, as explain's version diff renders them (`~ lr: 0.1 → 0.2`). */
export function describeDrift(changes: readonly VersionChange[]): string {
  if (changes.length === 0) return '';
  const shown = changes.slice(0, MAX_DIFF_LINES).map((c) => `  ${formatChange(c)}`);
  if (changes.length > shown.length) shown.push(`  …and ${changes.length - shown.length} more`);
  return `\nChanged config values:\n${shown.join('\n')}`;
}

/**
 * Marin's advisory recipe-drift check, run before a cached SUCCESS is served: a mutable version is reported as
 * such (the caller rebuilds); a record whose fingerprint differs from the computed one warns, naming the changed
 * fields, and the cached output is served; with `expectedFingerprint` it is refused instead.
 *
 * @throws {ExecutorError} EXECUTOR_FINGERPRINT_MISMATCH for a pinned step whose recorded build has another
 *   fingerprint (`details.recorded`, `details.computed`, `details.changes`)
 */
export async function checkDrift(
  target: DriftTarget,
  logger: ExecutorLogger,
  read: (outputPath: string) => Promise<ArtifactRecord | null> = readRecord,
): Promise<DriftResult> {
  if (isMutableVersion(target.version)) return { mutable: true, recorded: null, changes: [] };
  const record = await read(target.outputPath);
  if (record === null || record.fingerprint === target.fingerprint) return { mutable: false, recorded: null, changes: [] };
  const before = parsePayload(record.fingerprint_payload);
  const after = parsePayload(target.payload);
  const changes = before === undefined || after === undefined ? [] : diffVersions(before, after);
  const change = describeDrift(changes);
  if (target.expectedFingerprint !== null) {
    throw new ExecutorError(
      'EXECUTOR_FINGERPRINT_MISMATCH',
      `${target.id} is pinned to expectedFingerprint, but its recorded build has fingerprint ${record.fingerprint} (now ${target.fingerprint}); update the pin and bump the version if this is meant to be a different artifact${changes.length > 0 ? ` (changed: ${changes.map((c) => c.path).join(', ')})` : ''}`,
      { details: { step: target.id, recorded: record.fingerprint, computed: target.fingerprint, changes } },
    );
  }
  logger.warn(
    `${target.id}: recipe drift — recorded fingerprint ${record.fingerprint}, now ${target.fingerprint}; serving the cached output. Bump the version to build the new recipe.${change}`,
  );
  return { mutable: false, recorded: record.fingerprint, changes };
}
