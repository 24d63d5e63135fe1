import { bindHostOf, isLoopbackHost } from '../dashboard/dashboard-hosts.js';
import { IrisError } from '../errors.js';

/**
 * A controller or dashboard reachable from other machines without a token would let anyone there
 * run jobs as any user (and read every log): refused unless `insecure` says it is meant.
 * @throws {IrisError} IRIS_FAILED_PRECONDITION naming the address and the ways out
 */
export function checkExposure(o: { bind: string; dashboardBind: string | null; authToken: string | undefined; insecure: boolean; warn: (m: string) => void }): void {
  if (o.authToken) return;
  const exposed = [o.bind, o.dashboardBind].filter((b): b is string => b !== null && !isLoopbackHost(bindHostOf(b)));
  if (exposed.length === 0) return;
  if (!o.insecure) {
    throw new IrisError(
      'IRIS_FAILED_PRECONDITION',
      `refusing to serve on ${exposed.join(' and ')} without an auth token: anyone who can reach it could run jobs as any user; set IRIS_AUTH_TOKEN, bind 127.0.0.1, or pass --insecure`,
    );
  }
  o.warn(`serving on ${exposed.join(' and ')} without an auth token (--insecure): anyone who can reach it can run jobs as any user`);
}
