import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { FrayError } from '../errors.js';

/**
 * The Python environment a job runs in: the content of a checked-in requirements lock (exact pins) and a
 * Python version. The request carries the lock's content, not its path, so a remote worker needs no shared
 * filesystem; backends build the environment once per lock hash and start the job with it activated
 * (`VIRTUAL_ENV` set, its `bin` first on `PATH`).
 */
export interface PythonEnvSpec {
  /** The lock's content: `name==version` lines (extras, markers and `--hash` options allowed), comments. */
  readonly lock: string;
  /** How logs and errors name the lock, e.g. its file name. */
  readonly name: string;
  /** The interpreter version (`3`, `3.11` or `3.11.7`). @default '3.11' */
  readonly pythonVersion: string;
}

/** The Python version of a {@link PythonEnvSpec} that names none. */
export const DEFAULT_PYTHON_VERSION = '3.11';

const PYTHON_VERSION_RE = /^\d+(\.\d+){0,2}$/;
const NAME = '[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?';
// name[extra,...]==version [; markers] [--hash=algo:digest ...]; `==` with a wildcard is a range, not a pin.
const PIN_RE = new RegExp(
  `^${NAME}(?:\\s*\\[\\s*${NAME}(?:\\s*,\\s*${NAME})*\\s*\\])?\\s*==\\s*[A-Za-z0-9][A-Za-z0-9.+!_-]*(?:\\s*;[^#]*?)?(?:\\s+--hash[=\\s][A-Za-z0-9]+:[A-Za-z0-9]+)*\\s*$`,
);

/** Builders of {@link PythonEnvSpec}; each validates the lock and returns a frozen value. */
export const PythonEnvSpec = {
  /**
   * Reads a lock file (synchronously, so it fits in a request literal).
   * @param options.name how logs name the lock. @default the file's base name
   * @throws {FrayError} FRAY_INVALID_ARGUMENT if the file cannot be read or is not a lock of exact pins
   */
  fromLockFile(path: string, options: { pythonVersion?: string; name?: string } = {}): PythonEnvSpec {
    let lock: string;
    try {
      lock = readFileSync(path, 'utf8');
    } catch (cause) {
      throw new FrayError('FRAY_INVALID_ARGUMENT', `cannot read the Python requirements lock "${path}"`, { cause, details: { path } });
    }
    return PythonEnvSpec.fromLock(lock, { name: options.name ?? basename(path), ...(options.pythonVersion === undefined ? {} : { pythonVersion: options.pythonVersion }) });
  },

  /**
   * A spec from a lock's content.
   * @throws {FrayError} FRAY_INVALID_ARGUMENT naming the first line that is not an exact pin, or for an empty lock
   */
  fromLock(lock: string, options: { name?: string; pythonVersion?: string } = {}): PythonEnvSpec {
    return validatePythonEnvSpec({ lock, name: options.name ?? 'requirements.lock', pythonVersion: options.pythonVersion ?? DEFAULT_PYTHON_VERSION });
  },
} as const;

/**
 * Checks a {@link PythonEnvSpec} (also one built by hand): a non-empty name, a Python version `N[.N[.N]]`, and a
 * lock whose every non-comment line is an exact pin, with at least one pin.
 * @throws {FrayError} FRAY_INVALID_ARGUMENT with `details.line` (1-based) and `details.text` for a bad line
 */
export function validatePythonEnvSpec(spec: PythonEnvSpec): PythonEnvSpec {
  if (typeof spec !== 'object' || spec === null || typeof spec.lock !== 'string') {
    throw new FrayError('FRAY_INVALID_ARGUMENT', 'pythonEnv must be a PythonEnvSpec; build one with PythonEnvSpec.fromLockFile');
  }
  const name = typeof spec.name === 'string' && spec.name !== '' ? spec.name : 'requirements.lock';
  const pythonVersion = spec.pythonVersion ?? DEFAULT_PYTHON_VERSION;
  if (typeof pythonVersion !== 'string' || !PYTHON_VERSION_RE.test(pythonVersion)) {
    throw new FrayError('FRAY_INVALID_ARGUMENT', `pythonEnv.pythonVersion "${String(pythonVersion)}" must look like 3, 3.11 or 3.11.7`, {
      details: { field: 'pythonVersion' },
    });
  }
  let pins = 0;
  for (const { line, text } of logicalLines(spec.lock)) {
    const content = stripComment(text).trim();
    if (content === '') continue;
    if (!PIN_RE.test(content)) {
      throw new FrayError('FRAY_INVALID_ARGUMENT', `Python lock "${name}" line ${line} is not an exact pin (name==version): ${JSON.stringify(text.trim())}`, {
        details: { lock: name, line, text: text.trim() },
      });
    }
    pins += 1;
  }
  if (pins === 0) {
    throw new FrayError('FRAY_INVALID_ARGUMENT', `Python lock "${name}" pins no package; give at least one name==version line`, {
      details: { lock: name },
    });
  }
  return Object.freeze({ lock: spec.lock, name, pythonVersion });
}

/** Lines joined across trailing backslashes (how `--generate-hashes` locks wrap), with their first line number. */
function* logicalLines(lock: string): Generator<{ line: number; text: string }> {
  const physical = lock.split(/\r?\n/);
  for (let i = 0; i < physical.length; i += 1) {
    const start = i + 1;
    let text = physical[i] as string;
    while (text.trimEnd().endsWith('\\') && i + 1 < physical.length) {
      text = `${text.trimEnd().slice(0, -1)} ${physical[i + 1] as string}`;
      i += 1;
    }
    yield { line: start, text };
  }
}

/** Drops a `#` comment: a whole-line one, or one after whitespace (pip's rule; `#` inside a URL is not one). */
function stripComment(text: string): string {
  if (text.trimStart().startsWith('#')) return '';
  const at = text.search(/\s#/);
  return at < 0 ? text : text.slice(0, at);
}
