import { userInfo } from 'node:os';
import { ExecutorError } from '../errors.js';
import { publishedProvenance } from './provenance.js';
import { isMutableVersion } from './version.js';

function osLogin(env: NodeJS.ProcessEnv): string | null {
  // Python's getpass.getuser(): LOGNAME, USER, LNAME, USERNAME, then the password database.
  for (const key of ['LOGNAME', 'USER', 'LNAME', 'USERNAME']) {
    const v = env[key];
    if (v !== undefined && v !== '') return v;
  }
  try {
    return userInfo().username;
  } catch {
    return null;
  }
}

/** A raw user name as a path segment (Marin's rule): drop an email domain, lowercase, collapse `[^a-z0-9_-]+` to `-`. */
export function sanitizeUserSegment(raw: string): string {
  let name = raw.trim();
  const at = name.indexOf('@');
  if (at >= 0) name = name.slice(0, at);
  return name.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
}

/**
 * The current user as a path segment (Marin's `username_segment`): the launch provenance's `built_by` when
 * `MARIN_PROVENANCE` carries one, else the OS login.
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT when no user resolves or it sanitizes to nothing (a dev run
 *   never falls back to a shared namespace)
 */
export function usernameSegment(env: NodeJS.ProcessEnv = process.env): string {
  const published = publishedProvenance(env);
  const raw = published?.built_by !== undefined && published.built_by !== null && published.built_by !== '' ? published.built_by : osLogin(env);
  if (raw === null || raw === '') throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', 'cannot resolve a username for per-user namespacing');
  const segment = sanitizeUserSegment(raw);
  if (segment === '') throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `username ${JSON.stringify(raw)} did not sanitize to a usable path segment`, { details: { raw } });
  return segment;
}

/** `users/{username}/{name}`: an artifact the caller owns. */
export function userOwnedName(name: string, env: NodeJS.ProcessEnv = process.env): string {
  return `users/${usernameSegment(env)}/${name}`;
}

/** `users/{username}/{name}` for a mutable (`dev`) version, `name` unchanged for a fixed one (Marin's training runs). */
export function userNamespacedName(name: string, version: string, env: NodeJS.ProcessEnv = process.env): string {
  return isMutableVersion(version) ? userOwnedName(name, env) : name;
}
