import { FrayError } from '../errors.js';

const NAME_RE = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * Checks that `name` is one Iris name component: `[A-Za-z0-9_.-]{1,128}`, not `.`/`..`, not all digits.
 *
 * @throws {FrayError} FRAY_INVALID_ARGUMENT naming the bad name
 */
export function validateJobName(name: string): string {
  if (typeof name !== 'string' || !NAME_RE.test(name) || name === '.' || name === '..' || /^\d+$/.test(name)) {
    throw new FrayError(
      'FRAY_INVALID_ARGUMENT',
      `invalid job name ${JSON.stringify(name)}: use 1-128 characters of [A-Za-z0-9_.-], not all digits and not "." or ".."`,
      { details: { name } },
    );
  }
  return name;
}

/**
 * Turns any label into a valid job name, as Marin does for executor and `remote()` jobs: lower-case, every run
 * of characters outside `[a-z0-9_.-]` becomes `-`, leading and trailing `-`/`.` trimmed, empty → `remote_job`.
 *
 * @example sanitizeJobName('Tokenize Fineweb!') === 'tokenize-fineweb'
 */
export function sanitizeJobName(label: string): string {
  const s = label
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
  if (s === '') return 'remote_job';
  // A sanitised name must still be a valid component: cap the length and avoid an all-digit name.
  const capped = s.slice(0, 128).replace(/[-.]+$/, '');
  return /^\d+$/.test(capped) ? `job-${capped}`.slice(0, 128) : capped;
}

/** Eight random lower-case hex characters, the suffix of generated job names and local job ids. */
export function randomHex8(): string {
  return crypto.randomUUID().replace(/-/g, '').slice(0, 8);
}
