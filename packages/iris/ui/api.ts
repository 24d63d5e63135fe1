import type { ApiError, WhoAmIView } from '../src/dashboard/api-types.ts';

/** An API failure with the controller's error code (and the whole error body, e.g. `prunedJob`). */
export class ApiFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly body: ApiError = { code, message },
  ) {
    super(message);
  }
}

async function parse<T>(res: Response): Promise<T> {
  if (res.ok) return (await res.json()) as T;
  let body: ApiError = { code: 'IRIS_INTERNAL', message: `${res.status} ${res.statusText}` };
  try {
    body = (await res.json()) as ApiError;
  } catch {
    // Not JSON: keep the status line.
  }
  throw new ApiFailure(body.code, body.message, body);
}

/** `GET /api/<path>?<params>`; empty parameters are left out. */
export async function getJson<T>(path: string, params: Record<string, string | number | undefined> = {}): Promise<T> {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const qs = q.toString();
  return parse<T>(await fetch(`/api/${path}${qs === '' ? '' : `?${qs}`}`, { credentials: 'same-origin' }));
}

/** `POST /api/<path>?<params>` with the header that marks the dashboard's own requests. */
export async function postJson<T>(path: string, params: Record<string, string>): Promise<T> {
  const res = await fetch(`/api/${path}?${new URLSearchParams(params).toString()}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'x-iris-dashboard': '1' },
  });
  return parse<T>(res);
}

let me: Promise<WhoAmIView | null> | undefined;

/** Who the page acts as (fetched once); null when the controller does not say. */
export function whoAmI(): Promise<WhoAmIView | null> {
  me ??= getJson<WhoAmIView>('whoami').catch(() => null);
  return me;
}

/** True when `me` may stop a job of `user`: no per-user keys, an admin, or the job's owner (the server decides either way). */
export function mayStop(me: WhoAmIView | null, user: string): boolean {
  return me === null || me.user === null || me.role === 'admin' || me.user === user;
}
