import { FrayError } from '../errors.js';

const SIZE_RE = /^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(?:i?b)?\s*$/i;
const POWERS: Readonly<Record<string, number>> = { '': 0, k: 1, m: 2, g: 3, t: 4, p: 5 };

/**
 * Parses a binary size string (`512`, `64k`, `4g`, `8gb`, `8GiB`, `1t`; case-insensitive) into bytes.
 *
 * @param field names the option in the error message
 * @throws {FrayError} FRAY_INVALID_ARGUMENT for anything else
 */
export function parseSizeBytes(value: string, field = 'size'): number {
  const m = typeof value === 'string' ? SIZE_RE.exec(value) : null;
  if (m === null) {
    throw new FrayError('FRAY_INVALID_ARGUMENT', `invalid ${field} ${JSON.stringify(value)}: use a size such as "512m", "4g" or "1t"`, {
      details: { field, value },
    });
  }
  const power = POWERS[(m[2] ?? '').toLowerCase()] ?? 0;
  return Math.round(Number(m[1]) * 1024 ** power);
}
