import { randomBytes } from 'node:crypto';
import { IrisError } from '../errors.js';

/** How many UNIQUE collisions in a row are tolerated before minting fails. */
export const MAX_ATTEMPT_UID_RETRIES = 5;

/** Draws a random 16-hex-char attempt uid. */
export function randomAttemptUid(): string {
  return randomBytes(8).toString('hex');
}

/**
 * Mints an attempt uid not yet used, drawing again on a collision.
 * @throws {IrisError} IRIS_INTERNAL "exhausted attempt_uid retries" after {@link MAX_ATTEMPT_UID_RETRIES} collisions in a row.
 */
export function mintAttemptUid(isTaken: (uid: string) => boolean, draw: () => string = randomAttemptUid): string {
  for (let i = 0; i < MAX_ATTEMPT_UID_RETRIES; i++) {
    const uid = draw();
    if (!isTaken(uid)) return uid;
  }
  throw new IrisError('IRIS_INTERNAL', 'exhausted attempt_uid retries');
}
