import { filesystemFor, isRecord, parsePyJson, pyJsonDumps, RiggingError } from '@marin/rigging';
import { ExecutorError } from '../errors.js';
import type { ExecutorLogger } from '../logger.js';
import { fileUnder, INFO_FILE } from './status-store.js';

/** The step facts verify-on-hit compares a stored `.executor_info` against. */
export interface VerifyTarget {
  /** The step's name. */
  name: string;
  /** `<name>-<hash6>`. */
  label: string;
  outputPath: string;
  /** The computed version string (compact, sorted). */
  versionStr: string;
  /** The computed hash6. */
  hash: string;
  /** True when the output path is a deliberate override: a mismatch only warns. */
  overridden: boolean;
}

/** What verify-on-hit found. */
export interface VerifyResult {
  /** The stored `.executor_info` text, or `null` when missing or unreadable. */
  infoText: string | null;
  /** True when the stored version equals the computed one. */
  matches: boolean;
}

/** Reads `<outputPath>/.executor_info`; `null` when it does not exist. */
export async function readInfoText(outputPath: string): Promise<string | null> {
  const url = fileUnder(outputPath, INFO_FILE);
  try {
    return await filesystemFor(url).readText(url);
  } catch (e) {
    if (RiggingError.hasCode(e, 'RIGGING_NOT_FOUND')) return null;
    throw e;
  }
}

/**
 * Verify-on-hit: before a SUCCESS output is reused, compare the `version` in
 * its `.executor_info` with the computed one as canonical strings (parsed with `parsePyJson`, so a
 * `1.0` written by Python stays a float, and re-serialized compact and sorted).
 *
 * A missing, unreadable, stub or version-less info file cannot be verified: warn and reuse. A
 * mismatch under an override path warns.
 *
 * @throws {ExecutorError} EXECUTOR_VERSION_CONFLICT when a computed output path holds the output of
 * a different version (a 24-bit hash collision), naming the path, both step names and the hash.
 */
export async function verifyOnHit(
  target: VerifyTarget,
  logger: ExecutorLogger,
  preread?: string | null,
): Promise<VerifyResult> {
  let text: string | null;
  try {
    text = preread !== undefined ? preread : await readInfoText(target.outputPath);
  } catch (e) {
    logger.warn(`Cannot read the info file of ${target.label} (${String(e)}); reusing its output unverified`);
    return { infoText: null, matches: false };
  }
  if (text === null) {
    logger.warn(`No .executor_info for ${target.label}; reusing its output unverified`);
    return { infoText: null, matches: false };
  }
  let stored: unknown;
  try {
    const info = parsePyJson(text);
    if (!isRecord(info)) throw new Error('not an object');
    if (info['executor_version'] === 'step_runner') {
      logger.warn(`The .executor_info of ${target.label} is a step-runner stub; reusing its output unverified`);
      return { infoText: text, matches: false };
    }
    stored = info['version'];
  } catch {
    logger.warn(`The .executor_info of ${target.label} is unreadable; reusing its output unverified`);
    return { infoText: text, matches: false };
  }
  if (!isRecord(stored) || Object.keys(stored).length === 0) {
    logger.warn(`The .executor_info of ${target.label} has no version; reusing its output unverified`);
    return { infoText: text, matches: false };
  }
  let storedStr: string;
  try {
    storedStr = pyJsonDumps(stored, { sortKeys: true });
  } catch {
    logger.warn(`The .executor_info of ${target.label} has a version that cannot be compared; reusing unverified`);
    return { infoText: text, matches: false };
  }
  if (storedStr === target.versionStr) return { infoText: text, matches: true };
  const storedName = typeof stored['name'] === 'string' ? stored['name'] : '<unknown>';
  if (target.overridden) {
    logger.warn(
      `The output at override path ${target.outputPath} was produced by a different version of ${storedName}; reusing it because the path is pinned`,
    );
    return { infoText: text, matches: false };
  }
  throw new ExecutorError(
    'EXECUTOR_VERSION_CONFLICT',
    `output path ${target.outputPath} already holds a successful output of step "${storedName}" with a different version than step "${target.name}" (both hash to ${target.hash}); rename the step or set an override output path`,
    {
      details: {
        outputPath: target.outputPath,
        step: target.name,
        storedStep: storedName,
        hash: target.hash,
        storedVersion: storedStr,
        version: target.versionStr,
      },
    },
  );
}
