import * as crypto from 'node:crypto';

type OneShotHash = (algorithm: string, data: string, outputEncoding: 'hex') => string;
// crypto.hash (Node >= 20.12) skips the Hash object; fall back to createHash elsewhere.
const oneShot = (crypto as unknown as { hash?: OneShotHash }).hash;

/** The first 6 lower-case hex characters of the md5 of `versionStr` (Marin's output-path suffix). */
export function hash6(versionStr: string): string {
  const hex = oneShot !== undefined
    ? oneShot('md5', versionStr, 'hex')
    : crypto.createHash('md5').update(versionStr, 'utf8').digest('hex');
  return hex.slice(0, 6);
}
