import { createHash } from 'node:crypto';

/** The first 6 lower-case hex characters of the md5 of `versionStr` (Marin's output-path suffix). */
export function hash6(versionStr: string): string {
  return createHash('md5').update(versionStr, 'utf8').digest('hex').slice(0, 6);
}
