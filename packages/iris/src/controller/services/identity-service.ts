import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import { actorName } from '../../auth/identity.js';
import type { CallerIdentity, UserRole } from '../../auth/identity.js';
import { IrisError } from '../../errors.js';
import type { ApiKeyInfo, AuditEntry, ControllerServiceServer } from '../../gen/iris/v1/controller.js';
import type { ControllerMethod } from './access-policy.js';
import type { CallerAuth } from './caller-auth.js';
import type { ApiKeyRow, IdentityStore } from '../store/identity-store.js';

type IdentityMethod = 'whoAmI' | 'createApiKey' | 'listApiKeys' | 'revokeApiKey' | 'listAuditLog';
type Req<M extends IdentityMethod> = Parameters<ControllerServiceServer[M]>[0]['request'];
type Res<M extends IdentityMethod> = Parameters<Parameters<ControllerServiceServer[M]>[1]>[1];

/** Wraps a handler body into a gRPC handler with authentication and the method policy. */
export type UnaryFactory = <TReq, TRes>(method: ControllerMethod, fn: (req: TReq, identity: CallerIdentity) => TRes) => (call: ServerUnaryCall<TReq, TRes>, callback: sendUnaryData<TRes>) => void;

function keyInfo(row: ApiKeyRow, identities: IdentityStore): ApiKeyInfo {
  return {
    keyId: row.key_id,
    user: row.user,
    role: identities.user(row.user)?.role ?? '',
    name: row.name,
    createdAtMs: row.created_at_ms,
    createdBy: row.created_by,
    revokedAtMs: row.revoked_at_ms,
    lastUsedAtMs: row.last_used_at_ms,
  };
}

function parseRole(role: string): UserRole | undefined {
  if (role === '') return undefined;
  if (role !== 'admin' && role !== 'user') throw new IrisError('IRIS_INVALID_ARGUMENT', `role "${role}" must be "admin" or "user"`);
  return role;
}

/**
 * The identity RPCs: `WhoAmI`, `CreateApiKey` (admins; the key is in the response only),
 * `ListApiKeys` (admins: anyone's; users: their own), `RevokeApiKey` (admins: any; users: their
 * own) and `ListAuditLog` (admins). Key creation, role changes and revocations are audited.
 */
export function identityHandlers(
  unary: UnaryFactory,
  deps: { auth: CallerAuth; identities: IdentityStore; now: () => number },
): Pick<ControllerServiceServer, IdentityMethod> {
  const { identities } = deps;
  return {
    whoAmI: unary<Req<'whoAmI'>, Res<'whoAmI'>>('whoAmI', (_req, identity) => ({
      user: identity.user ?? '',
      role: identity.role,
      authMode: deps.auth.mode,
      keyId: identity.keyId ?? '',
    })),
    createApiKey: unary<Req<'createApiKey'>, Res<'createApiKey'>>('createApiKey', (req, identity) => {
      const actor = actorName(identity);
      const created = identities.createKey({ user: req.user, role: parseRole(req.role), name: req.name, createdBy: actor, nowMs: deps.now() });
      const atMs = deps.now();
      if (created.createdUser) identities.audit({ atMs, actor, action: 'user.create', target: req.user, details: { role: identities.user(req.user)?.role } });
      if (created.roleChanged) identities.audit({ atMs, actor, action: 'user.role', target: req.user, details: { role: req.role } });
      identities.audit({ atMs, actor, action: 'key.create', target: created.row.key_id, details: { user: req.user, name: req.name } });
      return { info: keyInfo(created.row, identities), key: created.key };
    }),
    listApiKeys: unary<Req<'listApiKeys'>, Res<'listApiKeys'>>('listApiKeys', (req, identity) => {
      let user = req.user === '' ? undefined : req.user;
      if (identity.user !== null && identity.role !== 'admin') {
        if (user !== undefined && user !== identity.user) throw new IrisError('IRIS_PERMISSION_DENIED', `user "${identity.user}" may list only their own keys`);
        user = identity.user;
      }
      return { keys: identities.keys({ user, includeRevoked: req.includeRevoked }).map((r) => keyInfo(r, identities)) };
    }),
    revokeApiKey: unary<Req<'revokeApiKey'>, Res<'revokeApiKey'>>('revokeApiKey', (req, identity) => {
      const row = identities.key(req.keyId);
      if (!row) throw new IrisError('IRIS_NOT_FOUND', `API key "${req.keyId}" not found`);
      if (identity.user !== null && identity.role !== 'admin' && row.user !== identity.user) {
        throw new IrisError('IRIS_PERMISSION_DENIED', `user "${identity.user}" may revoke only their own keys`);
      }
      const revoked = identities.revokeKey(req.keyId, deps.now())!;
      identities.audit({ atMs: deps.now(), actor: actorName(identity), action: 'key.revoke', target: row.key_id, details: { user: row.user } });
      return { info: keyInfo(revoked, identities) };
    }),
    listAuditLog: unary<Req<'listAuditLog'>, Res<'listAuditLog'>>('listAuditLog', (req) => {
      if (req.limit < 0 || req.limit > 1000) throw new IrisError('IRIS_INVALID_ARGUMENT', 'limit must be between 0 and 1000');
      const entries: AuditEntry[] = identities
        .auditLog({ limit: req.limit === 0 ? 100 : req.limit, beforeId: req.beforeId })
        .map((r) => ({ id: r.id, atMs: r.at_ms, actor: r.actor, action: r.action, target: r.target, details: r.details }));
      return { entries };
    }),
  };
}
