import type { ApiError } from '../src/dashboard/api-types.ts';

/** An API failure with the controller's error code. */
export class ApiFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
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
  throw new ApiFailure(body.code, body.message);
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
