import { hubResponseError } from './hub-response-error.js';
import type { HubTarget } from './hub-response-error.js';

/** Options of {@link createHubFetch}. */
export interface HubFetchOptions {
  /** The underlying fetch. */
  fetch: typeof fetch;
  /** Sent as `Authorization: Bearer <token>` when set, to `hubOrigin` only. */
  token: string | undefined;
  /** The hub's own origin (`http://host:port`): the only one that ever receives the token. */
  hubOrigin: string;
  /** The repository, named in errors. */
  target: HubTarget;
  /** Aborts requests that pass no signal of their own. */
  signal: AbortSignal;
}

function urlOf(input: Parameters<typeof fetch>[0]): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}

/**
 * A `fetch` for hub requests: adds the bearer token to requests for the hub's own origin (and to
 * no other: a listing's `Link` or a caller naming another host never gets it; on a redirect to
 * another origin, fetch itself drops the `Authorization` header), asks for the bytes as stored
 * (`Accept-Encoding: identity`, so byte counts match the listing) and throws the
 * {@link hubResponseError} of any non-OK response instead of returning it.
 */
export function createHubFetch(opts: HubFetchOptions): typeof fetch {
  return async (input, init) => {
    const url = urlOf(input);
    const headers = new Headers(init?.headers);
    headers.delete('authorization');
    if (opts.token !== undefined && opts.token !== '' && new URL(url).origin === opts.hubOrigin) {
      headers.set('authorization', `Bearer ${opts.token}`);
    }
    headers.set('accept-encoding', 'identity');
    const res = await opts.fetch(input, { ...init, headers, signal: init?.signal ?? opts.signal });
    if (res.ok) return res;
    const err = hubResponseError(res, url, opts.target);
    await res.body?.cancel().catch(() => undefined);
    throw err;
  };
}
