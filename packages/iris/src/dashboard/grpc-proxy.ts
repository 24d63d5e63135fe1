import { connect, constants } from 'node:http2';
import { connect as connectTcp } from 'node:net';
import type { ClientHttp2Session, IncomingHttpHeaders, OutgoingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { IRIS_ERROR_CODE_METADATA_KEY, IRIS_ERROR_GRPC_STATUS, IrisError } from '../errors.js';
import { PROXY_ENDPOINT_HEADER, endpointOrigin } from './endpoint-proxy.js';
import type { ProxyTarget } from './endpoint-proxy.js';

/** How long opening an HTTP/2 connection to a backend may take before the call fails UNAVAILABLE. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * HTTP/2 flow-control windows of both hops (per stream and per connection): with the protocol's 64 KiB a 1 MiB
 * message waits for 16 window updates on each hop. 16 MiB, as fray's actor clients ask for.
 */
export const PROXY_WINDOW_BYTES = 16 * 1024 * 1024;

/**
 * Request headers a gRPC call keeps on its way to the backend: everything but pseudo-headers (set anew),
 * the caller's credentials (the controller's token or key must never reach a task) and the routing header.
 */
const DROPPED = new Set(['authorization', 'cookie', PROXY_ENDPOINT_HEADER, 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host']);

/** A response header set that fails a gRPC call at once (a "trailers-only" response). */
export function grpcErrorHeaders(e: IrisError): OutgoingHttpHeaders {
  return {
    ':status': 200,
    'content-type': 'application/grpc',
    'grpc-status': String(IRIS_ERROR_GRPC_STATUS[e.code]),
    'grpc-message': encodeURIComponent(e.message),
    [IRIS_ERROR_CODE_METADATA_KEY]: e.code,
  };
}

/** Fails a gRPC call on `stream` with `e` unless it already has a response. */
export function failGrpcStream(stream: ServerHttp2Stream, e: unknown): void {
  if (stream.destroyed || stream.headersSent) {
    stream.close(constants.NGHTTP2_INTERNAL_ERROR);
    return;
  }
  stream.respond(grpcErrorHeaders(IrisError.is(e) ? e : IrisError.from(e)), { endStream: true });
}

/**
 * Forwards gRPC calls (HTTP/2 streams) to endpoints' backends over one reused HTTP/2 connection per
 * backend address: request and response messages stream through as they come, trailers (the call's
 * status and the backend's metadata) are relayed as sent, and a caller that cancels or passes its
 * deadline (RST_STREAM) cancels the backend's stream. The call's deadline (`grpc-timeout`) travels with
 * it, so the backend stops too; the proxy adds no deadline of its own.
 */
export class GrpcEndpointProxy {
  readonly #sessions = new Map<string, ClientHttp2Session>();
  #closed = false;

  /** Forwards the call on `stream` to `target`. Errors before the backend answers fail the call with their code. */
  forward(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, target: ProxyTarget): void {
    const origin = endpointOrigin(target.address);
    const authority = origin.host.includes(':') ? `[${origin.host}]:${origin.port}` : `${origin.host}:${origin.port}`;
    const session = this.#session(authority);
    const out: OutgoingHttpHeaders = { ':method': headers[':method'] ?? 'POST', ':path': headers[':path'] ?? '/', ':scheme': 'http', ':authority': authority };
    for (const [k, v] of Object.entries(headers)) if (v !== undefined && !k.startsWith(':') && !DROPPED.has(k)) out[k] = v;
    let up: ReturnType<ClientHttp2Session['request']>;
    try {
      up = session.request(out);
    } catch (e) {
      failGrpcStream(stream, new IrisError('IRIS_ENDPOINT_UNREACHABLE', `endpoint "${target.name}" at ${target.address} cannot be reached`, { cause: e }));
      return;
    }
    let trailers: IncomingHttpHeaders | undefined;
    let streaming = false; // the backend's headers went out and its messages are flowing
    up.on('response', (h) => {
      if (stream.destroyed) return;
      const response: OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(h)) if (v !== undefined && (k === ':status' || !k.startsWith(':'))) response[k] = v;
      if (h['grpc-status'] !== undefined) {
        // Trailers-only: the call ended with its status in the headers (an error before any message).
        stream.respond(response, { endStream: true });
        up.resume();
        return;
      }
      stream.respond(response, { waitForTrailers: true });
      streaming = true;
      up.pipe(stream);
    });
    up.on('trailers', (t) => {
      trailers = t;
    });
    stream.on('wantTrailers', () => {
      const sent: OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(trailers ?? {})) if (v !== undefined && !k.startsWith(':')) sent[k] = v;
      if (trailers === undefined) {
        sent['grpc-status'] = String(IRIS_ERROR_GRPC_STATUS.IRIS_ENDPOINT_UNREACHABLE);
        sent['grpc-message'] = encodeURIComponent(`endpoint "${target.name}" ended the call without a status`);
        sent[IRIS_ERROR_CODE_METADATA_KEY] = 'IRIS_ENDPOINT_UNREACHABLE';
      }
      stream.sendTrailers(sent);
    });
    up.on('error', (e) => {
      if (stream.headersSent && !streaming) return; // already answered (trailers-only)
      failGrpcStream(stream, new IrisError('IRIS_ENDPOINT_UNREACHABLE', `endpoint "${target.name}" at ${target.address} cannot be reached: ${e.message}`, { cause: e }));
    });
    up.on('close', () => {
      // The backend reset the stream (it died, or cancelled): the caller's call ends too.
      if (!stream.destroyed && !stream.headersSent) failGrpcStream(stream, new IrisError('IRIS_ENDPOINT_UNREACHABLE', `endpoint "${target.name}" closed the call`));
      else if (streaming && !stream.destroyed && up.rstCode !== undefined && up.rstCode !== constants.NGHTTP2_NO_ERROR) stream.close(up.rstCode);
    });
    stream.on('close', () => {
      if (!up.closed) up.close(constants.NGHTTP2_CANCEL);
    });
    stream.pipe(up);
  }

  /** Closes the connections to backends; calls in flight are cancelled. */
  close(): void {
    this.#closed = true;
    for (const s of this.#sessions.values()) s.destroy();
    this.#sessions.clear();
  }

  #session(authority: string): ClientHttp2Session {
    if (this.#closed) throw new IrisError('IRIS_UNAVAILABLE', 'controller is shutting down');
    const cached = this.#sessions.get(authority);
    if (cached !== undefined && !cached.closed && !cached.destroyed) return cached;
    const origin = endpointOrigin(`http://${authority}`);
    // No Nagle: a small gRPC frame must not wait for the previous one's ACK (a 40 ms stall per call).
    const session = connect(`http://${authority}`, {
      settings: { initialWindowSize: PROXY_WINDOW_BYTES },
      createConnection: () => connectTcp({ host: origin.host, port: origin.port, noDelay: true }),
    });
    session.once('connect', () => session.setLocalWindowSize(PROXY_WINDOW_BYTES));
    this.#sessions.set(authority, session);
    const forget = (): void => {
      if (this.#sessions.get(authority) === session) this.#sessions.delete(authority);
    };
    const timer = setTimeout(() => session.destroy(new IrisError('IRIS_ENDPOINT_UNREACHABLE', `no connection to ${authority} within ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS);
    session.once('connect', () => clearTimeout(timer));
    session.on('error', forget);
    session.on('goaway', forget);
    session.on('close', () => {
      clearTimeout(timer);
      forget();
    });
    // Idle connections do not keep the controller's process alive.
    session.unref();
    return session;
  }
}
