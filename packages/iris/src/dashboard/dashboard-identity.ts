import type { IncomingMessage } from 'node:http';
import { actorName } from '../auth/identity.js';
import type { AuthMode, CallerIdentity } from '../auth/identity.js';
import { authorizeJobOwner } from '../controller/services/access-policy.js';
import type { ControllerState } from '../controller/controller-state.js';
import type { IdentityStore } from '../controller/store/identity-store.js';
import { IrisError } from '../errors.js';
import type { WhoAmIView } from './api-types.js';

const MAX_FORM_BYTES = 4096;

/** `GET /api/whoami`: who the page acts as, so it can hide what the role does not allow. */
export function whoAmI(identity: CallerIdentity, authMode: AuthMode): WhoAmIView {
  return { user: identity.user, role: identity.role, authMode };
}

/**
 * The dashboard's Stop button obeys the same rule as `TerminateJob`: a user stops only their own
 * jobs; an admin stopping someone else's is audited.
 * @throws {IrisError} IRIS_PERMISSION_DENIED (or IRIS_JOB_NOT_FOUND)
 */
export function guardedDashboardStop(deps: { state: ControllerState; identities?: IdentityStore | undefined }, identity: CallerIdentity, params: URLSearchParams): void {
  const jobId = params.get('id') ?? '';
  const job = deps.state.store.job(jobId);
  if (!job) throw new IrisError('IRIS_JOB_NOT_FOUND', `job "${jobId}" not found`);
  if (authorizeJobOwner(identity, job.user, 'stop', jobId)) {
    deps.identities?.audit({ atMs: deps.state.now(), actor: actorName(identity), action: 'job.stop', target: jobId, details: { owner: job.user, via: 'dashboard' } });
  }
}

/**
 * Reads the login form (`key=<API key>`, urlencoded, at most 4 KiB). A form posted from another
 * site (an `Origin` that is not this host) is refused, so no page elsewhere can log a browser in.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT
 */
export async function readLoginForm(req: IncomingMessage): Promise<string> {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== 'null' && origin !== `http://${req.headers.host ?? ''}`) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', 'the login form must be posted from this dashboard');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) throw new IrisError('IRIS_INVALID_ARGUMENT', 'the login form is too large');
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks).toString('utf8');
  let key: unknown;
  try {
    key = (req.headers['content-type'] ?? '').startsWith('application/json') ? (JSON.parse(body) as { key?: unknown } | null)?.key : new URLSearchParams(body).get('key');
  } catch (e) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', 'the login request is not valid JSON', { cause: e });
  }
  if (typeof key !== 'string' || key === '') throw new IrisError('IRIS_INVALID_ARGUMENT', 'give your API key in the "key" field');
  return key;
}
