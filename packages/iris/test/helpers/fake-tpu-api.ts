import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake TPU API received. */
export interface RecordedRequest {
  readonly method: string;
  /** Path and query, e.g. `/v2/projects/p/locations/z/nodes?nodeId=x`. */
  readonly url: string;
  readonly authorization: string | undefined;
  readonly body: unknown;
}

/** A TPU API v2 stand-in on 127.0.0.1 holding nodes and queued resources in memory. */
export interface FakeTpuApi extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  readonly requests: RecordedRequest[];
  /** Nodes by full name (`projects/p/locations/z/nodes/<id>`), as the API returns them. */
  readonly nodes: Map<string, Record<string, unknown>>;
  /** Queued resources by full name. */
  readonly queuedResources: Map<string, Record<string, unknown>>;
  /** The next create's operation ends with this error (after leaving the node behind in CREATING). */
  failNextCreate(error: { code: number; message: string }): void;
  /** The next request gets this HTTP status and body instead. */
  respondNext(status: number, body: unknown): void;
  close(): Promise<void>;
}

/**
 * Serves the response shapes the TPU API v2 documents (and returns): `Operation` for creates and
 * deletes (not done on the first read, done on the next `GET /v2/<operation>`), `{ nodes,
 * nextPageToken }` and `{ queuedResources, nextPageToken }` pages, and Google's `{ error: { code,
 * message, status } }` bodies.
 */
export async function startFakeTpuApi(): Promise<FakeTpuApi> {
  const requests: RecordedRequest[] = [];
  const nodes = new Map<string, Record<string, unknown>>();
  const queuedResources = new Map<string, Record<string, unknown>>();
  const operations = new Map<string, { polls: number; done: () => Record<string, unknown> }>();
  let failCreate: { code: number; message: string } | undefined;
  let override: { status: number; body: unknown } | undefined;
  let seq = 0;

  const operation = (location: string, verb: string, target: string, done: () => Record<string, unknown>) => {
    const name = `${location}/operations/operation-${1_764_000_000_000 + seq++}-5f2b3c1d`;
    operations.set(name, { polls: 0, done });
    return {
      name,
      metadata: { '@type': 'type.googleapis.com/google.cloud.tpu.v2.OperationMetadata', createTime: '2026-11-24T08:00:00.000000000Z', target, verb, cancelRequested: false, apiVersion: 'v2' },
      done: false,
    };
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
      requests.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, body });
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
        res.end(JSON.stringify(json));
      };
      const notFound = (what: string) => send(404, { error: { code: 404, message: `Resource '${what}' was not found`, status: 'NOT_FOUND' } });
      if (override) {
        const o = override;
        override = undefined;
        return send(o.status, o.body);
      }
      const url = new URL(req.url ?? '/', 'http://fake');
      const m = /^\/v2\/(projects\/[^/]+\/locations\/[^/]+)\/(nodes|queuedResources|operations)(?:\/([^/]+))?$/.exec(url.pathname);
      if (!m) return notFound(url.pathname);
      const [, location, kind, id] = m as unknown as [string, string, string, string | undefined];
      if (kind === 'operations') {
        const op = operations.get(`${location}/operations/${id}`);
        if (!op) return notFound(url.pathname);
        op.polls += 1;
        return send(200, { name: `${location}/operations/${id}`, done: true, ...op.done() });
      }
      const store = kind === 'nodes' ? nodes : queuedResources;
      if (req.method === 'GET' && id === undefined) return send(200, { [kind]: [...store.values()].filter((x) => String(x['name']).startsWith(`${location}/`)) });
      if (req.method === 'POST' && id === undefined) {
        const newId = url.searchParams.get(kind === 'nodes' ? 'nodeId' : 'queuedResourceId') ?? '';
        const name = `${location}/${kind}/${newId}`;
        if (store.has(name)) return send(409, { error: { code: 409, message: `Resource '${name}' already exists`, status: 'ALREADY_EXISTS' } });
        const fail = failCreate;
        failCreate = undefined;
        if (kind === 'nodes') {
          nodes.set(name, { ...body, name, state: 'CREATING', health: 'HEALTHY_STATE_UNSPECIFIED', id: String(7_000_000 + seq), apiVersion: 'V2', networkEndpoints: [{ ipAddress: '10.128.0.5', port: 8470 }] });
        } else {
          queuedResources.set(name, { ...body, name, createTime: '2026-11-24T08:00:00Z', state: { state: 'CREATING', stateInitiator: 'USER' } });
        }
        return send(200, operation(location, 'create', name, () => {
          if (fail) return { error: { code: fail.code, message: fail.message } };
          if (kind === 'queuedResources') queuedResources.get(name)!['state'] = { state: 'WAITING_FOR_RESOURCES', stateInitiator: 'USER' };
          return { response: { '@type': `type.googleapis.com/google.cloud.tpu.v2.${kind === 'nodes' ? 'Node' : 'QueuedResource'}`, ...store.get(name) } };
        }));
      }
      const name = `${location}/${kind}/${id}`;
      const item = store.get(name);
      if (!item) return notFound(name);
      if (req.method === 'GET') return send(200, item);
      if (req.method === 'DELETE') {
        item['state'] = kind === 'nodes' ? 'DELETING' : { state: 'DELETING', stateInitiator: 'USER' };
        return send(200, operation(location, 'delete', name, () => {
          store.delete(name);
          // A forced queued-resource delete takes its node with it.
          if (kind === 'queuedResources') nodes.delete(`${location}/nodes/${id}`);
          return { response: { '@type': 'type.googleapis.com/google.protobuf.Empty' } };
        }));
      }
      return send(405, { error: { code: 405, message: 'method not allowed', status: 'UNIMPLEMENTED' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    nodes,
    queuedResources,
    failNextCreate: (error) => void (failCreate = error),
    respondNext: (status, body) => void (override = { status, body }),
    close,
    [Symbol.asyncDispose]: close,
  };
}
