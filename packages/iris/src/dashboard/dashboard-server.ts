import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Agent, createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttp2Server } from 'node:http2';
import type { Http2Session, IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jobStateFromProto, logEntryFromProto } from '../wire/proto-views.js';
import { followLogEvents } from '../controller/services/log-follow.js';
import { IrisError } from '../errors.js';
import type { IrisErrorCode } from '../errors.js';
import type { ApiError, LogStreamEvent, PrunedJobView } from './api-types.js';
import type { CallerIdentity } from '../auth/identity.js';
import type { CallerAuth } from '../controller/services/caller-auth.js';
import type { IdentityStore } from '../controller/store/identity-store.js';
import { presentedToken, tokenCookie, tokenMatches } from './dashboard-auth.js';
import type { RequestHeaders } from './dashboard-auth.js';
import { DEFAULT_PROXY_TIMEOUT_MS, PROXY_ENDPOINT_HEADER, PROXY_PATH_PREFIX, authorizeEndpoint, forwardHttp, parseProxyPath, resolveNamedEndpoint, resolveProxyPath } from './endpoint-proxy.js';
import { GrpcEndpointProxy, PROXY_WINDOW_BYTES, failGrpcStream } from './grpc-proxy.js';
import { dispatchByPreface } from './protocol-sniff.js';
import { guardedDashboardStop, readLoginForm, whoAmI } from './dashboard-identity.js';
import { DashboardSessions, loginPage } from './dashboard-sessions.js';
import { allowedDashboardHosts, bindHostOf, hostHeaderName } from './dashboard-hosts.js';
import { autoscaler, budgets, experiment, experiments, jobDetail, listJobsPage, logPage, logQueryOf, overview, stepOutput, stepRuns, stopJob, workers } from './dashboard-api.js';
import type { DashboardApiDeps } from './dashboard-api.js';

/** Options of {@link startDashboardServer}. */
export interface DashboardServerOptions extends DashboardApiDeps {
  /** `host:port` to serve on. */
  readonly bind: string;
  /** Host names the dashboard answers to besides loopback and the bound host (a DNS name, a proxy's). @default [] */
  readonly allowedHosts?: readonly string[] | undefined;
  /** The controller's shared token; when set (and not with per-user keys), every request must present it. */
  readonly authToken?: string | undefined;
  /** The controller's authentication; in `api-keys` mode the dashboard logs users in with their API key. */
  readonly auth?: CallerAuth | undefined;
  /** Users, keys and the audit log (an admin's stop of another user's job is audited). */
  readonly identities?: IdentityStore | undefined;
  /** Built page assets (`index.html`, `app.js`, `app.css`). @default the package's `dist/dashboard` */
  readonly assetsDir?: string | undefined;
  /** True once the controller is shutting down. */
  readonly isClosing: () => boolean;
  /** `/proxy/…` HTTP requests wait this long for a backend's response headers, then for each body chunk. @default 120000 */
  readonly proxyTimeoutMs?: number | undefined;
}

/** A running dashboard server. */
export interface DashboardHandle extends AsyncDisposable {
  /** `http://<host>:<port>/` (loopback for a wildcard bind). */
  readonly url: string;
  /** Where it really listens, `host:port` (`0.0.0.0:8080` for all interfaces). */
  readonly bindAddress: string;
  readonly port: number;
  /** Stops serving and ends open log streams. Idempotent. */
  close(): Promise<void>;
}

const HTTP_STATUS: Readonly<Record<IrisErrorCode, number>> = {
  IRIS_INVALID_ARGUMENT: 400,
  IRIS_BUNDLE_UNSAFE: 400,
  IRIS_BUNDLE_TOO_LARGE: 413,
  IRIS_JOB_NOT_FOUND: 404,
  IRIS_JOB_PRUNED: 404,
  IRIS_NOT_FOUND: 404,
  IRIS_ALREADY_EXISTS: 409,
  IRIS_FAILED_PRECONDITION: 412,
  IRIS_UNAUTHENTICATED: 401,
  IRIS_PERMISSION_DENIED: 403,
  IRIS_INSUFFICIENT_RESOURCES: 507,
  IRIS_UNAVAILABLE: 503,
  IRIS_ENDPOINT_UNREACHABLE: 502,
  IRIS_DEADLINE_EXCEEDED: 504,
  IRIS_CANCELLED: 499,
  IRIS_INTERNAL: 500,
};

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.map': 'application/json',
};

