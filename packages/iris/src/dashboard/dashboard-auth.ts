import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** What the auth helpers read of a request: its headers (an HTTP/1.1 request or an HTTP/2 stream's). */
export interface RequestHeaders {
  readonly headers: IncomingHttpHeaders;
}

/** The cookie that carries the controller's token once a page was opened with `?token=`. */
export const TOKEN_COOKIE = 'iris_token';

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** The value of cookie `name` on `req`, if present. */
export function cookieValue(req: RequestHeaders, name: string): string | undefined {
  const header = req.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/**
 * The token a request presents: `Authorization: Bearer <token>` (scripts) or the dashboard cookie
 * (the browser, after the `?token=` exchange).
 */
export function presentedToken(req: RequestHeaders): string | undefined {
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && auth.startsWith('Bearer ')) return auth.slice('Bearer '.length);
  return cookieValue(req, TOKEN_COOKIE);
}

/** True when no token is configured or `sent` equals it (compared in constant time on digests). */
export function tokenMatches(sent: string | undefined | null, token: string | undefined): boolean {
  if (token === undefined || token === '') return true;
  if (typeof sent !== 'string') return false;
  return timingSafeEqual(digest(sent), digest(token));
}

/** The `Set-Cookie` value that keeps the token for this origin's pages and API calls. */
export function tokenCookie(token: string): string {
  return `${TOKEN_COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Strict`;
}
