import { IrisError, parseSize } from '@marin/iris/core';
import { FrayError } from '../errors.js';

/**
 * Parses a binary size string (`512`, `64k`, `4g`, `8gb`, `8GiB`, `1t`; case-insensitive) into bytes,
 * with the same rules as Iris (`parseSize`), so a size Fray accepts is one the cluster accepts.
 *
 * @param field names the option in the error message
 * @throws {FrayError} FRAY_INVALID_ARGUMENT for anything else
 */
export function parseSizeBytes(value: string, field = 'size'): number {
  const invalid = (cause?: unknown) =>
    new FrayError('FRAY_INVALID_ARGUMENT', `invalid ${field} ${JSON.stringify(value)}: use a size such as "512m", "4g" or "1t"`, {
      cause,
      details: { field, value },
    });
  if (typeof value !== 'string') throw invalid();
  try {
    return parseSize(value, field);
  } catch (e) {
    throw IrisError.is(e) ? invalid(e) : e;
  }
}
