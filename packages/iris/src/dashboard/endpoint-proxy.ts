import { request as httpRequest } from 'node:http';
import type { Agent, IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { CallerIdentity } from '../auth/identity.js';
import { authorizeJobOwner } from '../controller/services/access-policy.js';
import type { ControllerState } from '../controller/controller-state.js';
import { parseTaskId } from '../core/job-names.js';
import { IrisError } from '../errors.js';

/** The path prefix of the endpoint proxy on the controller's HTTP port. */
export const PROXY_PATH_PREFIX = '/proxy/';

/** The request header (gRPC metadata key) that names the endpoint a gRPC call goes to. */
export const PROXY_ENDPOINT_HEADER = 'x-iris-endpoint';

/** How long the proxy waits for a backend's response headers, and then for each chunk of its body. @default 120 s */
export const DEFAULT_PROXY_TIMEOUT_MS = 120_000;

/** Endpoint names are `/<user>/<root job>/…/<name>`: at least three segments, and at most this many in a path. */
const MIN_NAME_SEGMENTS = 3;
const MAX_NAME_SEGMENTS = 32;
const MAX_NAME_CHARS = 1024;

/** A registered endpoint the caller may reach. */
export interface ProxyTarget {
  /** The endpoint's registered name, e.g. `/alice/pool/actor`. */
  readonly name: string;
  /** `host:port` (or an `http://` URL) it was registered with. */
  readonly address: string;
  /** The job whose task registered it. */
  readonly jobId: string;
}

/** A `/proxy/…` request path split into the endpoint name and the path the backend gets. */
export interface ProxyPath {
  /** The endpoint's name when given in one encoded segment (`/proxy/%2Falice%2Fpool%2Factor/…`). */
  readonly exactName?: string;
  /** The decoded segments after `/proxy/` when the name is given as plain segments (the longest registered prefix wins). */
  readonly segments: readonly string[];
  /** The raw segments after `/proxy/`, to rebuild the backend's path. */
  readonly rawSegments: readonly string[];
  /** The query string with its `?`, or empty. */
  readonly query: string;
}

function badPath(message: string): IrisError {
  return new IrisError('IRIS_INVALID_ARGUMENT', message);
}

function decodeSegment(raw: string): string {
  let s: string;
  try {
    s = decodeURIComponent(raw);
  } catch (e) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', `proxy path segment "${raw.slice(0, 100)}" is not valid percent-encoding`, { cause: e });
  }
  // Control characters would reach the backend's request line or a log; nothing legitimate has them.
  if (/[\u0000-\u001f\u007f]/.test(s)) throw badPath(`proxy path segment "${raw.slice(0, 100)}" holds control characters`);
  return s;
}

/**
 * Splits the raw (not normalised) path of a `/proxy/<endpoint name>/<rest>` request. The name is either
 * one segment holding the whole name percent-encoded (`%2Falice%2Fpool%2Factor`) or plain segments
 * (`alice/pool/actor`), resolved later as the longest registered name. Dot segments (`.`, `..`, also
 * encoded) anywhere, an encoded `/` or `\` outside the name segment and empty segments in the name are
 * refused: the backend must get exactly the path under its endpoint, never one above it.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT
 */
export function parseProxyPath(rawUrl: string): ProxyPath {
  const q = rawUrl.indexOf('?');
  const path = q === -1 ? rawUrl : rawUrl.slice(0, q);
  const query = q === -1 ? '' : rawUrl.slice(q);
  if (!path.startsWith(PROXY_PATH_PREFIX)) throw badPath(`"${path.slice(0, 100)}" is not a proxy path`);
  if (path.length > 8192) throw badPath('the proxy path is longer than 8192 characters');
  const rawSegments = path.slice(PROXY_PATH_PREFIX.length).split('/');
  const decoded = rawSegments.map(decodeSegment);
  for (const [i, s] of decoded.entries()) {
    if (s === '.' || s === '..') throw badPath('a proxy path must not hold "." or ".." segments');
    if (i > 0 && /[\\/]/.test(s)) throw badPath('only the endpoint-name segment of a proxy path may hold an encoded "/"');
    if (s.includes('\\')) throw badPath('a proxy path must not hold "\\"');
  }
  const first = decoded[0] ?? '';
  if (first === '') throw badPath('name the endpoint: /proxy/<endpoint name>/<path>');
  if (first.includes('/')) {
    if (!first.startsWith('/') || first.length > MAX_NAME_CHARS || first.split('/').slice(1).some((s) => s === '' || s === '.' || s === '..')) {
      throw badPath(`endpoint name "${first.slice(0, 100)}" is not "/<user>/<job>/…/<name>"`);
    }
    return { exactName: first, segments: decoded, rawSegments, query };
  }
  return { segments: decoded, rawSegments, query };
}

/** The newest registration of endpoint `name` (the current attempt's), if any. */
function newestEndpoint(state: ControllerState, name: string): { address: string; taskId: string } | undefined {
  const found = state.endpoints.list({ exact: name, prefix: '' });
  return found.reduce<(typeof found)[number] | undefined>((a, e) => (a === undefined || e.attemptId > a.attemptId ? e : a), undefined);
}

