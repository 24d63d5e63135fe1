import { actorName } from '../../auth/identity.js';
import type { CallerIdentity } from '../../auth/identity.js';
import { IrisError } from '../../errors.js';
import type { LaunchJobRequest, SetUserBudgetRequest, UserBudget } from '../../gen/iris/v1/controller.js';
import { PriorityBand } from '../../gen/iris/v1/types.js';
import { authorizeJobOwner, isRestricted } from './access-policy.js';
import type { ControllerState } from '../controller-state.js';
import type { IdentityStore } from '../store/identity-store.js';
import { endpointTaskId } from '../store/queries.js';
import { parseJobName } from '../../core/job-names.js';

/**
 * `LaunchJob` for a caller: with per-user keys the job's user is the caller's (the user part of
 * the requested name is replaced, so a child can only be submitted under the caller's own jobs),
 * and PRODUCTION is for admins (or a job token whose own job already runs as PRODUCTION).
 * @throws {IrisError} IRIS_PERMISSION_DENIED, or what `launchJob` throws.
 */
export function guardedLaunch(state: ControllerState, identity: CallerIdentity, req: LaunchJobRequest): string {
  if (identity.user === null) return state.launchJob(req);
  const name = parseJobName(req.name);
  if (req.priorityBand === PriorityBand.PRIORITY_BAND_PRODUCTION && identity.role !== 'admin') {
    const ownJob = identity.role === 'job' && identity.jobId !== undefined ? state.store.job(identity.jobId) : undefined;
    if (!ownJob || state.store.request(ownJob).priorityBand !== PriorityBand.PRIORITY_BAND_PRODUCTION) {
      throw new IrisError('IRIS_PERMISSION_DENIED', `the PRODUCTION band is for admins; user "${identity.user}" may ask for INTERACTIVE or BATCH`);
    }
  }
  return state.launchJob({ ...req, name: `/${identity.user}/${name.path.join('/')}` });
}

/**
 * `TerminateJob` for a caller: a user stops only their own jobs; an admin stopping someone
 * else's is audited.
 * @throws {IrisError} IRIS_JOB_NOT_FOUND or IRIS_PERMISSION_DENIED.
 */
export function guardedTerminate(state: ControllerState, identities: IdentityStore, identity: CallerIdentity, jobId: string, includeChildren: boolean): void {
  const job = state.store.job(jobId);
  if (!job) throw new IrisError('IRIS_JOB_NOT_FOUND', `job "${jobId}" not found`);
  const asAdmin = authorizeJobOwner(identity, job.user, 'stop', jobId);
  state.terminateJob(jobId, includeChildren);
  if (asAdmin) identities.audit({ atMs: state.now(), actor: actorName(identity), action: 'job.stop', target: jobId, details: { owner: job.user, includeChildren } });
}

/** `SetUserBudget` (admins only, checked by the method policy), audited with the values before and after. */
export function guardedSetBudget(state: ControllerState, identities: IdentityStore, identity: CallerIdentity, req: SetUserBudgetRequest): UserBudget {
  const before = req.user === '' ? undefined : state.getUserBudget(req.user);
  const after = state.setUserBudget(req);
  identities.audit({
    atMs: state.now(),
    actor: actorName(identity),
    action: 'budget.set',
    target: req.user,
    details: { before: before && { budgetLimit: before.budgetLimit, maxBand: PriorityBand[before.maxBand] }, after: { budgetLimit: after.budgetLimit, maxBand: PriorityBand[after.maxBand] } },
  });
  return after;
}

function requireOwner(state: ControllerState, identity: CallerIdentity, jobId: string, what: string): void {
  if (!isRestricted(identity) || identity.role === 'admin') return;
  const job = state.store.job(jobId);
  if (job && job.user !== identity.user) throw new IrisError('IRIS_PERMISSION_DENIED', `user "${identity.user ?? identity.role}" may not change ${what} of user "${job.user}"`);
}

/** Refuses an endpoint registration for another user's task. @throws {IrisError} IRIS_PERMISSION_DENIED */
export function ownsTask(state: ControllerState, identity: CallerIdentity, taskId: string): void {
  const task = state.store.task(taskId);
  if (task) requireOwner(state, identity, task.job_id, `task "${taskId}"`);
}

/** Refuses removing another user's endpoint. @throws {IrisError} IRIS_PERMISSION_DENIED */
export function ownsEndpoint(state: ControllerState, identity: CallerIdentity, endpointId: string): void {
  const taskId = endpointTaskId(state.store, endpointId);
  const task = taskId === undefined ? undefined : state.store.task(taskId);
  if (task) requireOwner(state, identity, task.job_id, `endpoint "${endpointId}"`);
}
