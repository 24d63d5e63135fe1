import { randomBytes } from 'node:crypto';
import { generateApiKey } from '../../auth/api-keys.js';
import type { UserRole } from '../../auth/identity.js';
import { IrisError } from '../../errors.js';
import { PriorityBand } from '../../gen/iris/v1/types.js';
import type { ControllerDatabase } from './database.js';
import { checkNameComponent } from '../../core/job-names.js';

/** A `users` row. */
export interface UserRow {
  user: string;
  role: UserRole;
  created_at_ms: number;
  created_by: string;
}

/** An `api_keys` row (the key itself is never stored, only its SHA-256). */
export interface ApiKeyRow {
  key_id: string;
  key_hash: Buffer;
  user: string;
  name: string;
  created_at_ms: number;
  created_by: string;
  revoked_at_ms: number;
  last_used_at_ms: number;
}

/** An `audit_log` row. */
export interface AuditRow {
  id: number;
  at_ms: number;
  actor: string;
  action: string;
  target: string;
  details: string;
}

/** How often a key's `last_used_at_ms` is written at most (it is informational). */
const TOUCH_INTERVAL_MS = 60_000;
const ROLES: readonly UserRole[] = ['admin', 'user'];

/**
 * Users, their API keys and the audit log in the controller database. Every read goes to SQLite,
 * so a revoked key or a changed role applies to the very next request (there is no cache).
 */
export class IdentityStore {
  constructor(private readonly db: ControllerDatabase) {}

  user(user: string): UserRow | undefined {
    return this.db.prepare('SELECT * FROM users WHERE user = ?').get(user) as UserRow | undefined;
  }

  countUsers(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number }).n;
  }

  key(keyId: string): ApiKeyRow | undefined {
    return this.db.prepare('SELECT * FROM api_keys WHERE key_id = ?').get(keyId) as ApiKeyRow | undefined;
  }

  /** Keys by creation, optionally of one user, optionally with revoked ones. */
  keys(query: { user?: string | undefined; includeRevoked?: boolean | undefined }): ApiKeyRow[] {
    const where = [query.user ? 'user = @user' : '', query.includeRevoked ? '' : 'revoked_at_ms = 0'].filter((w) => w !== '');
    const sql = `SELECT * FROM api_keys ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at_ms, key_id`;
    return this.db.prepare(sql).all(query.user ? { user: query.user } : {}) as ApiKeyRow[];
  }

  /**
   * Creates an API key for `user`, creating the user (role `user` unless told) when new. A new user
   * gets a budget row capped at BATCH unless one exists; a new admin is uncapped. A role given for an
   * existing user changes it. Returns the key, which is not stored anywhere.
   * @throws {IrisError} IRIS_INVALID_ARGUMENT for a bad user name, role or key name.
   */
  createKey(input: { user: string; role?: UserRole | undefined; name: string; createdBy: string; nowMs: number }): { row: ApiKeyRow; key: string; createdUser: boolean; roleChanged: boolean } {
    checkNameComponent(input.user, 'user', false);
    if (input.role !== undefined && !ROLES.includes(input.role)) throw new IrisError('IRIS_INVALID_ARGUMENT', `role "${String(input.role)}" must be "admin" or "user"`);
    if (input.name.length > 200) throw new IrisError('IRIS_INVALID_ARGUMENT', 'key name must be at most 200 characters');
    return this.db.transaction(() => {
      const existing = this.user(input.user);
      let roleChanged = false;
      if (!existing) {
        const role = input.role ?? 'user';
        this.db.prepare('INSERT INTO users (user, role, created_at_ms, created_by) VALUES (?, ?, ?, ?)').run(input.user, role, input.nowMs, input.createdBy);
        const maxBand = role === 'admin' ? PriorityBand.PRIORITY_BAND_UNSPECIFIED : PriorityBand.PRIORITY_BAND_BATCH;
        this.db
          .prepare('INSERT INTO user_budgets (user, budget_limit, max_band, updated_at_ms) VALUES (?, 0, ?, ?) ON CONFLICT(user) DO NOTHING')
          .run(input.user, maxBand, input.nowMs);
      } else if (input.role !== undefined && input.role !== existing.role) {
        this.db.prepare('UPDATE users SET role = ? WHERE user = ?').run(input.role, input.user);
        roleChanged = true;
      }
      const generated = generateApiKey();
      const row: ApiKeyRow = {
        key_id: generated.keyId,
        key_hash: generated.hash,
        user: input.user,
        name: input.name,
        created_at_ms: input.nowMs,
        created_by: input.createdBy,
        revoked_at_ms: 0,
        last_used_at_ms: 0,
      };
      this.db
        .prepare('INSERT INTO api_keys (key_id, key_hash, user, name, created_at_ms, created_by) VALUES (@key_id, @key_hash, @user, @name, @created_at_ms, @created_by)')
        .run(row);
      return { row, key: generated.key, createdUser: !existing, roleChanged };
    })();
  }

  /** Marks a key revoked (idempotent); the next request with it is refused. @returns the row, or undefined for an unknown id */
  revokeKey(keyId: string, nowMs: number): ApiKeyRow | undefined {
    this.db.prepare('UPDATE api_keys SET revoked_at_ms = ? WHERE key_id = ? AND revoked_at_ms = 0').run(nowMs, keyId);
    return this.key(keyId);
  }

  /** Records a key's use, at most once a minute per key. */
  touchKey(row: ApiKeyRow, nowMs: number): void {
    if (nowMs - row.last_used_at_ms < TOUCH_INTERVAL_MS) return;
    this.db.prepare('UPDATE api_keys SET last_used_at_ms = ? WHERE key_id = ?').run(nowMs, row.key_id);
  }

  /** Appends an audit entry. */
  audit(entry: { atMs: number; actor: string; action: string; target: string; details?: Record<string, unknown> }): void {
    this.db
      .prepare('INSERT INTO audit_log (at_ms, actor, action, target, details) VALUES (?, ?, ?, ?, ?)')
      .run(entry.atMs, entry.actor, entry.action, entry.target, JSON.stringify(entry.details ?? {}));
  }

  /** Audit entries, newest first: at most `limit`, with ids below `beforeId` when set. */
  auditLog(query: { limit: number; beforeId?: number | undefined }): AuditRow[] {
    const before = query.beforeId !== undefined && query.beforeId > 0 ? query.beforeId : Number.MAX_SAFE_INTEGER;
    return this.db.prepare('SELECT * FROM audit_log WHERE id < ? ORDER BY id DESC LIMIT ?').all(before, query.limit) as AuditRow[];
  }

  /** The secret that signs job tokens, created on first use and kept in `meta`. */
  jobTokenSecret(): Buffer {
    const row = this.db.prepare("SELECT value FROM meta WHERE key = 'job_token_secret'").get() as { value: string } | undefined;
    if (row) return Buffer.from(row.value, 'hex');
    const secret = randomBytes(32);
    this.db.prepare("INSERT INTO meta (key, value) VALUES ('job_token_secret', ?)").run(secret.toString('hex'));
    return secret;
  }
}
