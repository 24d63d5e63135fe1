import { hubResponseError } from './hub-response-error.js';
import type { HubTarget } from './hub-response-error.js';

/** Options of {@link createHubFetch}. */
export interface HubFetchOptions {
  /** The underlying fetch. */
  fetch: typeof fetch;
  /** Sent as `Authorization: Bearer <token>` when set. */
  token: string | undefined;
  /** The repository, named in errors. */
  target: HubTarget;
  /** Aborts requests that pass no signal of their own. */
  signal: AbortSignal;
}

/**
 * A `fetch` for hub requests: adds the bearer token, asks for the bytes as stored
 * (`Accept-Encoding: identity`, so byte counts match the listing) and throws the
 * {@link hubResponseError} of any non-OK response instead of returning it.
 */
export function createHubFetch(opts: HubFetchOptions): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    if (opts.token !== undefined && opts.token !== '') headers.set('authorization', `Bearer ${opts.token}`);
    headers.set('accept-encoding', 'identity');
    const res = await opts.fetch(input, { ...init, headers, signal: init?.signal ?? opts.signal });
    if (res.ok) return res;
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const err = hubResponseError(res, url, opts.target);
    await res.body?.cancel().catch(() => undefined);
    throw err;
  };
}
