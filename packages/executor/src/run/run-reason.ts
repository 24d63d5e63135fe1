import { isRecord, parsePyJson } from '@marin/rigging';
import { nearestEarlierVersion } from '../plan/explain.js';
import { diffVersions } from '../plan/version-diff.js';
import type { VersionChange } from '../plan/version-diff.js';
import { isFailedStatus, STATUS_RUNNING, STATUS_SUCCESS } from '../status/status.js';
import type { StepStatus } from '../status/status.js';

/** Longest list of changed fields in one reason. */
const MAX_FIELDS = 2;

function describeChange(c: VersionChange, strip: string): string {
  const path = c.path.startsWith(strip) ? c.path.slice(strip.length) : c.path;
  if (c.kind === '~') return `${path} ${c.before}→${c.after}`;
  return c.kind === '+' ? `${path} added` : `${path} removed`;
}

/** `n 100→200, seed added (+3 more)`: the first changed fields of a diff. */
export function summarizeChanges(changes: readonly VersionChange[], strip = 'config.'): string {
  const shown = changes.slice(0, MAX_FIELDS).map((c) => describeChange(c, strip));
  const more = changes.length - shown.length;
  return `${shown.join(', ')}${more > 0 ? ` (+${more} more)` : ''}`;
}

/** What a run needs to say why a step runs. */
export interface RunReasonInput {
  status: StepStatus | null;
  outputPath: string;
  name: string;
  version: unknown;
  /** Selected by `forceRun` while its output had succeeded. */
  forced: boolean;
}

/**
 * The reason a step runs, for its start line: `forced (--force-run)`, `previous run failed`,
 * `taking over an unfinished run`, or for a missing output, against the nearest earlier version of
 * the same step (as the dry run's diff): `config changed: n 100→200`, `dependency changed`, else
 * `no earlier output`. Reading earlier versions is best effort.
 */
export async function runReason(input: RunReasonInput): Promise<string> {
  const { status } = input;
  if (status === STATUS_SUCCESS) return input.forced ? 'forced (--force-run)' : 'already succeeded';
  if (isFailedStatus(status)) return 'previous run failed';
  if (status === STATUS_RUNNING) return 'taking over an unfinished run';
  if (status !== null) return `status ${status} recorded`;
  const earlier = await nearestEarlierVersion(input.outputPath, input.name, input.version).catch(() => null);
  if (earlier === null) return 'no earlier output';
  const changes = diffVersions(earlier.before, input.version);
  const config = changes.filter((c) => c.path === 'config' || c.path.startsWith('config.'));
  if (config.length > 0) return `config changed: ${summarizeChanges(config)}`;
  if (changes.some((c) => c.path.startsWith('dependencies'))) return 'dependency changed';
  return changes.length > 0 ? `version changed: ${summarizeChanges(changes, '')}` : 'no earlier output';
}

/**
 * The fields where a step's current config differs from the config recorded in its SUCCESS
 * output's `.executor_info`. At the same output path the version is equal, so these are
 * unversioned values (and values the version ignores). Empty when the info is missing or unreadable.
 */
export function unversionedChanges(infoText: string | null | undefined, infoConfig: unknown): VersionChange[] {
  if (infoText === null || infoText === undefined) return [];
  let info: unknown;
  try {
    info = parsePyJson(infoText);
  } catch {
    return [];
  }
  if (!isRecord(info) || !('config' in info)) return [];
  return diffVersions(info['config'], infoConfig ?? null);
}