const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'self'; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** Comment lines keep idle log streams open through proxies. */
const SSE_HEARTBEAT_MS = 15_000;

/** The package's built dashboard: `<package root>/dist/dashboard`, from source or from `dist`. */
export function defaultAssetsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'src')) && existsSync(join(dir, 'proto'))) return join(dir, 'dist', 'dashboard');
    if (existsSync(join(dir, 'dashboard', 'index.html'))) return join(dir, 'dashboard');
    dir = dirname(dir);
  }
  return join(dirname(fileURLToPath(import.meta.url)), 'dashboard');
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(text);
}

function sendError(res: ServerResponse, e: unknown): void {
  const err = IrisError.is(e) ? e : IrisError.from(e);
  const prunedJob = err.code === 'IRIS_JOB_PRUNED' ? (err.details['prunedJob'] as PrunedJobView | undefined) : undefined;
  const body: ApiError = { code: err.code, message: err.message, ...(prunedJob === undefined ? {} : { prunedJob }) };
  sendJson(res, HTTP_STATUS[err.code] ?? 500, body);
}

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Iris</title>
<p>The dashboard's page assets are not built. Run <code>npx nx run @marin/iris:build</code>; the JSON API under <code>/api/</code> works without them.</p>`;

/**
 * Serves the dashboard: the built page (one `index.html` for every page path, hash-routed), a JSON
 * API over the controller state the gRPC handlers use, and job logs as server-sent events fed by the
 * same follow loop as gRPC `FollowLogs`. With a token configured every request must present it
 * (bearer header or the cookie a `?token=` page visit sets); anything else is 401.
 * @throws {IrisError} IRIS_UNAVAILABLE if the address cannot be bound.
 */
