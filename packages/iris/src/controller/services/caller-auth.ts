import { createHash, timingSafeEqual } from 'node:crypto';
import { API_KEY_PREFIX, JOB_TOKEN_PREFIX, apiKeyId, apiKeyMatches, mintJobToken, verifyJobToken } from '../../auth/api-keys.js';
import type { AuthMode, CallerIdentity } from '../../auth/identity.js';
import { IrisError } from '../../errors.js';
import type { IdentityStore } from '../store/identity-store.js';
import type { ControllerStore } from '../store/store.js';
import { isTerminalJobState } from '../../wire/task-states.js';

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** What {@link CallerAuth} needs. */
export interface CallerAuthOptions {
  readonly mode: AuthMode;
  /** The shared token: every caller's in `shared-token` mode, the workers' in `api-keys` mode. */
  readonly sharedToken?: string | undefined;
  readonly identities: IdentityStore;
  readonly store: ControllerStore;
  readonly now: () => number;
}

const UNRESTRICTED: CallerIdentity = { user: null, role: 'admin' };

/**
 * Turns the bearer credential of a request into a {@link CallerIdentity}:
 * - `none`: everyone is the unrestricted local user;
 * - `shared-token`: the token's holder is the unrestricted user, anything else is refused;
 * - `api-keys`: an API key is its user with the user's current role; the shared token is a worker
 *   daemon; a job token is that job's user, only while the job is not finished.
 * Keys are looked up in SQLite on every request, so a revoked key is refused at once.
 */
export class CallerAuth {
  readonly mode: AuthMode;
  #jobSecret: Buffer | undefined;

  constructor(private readonly options: CallerAuthOptions) {
    this.mode = options.mode;
  }

  /** @throws {IrisError} IRIS_UNAUTHENTICATED when the credential is missing, unknown, revoked or expired with its job. */
  authenticate(bearer: string | undefined): CallerIdentity {
    const { mode, sharedToken } = this.options;
    if (mode === 'none') return UNRESTRICTED;
    const sharedMatches = bearer !== undefined && sharedToken !== undefined && timingSafeEqual(digest(bearer), digest(sharedToken));
    if (mode === 'shared-token') {
      if (!sharedMatches) throw new IrisError('IRIS_UNAUTHENTICATED', 'missing or wrong auth token');
      return UNRESTRICTED;
    }
    if (bearer === undefined || bearer === '') throw new IrisError('IRIS_UNAUTHENTICATED', 'this controller needs an API key; run `iris login`');
    if (sharedMatches) return { user: null, role: 'worker' };
    if (bearer.startsWith(API_KEY_PREFIX)) return this.#apiKey(bearer);
    if (bearer.startsWith(JOB_TOKEN_PREFIX)) return this.#jobToken(bearer);
    throw new IrisError('IRIS_UNAUTHENTICATED', 'unknown credential; run `iris login` with an API key');
  }

  /**
   * The identity behind a dashboard session, re-read from SQLite on every request so a revoked
   * key ends its sessions at once.
   * @throws {IrisError} IRIS_UNAUTHENTICATED
   */
  identityOfKey(keyId: string): CallerIdentity {
    const row = this.options.identities.key(keyId);
    const user = row && row.revoked_at_ms === 0 ? this.options.identities.user(row.user) : undefined;
    if (!row || !user) throw new IrisError('IRIS_UNAUTHENTICATED', 'the session ended (its API key was revoked); log in again');
    return { user: user.user, role: user.role, keyId: row.key_id };
  }

  /** The credential a task of `jobId` gets in `api-keys` mode (none otherwise). */
  taskToken(jobId: string): string {
    return this.mode === 'api-keys' ? mintJobToken(this.#secret(), jobId) : '';
  }

  #secret(): Buffer {
    this.#jobSecret ??= this.options.identities.jobTokenSecret();
    return this.#jobSecret;
  }

  #apiKey(key: string): CallerIdentity {
    const keyId = apiKeyId(key);
    const row = keyId === null ? undefined : this.options.identities.key(keyId);
    if (!row || !apiKeyMatches(key, row.key_hash)) throw new IrisError('IRIS_UNAUTHENTICATED', 'unknown API key');
    if (row.revoked_at_ms !== 0) throw new IrisError('IRIS_UNAUTHENTICATED', `API key ${row.key_id} was revoked`);
    const user = this.options.identities.user(row.user);
    if (!user) throw new IrisError('IRIS_UNAUTHENTICATED', 'unknown API key');
    this.options.identities.touchKey(row, this.options.now());
    return { user: user.user, role: user.role, keyId: row.key_id };
  }

  #jobToken(token: string): CallerIdentity {
    const jobId = verifyJobToken(this.#secret(), token);
    const job = jobId === null ? undefined : this.options.store.job(jobId);
    if (!job) throw new IrisError('IRIS_UNAUTHENTICATED', 'unknown job token');
    if (isTerminalJobState(job.state)) throw new IrisError('IRIS_UNAUTHENTICATED', `the token of job "${job.job_id}" ended with the job`);
    return { user: job.user, role: 'job', jobId: job.job_id };
  }
}
