import { filesystemFor, RiggingError } from '@marin/rigging';
import { parseStatusText } from './status.js';
import type { StepStatus } from './status.js';

/** Name of the status file inside a step's output directory. */
export const STATUS_FILE = '.executor_status';
/** Name of the lease file inside a step's output directory. */
export const LEASE_FILE = '.executor_status.lock';
/** Name of the info file inside a step's output directory. */
export const INFO_FILE = '.executor_info';

/** `<outputPath>/<file>` for a local path or a URL. */
export function fileUnder(outputPath: string, file: string): string {
  return outputPath.endsWith('/') ? `${outputPath}${file}` : `${outputPath}/${file}`;
}

/**
 * Reads a step's `.executor_status` (bare token or legacy JSON lines); a missing or blank file is
 * `null`.
 */
export async function readStatus(outputPath: string): Promise<StepStatus | null> {
  const url = fileUnder(outputPath, STATUS_FILE);
  try {
    return parseStatusText(await filesystemFor(url).readText(url));
  } catch (e) {
    if (RiggingError.hasCode(e, 'RIGGING_NOT_FOUND')) return null;
    throw e;
  }
}

/**
 * Replaces a step's `.executor_status` with one bare token and no trailing newline, atomically,
 * creating the directory when needed. Never touches the lease file.
 */
export async function writeStatus(outputPath: string, status: StepStatus): Promise<void> {
  const url = fileUnder(outputPath, STATUS_FILE);
  await filesystemFor(url).writeText(url, status);
}
