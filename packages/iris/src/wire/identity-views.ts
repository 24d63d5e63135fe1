import type { ApiKeyInfo as ProtoApiKeyInfo, AuditEntry as ProtoAuditEntry } from '../gen/iris/v1/controller.js';

/** Who the controller says the caller is (`WhoAmI`). */
export interface WhoAmI {
  /** null without per-user keys (no auth, or the shared token). */
  readonly user: string | null;
  readonly role: 'admin' | 'user' | 'worker' | 'job';
  readonly authMode: 'none' | 'shared-token' | 'api-keys';
  /** The API key's id, when the caller used one. */
  readonly keyId: string | null;
}

/** An API key as listed: everything but the secret, which only `createApiKey` returns, once. */
export interface ApiKeyInfo {
  readonly keyId: string;
  readonly user: string;
  readonly role: 'admin' | 'user';
  readonly name: string;
  readonly createdAtMs: number;
  readonly createdBy: string;
  /** null while active. */
  readonly revokedAtMs: number | null;
  /** null when never used (updated at most once a minute). */
  readonly lastUsedAtMs: number | null;
}

/** One audit log entry (an admin action: users, roles, keys, budgets, stopping another user's job). */
export interface AuditEntry {
  readonly id: number;
  readonly atMs: number;
  readonly actor: string;
  /** `user.create`, `user.role`, `key.create`, `key.revoke`, `budget.set`, `job.stop`. */
  readonly action: string;
  readonly target: string;
  readonly details: Record<string, unknown>;
}

/** Wire to domain. */
export function apiKeyInfoFromProto(k: ProtoApiKeyInfo): ApiKeyInfo {
  return {
    keyId: k.keyId,
    user: k.user,
    role: k.role === 'admin' ? 'admin' : 'user',
    name: k.name,
    createdAtMs: k.createdAtMs,
    createdBy: k.createdBy,
    revokedAtMs: k.revokedAtMs === 0 ? null : k.revokedAtMs,
    lastUsedAtMs: k.lastUsedAtMs === 0 ? null : k.lastUsedAtMs,
  };
}

/** Wire to domain (details parsed from JSON). */
export function auditEntryFromProto(e: ProtoAuditEntry): AuditEntry {
  let details: Record<string, unknown> = {};
  try {
    details = JSON.parse(e.details) as Record<string, unknown>;
  } catch {
    details = { raw: e.details };
  }
  return { id: e.id, atMs: e.atMs, actor: e.actor, action: e.action, target: e.target, details };
}
