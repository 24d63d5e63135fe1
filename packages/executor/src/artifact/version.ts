import { ExecutorError } from '../errors.js';

/**
 * Marin's one canonical CalVer form: `YYYY.MM.DD`, optionally `.N` for further immutable revisions that day.
 * Written as Python's `re.match` reads `^\d{4}\.\d{2}\.\d{2}(\.\d+)?$`: `\d` is any Unicode decimal digit and
 * `$` also matches before one trailing newline, so both languages accept the same strings.
 */
export const CALVER_RE = /^\p{Nd}{4}\.\p{Nd}{2}\.\p{Nd}{2}(\.\p{Nd}+)?\n?$/u;

/** A `dev` or `<label>-dev` version is mutable: it skips the drift check and always rebuilds. */
export function isMutableVersion(version: string): boolean {
  return version === 'dev' || version.endsWith('-dev');
}

// Python's urllib.parse.urlsplit (3.12) strips leading C0 controls and spaces and removes tab, CR and LF
// before it looks for a scheme.
const LEADING_C0_OR_SPACE = /^[\u0000-\u0020]+/;
const UNSAFE_URL_CHARS = /[\t\r\n]/g;
const SCHEME_CHAR = /^[A-Za-z0-9+\-.]$/;

/** The scheme Python's `urlparse(value).scheme` finds (`''` for none), lower-cased as Python does. */
export function pythonUrlScheme(value: string): string {
  if (!value.includes(':')) return ''; // no scheme without a colon (the characters stripped below are not colons)
  const url = value.replace(LEADING_C0_OR_SPACE, '').replace(UNSAFE_URL_CHARS, '');
  const i = url.indexOf(':');
  if (i <= 0) return '';
  const first = url[0] as string;
  if (!/^[A-Za-z]$/.test(first)) return '';
  for (const c of url.slice(0, i)) if (!SCHEME_CHAR.test(c)) return '';
  return url.slice(0, i).toLowerCase();
}

function invalid(label: string, value: string, message: string): ExecutorError {
  return new ExecutorError('EXECUTOR_INVALID_VERSION', message, { details: { field: label, value } });
}

/** JSON-quoted, as the messages name values (Python's `repr` differs only in quote style). */
function show(value: string): string {
  return JSON.stringify(value);
}

/**
 * Checks that an artifact `name` or `version` is one path segment the way Marin's `validate_path_segment`
 * does: non-empty, no URL scheme (`://` or anything `urlparse` reads as a scheme), no `..`, no leading or
 * trailing `/`. A `/` inside a name is allowed (`hello_world/data`).
 *
 * @throws {ExecutorError} EXECUTOR_INVALID_VERSION with `details.field` (`name` or `version`) and `details.value`
 */
export function validatePathSegment(label: 'name' | 'version', value: string): void {
  if (value === '') throw invalid(label, value, `${label} must be non-empty`);
  if (value.includes('://') || pythonUrlScheme(value) !== '') {
    throw invalid(label, value, `${label} ${show(value)} must not contain a URL scheme`);
  }
  if (value.includes('..')) throw invalid(label, value, `${label} ${show(value)} must not contain '..'`);
  if (value.startsWith('/') || value.endsWith('/')) {
    throw invalid(label, value, `${label} ${show(value)} must not start or end with '/'`);
  }
}

/**
 * Checks an artifact version as Marin's `validate_version` does: a path segment that is a calendar version
 * `YYYY.MM.DD` (optionally `YYYY.MM.DD.N`) or a mutable `dev` / `<label>-dev`. `v1`-style tags are refused.
 *
 * @throws {ExecutorError} EXECUTOR_INVALID_VERSION
 */
export function validateVersion(version: string): void {
  // A graph repeats a handful of versions thousands of times: remember the last valid one.
  if (version === lastValidVersion) return;
  validatePathSegment('version', version);
  if (isMutableVersion(version)) return;
  if (!CALVER_RE.test(version)) {
    throw invalid(
      'version',
      version,
      `version ${show(version)} must be a calendar version YYYY.MM.DD (optionally YYYY.MM.DD.N) or a mutable 'dev'/'<label>-dev'`,
    );
  }
  lastValidVersion = version;
}

let lastValidVersion: string | null = null;
