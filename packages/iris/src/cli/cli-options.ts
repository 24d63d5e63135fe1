import { IrisError } from '../errors.js';
import { canonicalGpuVariant } from '../core/device-constraints.js';

/**
 * `--env` values: `KEY=VALUE` split at the first `=`; a bare `KEY` copies the caller's value.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for an empty key or a bare key the caller does not have.
 */
export function parseEnvFlags(values: readonly string[], env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values) {
    const eq = v.indexOf('=');
    const key = eq < 0 ? v : v.slice(0, eq);
    if (key === '') throw new IrisError('IRIS_INVALID_ARGUMENT', `--env "${v}": empty key`);
    if (eq >= 0) out[key] = v.slice(eq + 1);
    else if (env[key] !== undefined) out[key] = env[key];
    else throw new IrisError('IRIS_INVALID_ARGUMENT', `--env "${key}": not set in the calling environment; give KEY=VALUE`);
  }
  return out;
}

/**
 * `--gpu` specs: `H100x8`, `8` (variant auto), `H100`.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT for an unknown variant or a bad count.
 */
export function parseGpuSpec(spec: string): { variant: string; count: number } {
  const trimmed = spec.trim();
  if (/^\d+$/.test(trimmed)) return { variant: 'auto', count: Number(trimmed) };
  const m = /^([A-Za-z0-9-]+?)(?:x(\d+))?$/.exec(trimmed);
  if (!m) throw new IrisError('IRIS_INVALID_ARGUMENT', `--gpu "${spec}": use H100x8, 8 or H100`);
  const variant = canonicalGpuVariant(m[1] ?? '');
  if (!variant) throw new IrisError('IRIS_INVALID_ARGUMENT', `--gpu "${spec}": unknown GPU variant`);
  return { variant, count: m[2] === undefined ? 1 : Number(m[2]) };
}

/**
 * A non-negative number flag.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT otherwise.
 */
export function parseNumberFlag(flag: string, value: string, integer = false): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n))) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', `${flag} "${value}": expected a non-negative ${integer ? 'integer' : 'number'}`);
  }
  return n;
}

/** Default job name: `iris-run-<script or command basename>-<UTC yyyymmdd-HHMMSS>`. */
export function defaultJobName(command: readonly string[], now = new Date()): string {
  const interpreters = new Set(['node', 'python', 'python3', 'bash', 'sh', 'npx', 'tsx']);
  const first = command[0] ?? 'job';
  const second = command[1];
  const script = interpreters.has(first.split('/').pop() ?? '') && second !== undefined && !second.startsWith('-') ? second : undefined;
  const base = ((script ?? first).split('/').pop() ?? 'job').replace(/\.[A-Za-z0-9]+$/, '').replace(/[^A-Za-z0-9_.-]/g, '-').slice(0, 40) || 'job';
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `iris-run-${base}-${stamp}`;
}

const BANDS = ['PRODUCTION', 'INTERACTIVE', 'BATCH'] as const;

/**
 * Parses a band flag, case-insensitive (`production`, `interactive`, `batch`; `inherit` when allowed).
 * @throws {IrisError} IRIS_INVALID_ARGUMENT naming the flag.
 */
export function parsePriorityFlag(flag: string, value: string, allowInherit: true): (typeof BANDS)[number] | 'INHERIT';
export function parsePriorityFlag(flag: string, value: string, allowInherit?: false): (typeof BANDS)[number];
export function parsePriorityFlag(flag: string, value: string, allowInherit = false): (typeof BANDS)[number] | 'INHERIT' {
  const v = value.toUpperCase();
  if ((BANDS as readonly string[]).includes(v) || (allowInherit && v === 'INHERIT')) return v as (typeof BANDS)[number] | 'INHERIT';
  throw new IrisError('IRIS_INVALID_ARGUMENT', `${flag} "${value}": expected ${allowInherit ? 'production, interactive, batch or inherit' : 'production, interactive or batch'}`);
}