export async function startDashboardServer(options: DashboardServerOptions): Promise<DashboardHandle> {
  const assetsDir = resolve(options.assetsDir ?? defaultAssetsDir());
  const streams = new Set<AbortController>();
  const sockets = new Set<Socket>();

  const sessions = options.auth?.mode === 'api-keys' ? new DashboardSessions(options.auth) : undefined;
  const unrestricted: CallerIdentity = { user: null, role: 'admin' };
  const proxyAgent = new Agent({ keepAlive: true });
  const grpcProxy = new GrpcEndpointProxy();
  const proxyTimeoutMs = options.proxyTimeoutMs ?? DEFAULT_PROXY_TIMEOUT_MS;

  /**
   * Who a `/proxy/…` request or a proxied gRPC call comes from: the dashboard's credentials (a bearer
   * header: API key, job token or shared token; or the dashboard's cookie). Without auth everyone is the
   * unrestricted local user, as for every other request of such a controller.
   */
  const proxyIdentity = (req: RequestHeaders): CallerIdentity => {
    if (sessions) return sessions.identify(req);
    if (!tokenMatches(presentedToken(req), options.authToken)) throw new IrisError('IRIS_UNAUTHENTICATED', 'missing or wrong auth token; send "authorization: Bearer <token>"');
    return unrestricted;
  };

  /** `/proxy/<endpoint name>/<path>`: the caller's identity, then the endpoint, its owner, and the forward. */
  const proxyHttp = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const identity = proxyIdentity(req);
    const found = resolveProxyPath(options.state, parseProxyPath(req.url ?? '/'));
    const target = authorizeEndpoint(options.state, identity, found.name, found.taskId, found.address);
    await forwardHttp(req, res, { target, backendPath: found.backendPath, prefix: found.prefix, timeoutMs: proxyTimeoutMs, agent: proxyAgent });
  };

  /** A gRPC call on the HTTP/2 side of the port: routed by its `x-iris-endpoint` metadata. */
  const proxyGrpc = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void => {
    stream.on('error', () => undefined); // a caller that resets its stream is not the controller's error
    try {
      if (options.isClosing()) throw new IrisError('IRIS_UNAVAILABLE', 'controller is shutting down');
      const asked = hostHeaderName(headers[':authority'] ?? headers.host);
      if (asked === null || !allowedHosts.has(asked)) throw new IrisError('IRIS_INVALID_ARGUMENT', `authority "${String(headers[':authority'] ?? '').slice(0, 100)}" is not a name this controller serves; add it with --dashboard-host`);
      if (!String(headers['content-type'] ?? '').startsWith('application/grpc')) {
        stream.respond({ ':status': 400, 'content-type': 'text/plain; charset=utf-8' });
        stream.end('HTTP/2 on this port carries gRPC calls to endpoints (x-iris-endpoint); use HTTP/1.1 for the dashboard and /proxy/\n');
        return;
      }
      const identity = proxyIdentity({ headers });
      const name = headers[PROXY_ENDPOINT_HEADER];
      grpcProxy.forward(stream, headers, resolveNamedEndpoint(options.state, identity, typeof name === 'string' ? name : undefined));
    } catch (e) {
      failGrpcStream(stream, e);
    }
  };

  const api = async (req: IncomingMessage, res: ServerResponse, path: string, params: URLSearchParams, identity: CallerIdentity): Promise<void> => {
    const get = req.method === 'GET' || req.method === 'HEAD';
    if (path === '/api/logs/stream' && get) return streamLogs(req, res, params);
    if (req.method === 'POST') {
      // Cross-site forms cannot set this header, so a page elsewhere cannot stop jobs through the cookie.
      if (req.headers['x-iris-dashboard'] !== '1') throw new IrisError('IRIS_FAILED_PRECONDITION', 'POST requests need the header "x-iris-dashboard: 1"');
      if (path === '/api/job/stop') {
        guardedDashboardStop(options, identity, params);
        return sendJson(res, 200, stopJob(options, params));
      }
      if (path === '/api/logout' && sessions) {
        res.writeHead(200, { ...SECURITY_HEADERS, 'set-cookie': sessions.logout(req), 'content-type': 'application/json; charset=utf-8' });
        res.end('{}');
        return;
      }
    } else if (get) {
      switch (path) {
        case '/api/whoami':
          return sendJson(res, 200, whoAmI(identity, options.auth?.mode ?? (options.authToken ? 'shared-token' : 'none')));
        case '/api/overview':
          return sendJson(res, 200, overview(options));
        case '/api/jobs':
          return sendJson(res, 200, listJobsPage(options, params));
        case '/api/job':
          return sendJson(res, 200, await jobDetail(options, params));
        case '/api/logs':
          return sendJson(res, 200, await logPage(options, params));
        case '/api/workers':
          return sendJson(res, 200, workers(options));
        case '/api/budgets':
          return sendJson(res, 200, budgets(options));
        case '/api/autoscaler':
          return sendJson(res, 200, autoscaler(options));
        case '/api/experiments':
          return sendJson(res, 200, await experiments(options, params));
        case '/api/experiment':
          return sendJson(res, 200, await experiment(options, params));
        case '/api/step-output':
          return sendJson(res, 200, await stepOutput(options, params));
        case '/api/step-runs':
          return sendJson(res, 200, await stepRuns(options, params));
      }
    }
    throw new IrisError('IRIS_NOT_FOUND', `no API route ${req.method} ${path}`);
  };

  const streamLogs = async (req: IncomingMessage, res: ServerResponse, params: URLSearchParams): Promise<void> => {
    const lastEventId = req.headers['last-event-id'];
    const query = logQueryOf(params, typeof lastEventId === 'string' ? lastEventId : (params.get('cursor') ?? ''));
    const gone = new AbortController();
    streams.add(gone);
    req.on('close', () => gone.abort());
    const events = followLogEvents(options.state, query, { isClosing: options.isClosing, signal: gone.signal });
    // The first event decides the status: an unknown job is a plain 404, not an empty stream.
    let next = await events.next().catch((e: unknown) => {
      streams.delete(gone);
      throw e;
    });
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), SSE_HEARTBEAT_MS);
    try {
      while (!next.done && !gone.signal.aborted) {
        const msg = next.value;
        const event: LogStreamEvent = { entries: msg.entries.map(logEntryFromProto), jobState: jobStateFromProto(msg.jobState), done: msg.done };
        // The cursor is the event id, so a reconnecting EventSource resumes after the last line it got.
        if (!res.write(`id: ${msg.cursor}\nevent: logs\ndata: ${JSON.stringify(event)}\n\n`)) {
          await new Promise<void>((r) => {
            res.once('drain', r);
            gone.signal.addEventListener('abort', () => r(), { once: true });
          });
        }
        next = await events.next();
      }
    } catch (e) {
      const err = IrisError.is(e) ? e : IrisError.from(e);
      res.write(`event: failure\ndata: ${JSON.stringify({ code: err.code, message: err.message } satisfies ApiError)}\n\n`);
    } finally {
      clearInterval(heartbeat);
      streams.delete(gone);
      await events.return(undefined);
      res.end();
    }
  };

  const asset = async (res: ServerResponse, path: string): Promise<void> => {
    const file = path === '/' || !extname(path) ? join(assetsDir, 'index.html') : resolve(assetsDir, `.${path}`);
    if (file !== join(assetsDir, 'index.html') && !file.startsWith(`${assetsDir}${sep}`)) throw new IrisError('IRIS_NOT_FOUND', `no file ${path}`);
    let body: Buffer;
    try {
      body = await readFile(file);
    } catch {
      if (file === join(assetsDir, 'index.html')) {
        res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8' });
        res.end(NOT_BUILT);
        return;
      }
      throw new IrisError('IRIS_NOT_FOUND', `no file ${path}`);
    }
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' });
    res.end(body);
  };

  /** Per-user API keys: `/login` trades a key for a session; everything else needs one. */
  const sessionRequest = async (req: IncomingMessage, res: ServerResponse, url: URL, store: DashboardSessions): Promise<void> => {
    const html = (status: number, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers });
      res.end(body);
    };
    if (url.pathname === '/login') {
      if (req.method !== 'POST') return html(200, loginPage(''));
      try {
        const { cookie } = store.login(await readLoginForm(req));
        return html(303, '', { 'set-cookie': cookie, location: '/' });
      } catch (e) {
        if (!IrisError.hasCode(e, 'IRIS_UNAUTHENTICATED') && !IrisError.hasCode(e, 'IRIS_INVALID_ARGUMENT')) throw e;
        return html(IrisError.hasCode(e, 'IRIS_UNAUTHENTICATED') ? 401 : 400, loginPage(e.message));
      }
    }
    let identity: CallerIdentity;
    try {
      identity = store.identify(req);
    } catch (e) {
      // A browser asking for a page goes to the login form; scripts and the API get the 401.
      if (!url.pathname.startsWith('/api/') && req.method === 'GET' && IrisError.hasCode(e, 'IRIS_UNAUTHENTICATED') && req.headers.authorization === undefined) {
        return html(303, '', { location: '/login' });
      }
      throw e;
    }
    if (url.pathname.startsWith('/api/')) return api(req, res, url.pathname, url.searchParams, identity);
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new IrisError('IRIS_NOT_FOUND', `no route ${req.method} ${url.pathname}`);
    return asset(res, url.pathname);
  };

  const allowedHosts = allowedDashboardHosts(bindHostOf(options.bind), options.allowedHosts);
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://dashboard');
    const handle = async () => {
      if (options.isClosing()) throw new IrisError('IRIS_UNAVAILABLE', 'controller is shutting down');
      const asked = hostHeaderName(req.headers.host);
      if (asked === null || !allowedHosts.has(asked)) {
        // DNS rebinding: a page elsewhere whose name now resolves here still sends its own name.
        throw new IrisError('IRIS_INVALID_ARGUMENT', `Host "${(req.headers.host ?? '').slice(0, 100)}" is not a name this dashboard serves; add it with --dashboard-host`);
      }
      // The raw path, before URL normalisation: `/proxy/a/b/../x` must be refused, not resolved.
      if ((req.url ?? '').startsWith(PROXY_PATH_PREFIX)) return proxyHttp(req, res);
      if (sessions) return sessionRequest(req, res, url, sessions);
      const queryToken = url.searchParams.get('token');
      if (options.authToken !== undefined && queryToken !== null && tokenMatches(queryToken, options.authToken) && !url.pathname.startsWith('/api/')) {
        // Trade the link's token for a cookie and drop it from the address bar (and from history).
        url.searchParams.delete('token');
        res.writeHead(303, { ...SECURITY_HEADERS, 'set-cookie': tokenCookie(options.authToken), location: `${url.pathname}${url.search}` });
        res.end();
        return;
      }
      if (!tokenMatches(presentedToken(req), options.authToken)) throw new IrisError('IRIS_UNAUTHENTICATED', 'missing or wrong auth token; open the link `iris cluster dashboard` prints');
      if (url.pathname.startsWith('/api/')) return api(req, res, url.pathname, url.searchParams, unrestricted);
      if (req.method !== 'GET' && req.method !== 'HEAD') throw new IrisError('IRIS_NOT_FOUND', `no route ${req.method} ${url.pathname}`);
      return asset(res, url.pathname);
    };
    handle().catch((e: unknown) => {
      if (res.headersSent) res.end();
      else sendError(res, e);
    });
  });
  const h2 = createHttp2Server({ settings: { initialWindowSize: PROXY_WINDOW_BYTES } });
  const h2Sessions = new Set<Http2Session>();
  h2.on('session', (s) => {
    h2Sessions.add(s);
    s.once('localSettings', () => s.setLocalWindowSize(PROXY_WINDOW_BYTES));
    s.on('close', () => h2Sessions.delete(s));
    s.on('error', () => undefined);
  });
  h2.on('stream', proxyGrpc);
  // One port for the dashboard, `/proxy/…` (HTTP/1.1) and proxied gRPC calls (cleartext HTTP/2).
  const front = createNetServer({ noDelay: true }, (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
    dispatchByPreface(s, server, h2);
  });
  const colon = options.bind.lastIndexOf(':');
  const host = options.bind.slice(0, colon);
  const port = await new Promise<number>((resolvePort, reject) => {
    front.once('error', (e) => reject(new IrisError('IRIS_UNAVAILABLE', `cannot bind the dashboard to "${options.bind}"`, { cause: e })));
    front.listen(Number(options.bind.slice(colon + 1)), host.replace(/^\[|\]$/g, ''), () => resolvePort((front.address() as AddressInfo).port));
  });
  const shownHost = host === '0.0.0.0' || host === '[::]' || host === '' ? '127.0.0.1' : host;
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      for (const s of streams) s.abort();
      grpcProxy.close();
      proxyAgent.destroy();
      for (const s of h2Sessions) s.close();
      await new Promise<void>((r) => {
        front.close(() => r());
        server.closeIdleConnections();
        setTimeout(() => {
          for (const s of sockets) s.destroy();
        }, 500).unref();
      });
    })();
    return closed;
  };
  return { url: `http://${shownHost}:${port}/`, bindAddress: `${host === '' ? '0.0.0.0' : host}:${port}`, port, close, [Symbol.asyncDispose]: close };
}
