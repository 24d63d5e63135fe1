/** How the controller authenticates its callers. */
export type AuthMode = 'none' | 'shared-token' | 'api-keys';

/** A user's role with per-user API keys. */
export type UserRole = 'admin' | 'user';

/** What a caller may be: a user (admin or not), a worker daemon (the shared token) or a running job (its task token). */
export type CallerRole = UserRole | 'worker' | 'job';

/** The caller of one request, as the controller authenticated it. */
export interface CallerIdentity {
  /** The user; null without per-user keys (no auth, or the shared token), where callers are unrestricted. */
  readonly user: string | null;
  readonly role: CallerRole;
  /** The API key used, when one was. */
  readonly keyId?: string | undefined;
  /** The job a task token belongs to. */
  readonly jobId?: string | undefined;
}

/** The name an audit row gives a caller. */
export function actorName(identity: CallerIdentity): string {
  if (identity.user !== null) return identity.role === 'job' ? `${identity.user} (job ${identity.jobId ?? ''})` : identity.user;
  return identity.role === 'worker' ? 'worker' : 'cluster-admin';
}
