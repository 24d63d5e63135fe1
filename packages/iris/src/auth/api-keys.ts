import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What an API key starts with; the key id follows, then `.` and the secret. */
export const API_KEY_PREFIX = 'iris-key-';
/** What a job token (a task's credential with per-user keys) starts with. */
export const JOB_TOKEN_PREFIX = 'iris-job.';

const KEY_PATTERN = /^iris-key-([0-9a-f]{16})\.([A-Za-z0-9_-]{43})$/;

/** A freshly generated API key: the id is public (listed, revoked by), the key itself is the secret. */
export interface GeneratedApiKey {
  readonly keyId: string;
  /** `iris-key-<key id>.<secret>`; shown once, never stored. */
  readonly key: string;
  /** SHA-256 of `key`, what the controller stores. */
  readonly hash: Buffer;
}

/** SHA-256 of a presented secret. Keys carry 256 random bits, so a fast hash is enough. */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

/** A new random API key (16 hex id + 256-bit secret). */
export function generateApiKey(): GeneratedApiKey {
  const keyId = randomBytes(8).toString('hex');
  const key = `${API_KEY_PREFIX}${keyId}.${randomBytes(32).toString('base64url')}`;
  return { keyId, key, hash: hashSecret(key) };
}

/** The key id of a well-formed API key, or null. */
export function apiKeyId(key: string): string | null {
  return KEY_PATTERN.exec(key)?.[1] ?? null;
}

/** True when `key` hashes to `storedHash`, compared in constant time. */
export function apiKeyMatches(key: string, storedHash: Buffer): boolean {
  const sent = hashSecret(key);
  return sent.length === storedHash.length && timingSafeEqual(sent, storedHash);
}

function jobMac(secret: Buffer, jobId: string): string {
  return createHmac('sha256', secret).update(`iris-job-token:${jobId}`).digest('base64url');
}

/** A credential for one job, signed with the controller's secret: `iris-job.<job id, base64url>.<HMAC>`. */
export function mintJobToken(secret: Buffer, jobId: string): string {
  return `${JOB_TOKEN_PREFIX}${Buffer.from(jobId).toString('base64url')}.${jobMac(secret, jobId)}`;
}

/** The job id a job token names when its signature is valid, or null. */
export function verifyJobToken(secret: Buffer, token: string): string | null {
  if (!token.startsWith(JOB_TOKEN_PREFIX)) return null;
  const [encodedJob, mac, extra] = token.slice(JOB_TOKEN_PREFIX.length).split('.');
  if (encodedJob === undefined || mac === undefined || extra !== undefined) return null;
  const jobId = Buffer.from(encodedJob, 'base64url').toString();
  const expected = Buffer.from(jobMac(secret, jobId));
  const sent = Buffer.from(mac);
  return sent.length === expected.length && timingSafeEqual(sent, expected) ? jobId : null;
}

/** Replaces every API key or job token in `text` with a redaction mark, for anything that may be logged. */
export function redactCredentials(text: string): string {
  return text.replace(/iris-key-[0-9a-f]{16}\.[A-Za-z0-9_-]+/g, 'iris-key-<redacted>').replace(/iris-job\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g, 'iris-job.<redacted>');
}
