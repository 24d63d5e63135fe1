import type { CallerIdentity } from '../../auth/identity.js';
import { IrisError } from '../../errors.js';
import type { ControllerServiceServer } from '../../gen/iris/v1/controller.js';

/** An RPC of `ControllerService` or `ClusterService`, by its handler name. */
export type ControllerMethod = keyof ControllerServiceServer | 'getAutoscalerStatus' | 'checkpointController' | 'queryState' | 'getProcessStatus' | 'profileProcess' | 'getProcessLogs';

/** What a worker daemon (the shared token in `api-keys` mode) may call, and nothing else. */
const WORKER_METHODS: ReadonlySet<ControllerMethod> = new Set<ControllerMethod>([
  'register',
  'pushLogs',
  'reportAttempt',
  'fetchBundle',
  'hasBundle',
  'healthCheck',
  'whoAmI',
  'getClusterStatus',
]);

/** Calls only workers (and admins) make: a user registering a worker would receive other users' tasks. */
const WORKER_ONLY: ReadonlySet<ControllerMethod> = new Set<ControllerMethod>(['register', 'pushLogs']);

/** Admin actions; each one that changes something is written to the audit log. */
const ADMIN_ONLY: ReadonlySet<ControllerMethod> = new Set<ControllerMethod>(['setUserBudget', 'createApiKey', 'listAuditLog', 'checkpointController', 'queryState', 'getProcessStatus', 'profileProcess', 'getProcessLogs']);

/** True when the caller is subject to per-user rules (a user, a job or a worker with `api-keys`). */
export function isRestricted(identity: CallerIdentity): boolean {
  return identity.user !== null || identity.role === 'worker';
}

/**
 * Refuses a method the caller's role does not allow. Unrestricted callers (no auth, shared token)
 * may call everything.
 * @throws {IrisError} IRIS_PERMISSION_DENIED
 */
export function authorizeMethod(identity: CallerIdentity, method: ControllerMethod): void {
  if (!isRestricted(identity) || identity.role === 'admin') return;
  if (identity.role === 'worker') {
    if (!WORKER_METHODS.has(method)) throw new IrisError('IRIS_PERMISSION_DENIED', `a worker may not call ${method}`);
    return;
  }
  if (ADMIN_ONLY.has(method)) throw new IrisError('IRIS_PERMISSION_DENIED', `${method} is for admins; user "${identity.user}" is not one`);
  if (WORKER_ONLY.has(method)) throw new IrisError('IRIS_PERMISSION_DENIED', `${method} is for worker daemons`);
}

/**
 * Refuses an action on another user's job unless the caller is an admin.
 * @returns true when an admin acts on someone else's job (the caller audits it)
 * @throws {IrisError} IRIS_PERMISSION_DENIED
 */
export function authorizeJobOwner(identity: CallerIdentity, owner: string, action: string, jobId: string): boolean {
  if (!isRestricted(identity)) return false;
  if (identity.user === owner) return false;
  if (identity.role === 'admin') return true;
  throw new IrisError('IRIS_PERMISSION_DENIED', `user "${identity.user ?? identity.role}" may not ${action} job "${jobId}" of user "${owner}"`);
}
