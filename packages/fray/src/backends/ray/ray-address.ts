import { FrayError } from '../../errors.js';

/** Env var naming the dashboard for Fray when `RAY_ADDRESS` holds something else (inside a Ray job, the GCS). */
export const FRAY_RAY_ADDRESS_ENV = 'FRAY_RAY_ADDRESS';

/**
 * The dashboard URL of an address: `http(s)://host:port` as given, `host:port` as `http://host:port`.
 * @throws {FrayError} FRAY_INVALID_ARGUMENT for `ray://` (Ray Client, not the Jobs API), `auto` or anything else
 */
export function rayDashboardUrl(address: string): string {
  const a = address.trim().replace(/\/+$/, '');
  if (/^https?:\/\/[^/]+(\/.*)?$/.test(a)) return a;
  if (/^[^/:]+:\d+$/.test(a)) return `http://${a}`;
  throw new FrayError(
    'FRAY_INVALID_ARGUMENT',
    `Ray address "${address}" is not a dashboard address; pass the dashboard's http://host:port (port 8265 by default), not a ray:// or GCS address`,
    { details: { address } },
  );
}

/** The address the Ray backend uses when none is passed: `FRAY_RAY_ADDRESS`, else `RAY_ADDRESS`, else `null`. */
export function rayAddressFromEnv(env: NodeJS.ProcessEnv = process.env): string | null {
  for (const key of [FRAY_RAY_ADDRESS_ENV, 'RAY_ADDRESS']) {
    const value = env[key];
    if (value !== undefined && value !== '') return value;
  }
  return null;
}

/**
 * Extra request headers from `RAY_JOB_HEADERS` (a JSON object, as Ray's own job CLI reads it), e.g.
 * `{"Authorization": "Bearer …"}` for a dashboard behind an authenticating proxy.
 * @throws {FrayError} FRAY_INVALID_ARGUMENT when the variable is not a JSON object of strings
 */
export function rayHeadersFromEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const raw = env['RAY_JOB_HEADERS'];
  if (raw === undefined || raw === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (e) {
    throw new FrayError('FRAY_INVALID_ARGUMENT', 'RAY_JOB_HEADERS must be a JSON object of header names to values', { cause: e });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || Object.values(parsed).some((v) => typeof v !== 'string')) {
    throw new FrayError('FRAY_INVALID_ARGUMENT', 'RAY_JOB_HEADERS must be a JSON object of header names to values');
  }
  return parsed as Record<string, string>;
}
