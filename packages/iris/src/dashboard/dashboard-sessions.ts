import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { CallerIdentity } from '../auth/identity.js';
import type { CallerAuth } from '../controller/services/caller-auth.js';
import { IrisError } from '../errors.js';
import { cookieValue } from './dashboard-auth.js';
import type { RequestHeaders } from './dashboard-auth.js';

/** The cookie naming a dashboard session (per-user API keys). */
export const SESSION_COOKIE = 'iris_session';
/** A session lasts this long after login. */
const SESSION_TTL_MS = 12 * 3600 * 1000;
const MAX_KEY_CHARS = 200;

/**
 * Dashboard sessions with per-user API keys: logging in with a key gives a random session id (an
 * HttpOnly, SameSite=Strict cookie) that names the key, never the key itself. Every request
 * re-reads the key and its user from SQLite, so a revoked key or a changed role applies at once.
 * Sessions live in memory and end with the controller.
 */
export class DashboardSessions {
  readonly #sessions = new Map<string, { keyId: string; expiresAtMs: number }>();

  constructor(private readonly auth: CallerAuth) {}

  /**
   * Trades an API key for a session.
   * @returns the `Set-Cookie` value and who logged in
   * @throws {IrisError} IRIS_UNAUTHENTICATED for anything but a valid, unrevoked API key.
   */
  login(key: string): { cookie: string; identity: CallerIdentity } {
    if (key.length > MAX_KEY_CHARS) throw new IrisError('IRIS_UNAUTHENTICATED', 'unknown API key');
    const identity = this.auth.authenticate(key.trim());
    if (identity.keyId === undefined) throw new IrisError('IRIS_UNAUTHENTICATED', 'log in with a user API key (`iris key create`)');
    const id = randomBytes(32).toString('base64url');
    this.#prune();
    this.#sessions.set(id, { keyId: identity.keyId, expiresAtMs: Date.now() + SESSION_TTL_MS });
    return { cookie: `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_TTL_MS / 1000}`, identity };
  }

  /** Ends the request's session, if any; returns the cookie that clears it. */
  logout(req: IncomingMessage): string {
    const id = cookieValue(req, SESSION_COOKIE);
    if (id !== undefined) this.#sessions.delete(id);
    return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`;
  }

  /**
   * Who sent `req`: its session cookie, or an `Authorization: Bearer <API key>` header (scripts).
   * @throws {IrisError} IRIS_UNAUTHENTICATED
   */
  identify(req: RequestHeaders): CallerIdentity {
    const auth = req.headers.authorization;
    if (typeof auth === 'string' && auth.startsWith('Bearer ')) {
      const identity = this.auth.authenticate(auth.slice('Bearer '.length));
      if (identity.role === 'worker') throw new IrisError('IRIS_UNAUTHENTICATED', 'the workers\u2019 token does not open the dashboard; log in with an API key');
      return identity;
    }
    const id = cookieValue(req, SESSION_COOKIE);
    const session = id === undefined ? undefined : this.#sessions.get(id);
    if (!session || session.expiresAtMs < Date.now()) throw new IrisError('IRIS_UNAUTHENTICATED', 'log in with your API key at /login');
    return this.auth.identityOfKey(session.keyId);
  }

  #prune(): void {
    const now = Date.now();
    for (const [id, s] of this.#sessions) if (s.expiresAtMs < now) this.#sessions.delete(id);
  }
}

/** The login page (no script: the page's CSP forbids inline code, and a plain form needs none). */
export function loginPage(message: string): string {
  const note = message === '' ? '' : `<p role="alert">${message.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)}</p>`;
  return `<!doctype html><meta charset="utf-8"><title>Iris: log in</title>
<h1>Iris</h1>${note}
<form method="post" action="/login"><label>API key <input name="key" type="password" autocomplete="off" required></label>
<button type="submit">Log in</button></form>
<p>An admin creates your key with <code>iris key create --user &lt;you&gt;</code>.</p>`;
}