/**
 * Finds the endpoint a `/proxy/…` path names and the path its backend gets: the encoded name as is, or
 * the longest run of leading segments that is a registered name.
 * @throws {IrisError} IRIS_NOT_FOUND when no endpoint of that name is registered (never was, or its task ended)
 */
export function resolveProxyPath(state: ControllerState, p: ProxyPath): { name: string; address: string; taskId: string; backendPath: string; prefix: string } {
  const rest = (n: number): string => `/${p.rawSegments.slice(n).join('/')}${p.query}`;
  const prefixOf = (n: number): string => `${PROXY_PATH_PREFIX}${p.rawSegments.slice(0, n).join('/')}`;
  if (p.exactName !== undefined) {
    const e = newestEndpoint(state, p.exactName);
    if (e === undefined) throw new IrisError('IRIS_NOT_FOUND', `no endpoint "${p.exactName}" is registered (or its task has ended)`);
    return { name: p.exactName, ...e, backendPath: rest(1), prefix: prefixOf(1) };
  }
  for (let n = Math.min(p.segments.length, MAX_NAME_SEGMENTS); n >= MIN_NAME_SEGMENTS; n--) {
    const parts = p.segments.slice(0, n);
    if (parts.some((s) => s === '')) continue;
    const name = `/${parts.join('/')}`;
    const e = newestEndpoint(state, name);
    if (e !== undefined) return { name, ...e, backendPath: rest(n), prefix: prefixOf(n) };
  }
  const shown = `/${p.segments.filter((s) => s !== '').join('/')}`.slice(0, 200);
  throw new IrisError('IRIS_NOT_FOUND', `no registered endpoint is a prefix of "${shown}" (or its task has ended)`);
}

/**
 * Resolves endpoint `name` for a caller: it must be registered and belong to a job of the caller's
 * user, unless the caller is an admin or the cluster has no per-user identities (no auth, shared token).
 * @throws {IrisError} IRIS_NOT_FOUND (unknown or ended), IRIS_PERMISSION_DENIED (another user's job)
 */
export function authorizeEndpoint(state: ControllerState, identity: CallerIdentity, name: string, taskId: string, address: string): ProxyTarget {
  const { jobId } = parseTaskId(taskId);
  const job = state.store.job(jobId);
  if (!job) throw new IrisError('IRIS_NOT_FOUND', `endpoint "${name}" belongs to no job (its job was pruned)`);
  authorizeJobOwner(identity, job.user, 'reach the endpoints of', jobId);
  return { name, address, jobId };
}

/**
 * Finds a gRPC call's endpoint by its `x-iris-endpoint` name.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT (malformed name), IRIS_NOT_FOUND, IRIS_PERMISSION_DENIED
 */
export function resolveNamedEndpoint(state: ControllerState, identity: CallerIdentity, name: string | undefined): ProxyTarget {
  if (name === undefined || name === '') throw new IrisError('IRIS_INVALID_ARGUMENT', `name the endpoint in the "${PROXY_ENDPOINT_HEADER}" header (metadata)`);
  if (!name.startsWith('/') || name.length > MAX_NAME_CHARS || /[\u0000-\u001f\u007f\\]/.test(name) || name.split('/').slice(1).some((s) => s === '' || s === '.' || s === '..')) {
    throw new IrisError('IRIS_INVALID_ARGUMENT', `endpoint name "${name.slice(0, 100)}" is not "/<user>/<job>/…/<name>"`);
  }
  const e = newestEndpoint(state, name);
  if (e === undefined) throw new IrisError('IRIS_NOT_FOUND', `no endpoint "${name}" is registered (or its task has ended)`);
  return authorizeEndpoint(state, identity, name, e.taskId, e.address);
}

/** `host` and `port` of an endpoint address (`host:port`, `[v6]:port` or `http://host:port`). */
export function endpointOrigin(address: string): { host: string; port: number } {
  let url: URL;
  try {
    url = new URL(address.includes('://') ? address : `http://${address}`);
  } catch (e) {
    throw new IrisError('IRIS_ENDPOINT_UNREACHABLE', `endpoint address "${address}" is not host:port`, { cause: e });
  }
  if (url.protocol !== 'http:') throw new IrisError('IRIS_ENDPOINT_UNREACHABLE', `endpoint address "${address}": the proxy speaks plain http only`);
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 80) };
}

/**
 * Headers that end at each hop (RFC 9110 §7.6.1) plus the caller's credentials: the controller's token,
 * key or session must never reach a backend (a task of any user could read it there).
 */
const DROPPED_REQUEST_HEADERS = new Set(['host', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-authenticate', 'authorization', 'cookie', PROXY_ENDPOINT_HEADER]);
/** A backend must not set cookies on the controller's origin, or name the hop's framing. */
const DROPPED_RESPONSE_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'trailer', 'upgrade', 'proxy-authenticate', 'set-cookie']);

function forwardable(headers: IncomingHttpHeaders, dropped: ReadonlySet<string>): OutgoingHttpHeaders {
  // Headers the sender names in `Connection` are hop-by-hop too.
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter((h) => h !== ''),
  );
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !k.startsWith(':') && !dropped.has(k) && !named.has(k)) out[k] = v;
  return out;
}

/** Keeps a backend's redirect inside the proxy: `/x` and `http://<backend>/x` become `<prefix>/x`. */
export function rewriteLocation(location: string, backend: { host: string; port: number }, prefix: string): string {
  if (location.startsWith('/') && !location.startsWith('//')) return `${prefix}${location}`;
  try {
    const url = new URL(location);
    const sameHost = url.hostname.replace(/^\[|\]$/g, '') === backend.host && Number(url.port || 80) === backend.port;
    if (url.protocol === 'http:' && sameHost) return `${prefix}${url.pathname}${url.search}${url.hash}`;
  } catch {
    // relative or malformed: the browser resolves it inside the proxy already
  }
  return location;
}

/**
 * Proxied pages run on the controller's origin, where the dashboard's session cookie lives: a sandboxed
 * response gets an opaque origin, so a page a task serves cannot call the dashboard's API as the viewer.
 */
const PROXIED_SECURITY_HEADERS = { 'content-security-policy': 'sandbox allow-scripts allow-forms allow-popups allow-downloads', 'x-content-type-options': 'nosniff' };

/** Options of {@link forwardHttp}. */
export interface ForwardHttpOptions {
  readonly target: ProxyTarget;
  /** The path and query the backend gets. */
  readonly backendPath: string;
  /** The public prefix (`/proxy/<name>`), sent as `x-forwarded-prefix` and used to rewrite redirects. */
  readonly prefix: string;
  /** Wait at most this long for the response headers, then for each chunk of the body. */
  readonly timeoutMs: number;
  /** Keep-alive connections to backends. */
  readonly agent: Agent;
}

/**
 * Forwards one HTTP request to an endpoint's backend and streams the answer back, bodies in both
 * directions as they come. Hop-by-hop headers and the caller's credentials are dropped; a backend's
 * 401 becomes 502 (the backend refused the controller, not the caller). Fails before any byte of a
 * response is sent with IRIS_ENDPOINT_UNREACHABLE (502) when the backend cannot be reached and
 * IRIS_DEADLINE_EXCEEDED (504) when it does not answer in time; a body cut short is ended at once.
 * A caller that goes away cancels the backend request.
 */
export function forwardHttp(req: IncomingMessage, res: ServerResponse, o: ForwardHttpOptions): Promise<void> {
  const origin = endpointOrigin(o.target.address);
  const headers = forwardable(req.headers, DROPPED_REQUEST_HEADERS);
  headers['x-forwarded-host'] = req.headers['x-forwarded-host'] ?? req.headers.host ?? '';
  headers['x-forwarded-proto'] = req.headers['x-forwarded-proto'] ?? 'http';
  headers['x-forwarded-prefix'] = o.prefix;
  headers['host'] = origin.host.includes(':') ? `[${origin.host}]:${origin.port}` : `${origin.host}:${origin.port}`;
  return new Promise<void>((resolve, reject) => {
    let answered = false;
    const up = httpRequest({ host: origin.host, port: origin.port, method: req.method, path: o.backendPath, headers, agent: o.agent });
    const headerTimer = setTimeout(() => {
      up.destroy(new IrisError('IRIS_DEADLINE_EXCEEDED', `endpoint "${o.target.name}" did not answer within ${o.timeoutMs} ms`));
    }, o.timeoutMs);
    const fail = (e: unknown): void => {
      clearTimeout(headerTimer);
      if (answered) {
        res.destroy();
        resolve();
        return;
      }
      answered = true;
      reject(IrisError.is(e) ? e : new IrisError('IRIS_ENDPOINT_UNREACHABLE', `endpoint "${o.target.name}" at ${o.target.address} cannot be reached: ${(e as Error).message}`, { cause: e }));
    };
    up.on('error', fail);
    up.on('response', (upRes) => {
      clearTimeout(headerTimer);
      if (upRes.statusCode === 401) {
        upRes.resume();
        fail(new IrisError('IRIS_ENDPOINT_UNREACHABLE', `endpoint "${o.target.name}" refused the controller (401)`));
        return;
      }
      answered = true;
      const out = forwardable(upRes.headers, DROPPED_RESPONSE_HEADERS);
      for (const k of ['location', 'content-location'] as const) {
        const v = upRes.headers[k];
        if (typeof v === 'string') out[k] = rewriteLocation(v, origin, o.prefix);
      }
      res.writeHead(upRes.statusCode ?? 502, { ...out, ...PROXIED_SECURITY_HEADERS });
      upRes.setTimeout(o.timeoutMs, () => upRes.destroy(new IrisError('IRIS_DEADLINE_EXCEEDED', `endpoint "${o.target.name}" sent nothing for ${o.timeoutMs} ms`)));
      upRes.on('error', () => res.destroy());
      upRes.on('end', () => resolve());
      upRes.pipe(res);
    });
    // The caller went away (or the response finished): stop the backend request.
    res.on('close', () => {
      clearTimeout(headerTimer);
      if (!res.writableFinished) up.destroy();
      resolve();
    });
    req.pipe(up);
  });
}
