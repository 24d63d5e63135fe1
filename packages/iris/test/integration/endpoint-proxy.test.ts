import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client, Metadata, credentials, status } from '@grpc/grpc-js';
import type { ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '@marin/rigging';
import { createIrisClient } from '../../src/client/iris-client.js';
import type { IrisClient } from '../../src/client/iris-client.js';
import { startLocalCluster } from '../../src/cluster/local-cluster.js';
import type { LocalClusterHandle } from '../../src/cluster/local-cluster.js';

const WORKER_TOKEN = 'endpoint-proxy-worker-secret';
const BACKEND = fileURLToPath(new URL('../fixtures/endpoint-proxy/backend.mjs', import.meta.url));
const PROXY_TIMEOUT_MS = 1500;

let cluster: LocalClusterHandle;
let admin: IrisClient;
let alice: IrisClient;
let adminKey: string;
let aliceKey: string;
let bobKey: string;
let jobId: string;
let base: string; // http://127.0.0.1:<dashboard port>
let grpcTarget: string; // 127.0.0.1:<dashboard port>
let web: string; // endpoint names
let rpc: string;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** A raw HTTP/1.1 request: the path goes out exactly as written (fetch would normalise `..`). */
function raw(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

function grpcCall(path: string, body: Buffer, md: Record<string, string>, timeoutMs = 10_000): Promise<Buffer> {
  const client = new Client(grpcTarget, credentials.createInsecure());
  const metadata = new Metadata();
  for (const [k, v] of Object.entries(md)) metadata.set(k, v);
  return new Promise<Buffer>((resolve, reject) => {
    client.makeUnaryRequest(path, (b: Buffer) => b, (b: Buffer) => b, body, metadata, { deadline: new Date(Date.now() + timeoutMs) }, (err, value) => {
      client.close();
      if (err) reject(err);
      else resolve(value ?? Buffer.alloc(0));
    });
  });
}

function irisCode(e: unknown): string | undefined {
  const v = (e as ServiceError).metadata?.get('iris-error-code')[0];
  return typeof v === 'string' ? v : undefined;
}

beforeAll(async () => {
  cluster = await startLocalCluster({ workers: 1, authMode: 'api-keys', authToken: WORKER_TOKEN, bootstrapAdmin: 'root', reconcileIntervalMs: 100, cpuMillicores: 4000, endpointProxyTimeoutMs: PROXY_TIMEOUT_MS });
  adminKey = readFileSync(cluster.controller.bootstrapKeyFile!, 'utf8').trim();
  admin = createIrisClient({ address: cluster.address, token: adminKey });
  aliceKey = (await admin.createApiKey({ user: 'alice' })).key;
  bobKey = (await admin.createApiKey({ user: 'bob' })).key;
  alice = createIrisClient({ address: cluster.address, token: aliceKey });
  base = cluster.dashboardUrl!.replace(/\/$/, '');
  grpcTarget = new URL(base).host;

  jobId = await alice.launchJob({ name: 'served', command: ['node', BACKEND], maxRetriesFailure: 0 });
  let ports: { http: number; grpc: number } | undefined;
  await pollUntil(
    async () => {
      const { entries } = await alice.fetchLogs({ jobId });
      const line = entries.find((e) => e.data.startsWith('PROXY_BACKEND '));
      if (line) ports = JSON.parse(line.data.slice('PROXY_BACKEND '.length)) as { http: number; grpc: number };
      return ports !== undefined;
    },
    { timeoutMs: 60_000, interval: 100 },
  );
  const task = await alice.getTask(`${jobId}/0`);
  web = `${jobId}/web`;
  rpc = `${jobId}/rpc`;
  const attempt = { taskId: task.taskId, attemptId: task.currentAttemptId };
  await alice.registerEndpoint({ name: web, address: `127.0.0.1:${ports!.http}`, ...attempt });
  await alice.registerEndpoint({ name: rpc, address: `127.0.0.1:${ports!.grpc}`, ...attempt });
  await alice.registerEndpoint({ name: `${jobId}/closed`, address: `127.0.0.1:${await freePort()}`, ...attempt });
}, 120_000);

afterAll(async () => {
  await Promise.all([admin?.close(), alice?.close()]);
  await cluster?.close();
});

describe('endpoint proxy: HTTP', () => {
  it('forwards a request to the task and its answer back, without the caller\u2019s credentials or the backend\u2019s cookies', async () => {
    const res = await fetch(`${base}/proxy${web}/echo?x=1`, { headers: { ...bearer(aliceKey), cookie: 'iris_session=abc', 'x-custom': 'kept' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-backend')).toBe('yes');
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.headers.get('content-security-policy')).toContain('sandbox');
    const seen = (await res.json()) as { method: string; url: string; headers: Record<string, string> };
    expect(seen.method).toBe('GET');
    expect(seen.url).toBe('/echo?x=1');
    expect(seen.headers['x-custom']).toBe('kept');
    expect(seen.headers['authorization']).toBeUndefined();
    expect(seen.headers['cookie']).toBeUndefined();
    expect(seen.headers['x-forwarded-prefix']).toBe(`/proxy${web}`);
  });

  it('accepts the endpoint name as one encoded segment', async () => {
    const res = await fetch(`${base}/proxy/${encodeURIComponent(web)}/echo`, { headers: bearer(aliceKey) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { url: string }).url).toBe('/echo');
  });

  it('streams request and response bodies both ways', async () => {
    const body = randomBytes(5 * 1024 * 1024);
    const res = await fetch(`${base}/proxy${web}/upload`, { method: 'POST', body, headers: bearer(aliceKey) });
    expect(res.status).toBe(200);
    const seen = (await res.json()) as { method: string; bodyBytes: number; bodySha: string };
    expect(seen).toMatchObject({ method: 'POST', bodyBytes: body.length, bodySha: createHash('sha256').update(body).digest('hex') });
    const stream = await fetch(`${base}/proxy${web}/stream`, { headers: bearer(aliceKey) });
    expect(await stream.text()).toBe([0, 1, 2, 3, 4].map((i) => `chunk ${i}\n`).join(''));
  });

  it('keeps a backend\u2019s redirect inside the proxy and turns its 401 into 502', async () => {
    const res = await fetch(`${base}/proxy${web}/redirect`, { headers: bearer(aliceKey), redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`/proxy${web}/echo?from=redirect`);
    const refused = await fetch(`${base}/proxy${web}/refuse`, { headers: bearer(aliceKey) });
    expect(refused.status).toBe(502);
    expect(await refused.json()).toMatchObject({ code: 'IRIS_ENDPOINT_UNREACHABLE' });
  });

  it('lets only the job\u2019s owner and admins through: another user is 403, no credential 401', async () => {
    const bob = await fetch(`${base}/proxy${web}/echo`, { headers: bearer(bobKey) });
    expect(bob.status).toBe(403);
    expect(await bob.json()).toMatchObject({ code: 'IRIS_PERMISSION_DENIED' });
    expect((await fetch(`${base}/proxy${web}/echo`, { headers: bearer(adminKey) })).status).toBe(200);
    const none = await fetch(`${base}/proxy${web}/echo`);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ code: 'IRIS_UNAUTHENTICATED' });
    const worker = await fetch(`${base}/proxy${web}/echo`, { headers: bearer(WORKER_TOKEN) });
    expect(worker.status).toBe(401);
  });

  it('takes a task\u2019s own job token as its user: alice\u2019s job gets through, bob\u2019s is refused', async () => {
    await using bob = createIrisClient({ address: cluster.address, token: bobKey });
    // The task calls the proxy with the IRIS_AUTH_TOKEN its worker gave it and prints the status.
    const probe = ['node', '-e', "fetch(process.env.PROBE_URL, { headers: { authorization: 'Bearer ' + process.env.IRIS_AUTH_TOKEN } }).then((r) => console.log('PROBE ' + r.status))"];
    const statusOf = async (c: IrisClient): Promise<string | undefined> => {
      const id = await c.launchJob({ name: `probe-${Math.random().toString(16).slice(2, 8)}`, command: probe, env: { PROBE_URL: `${base}/proxy${web}/echo` } });
      await c.waitForJob(id, { timeoutMs: 60_000 });
      return (await c.fetchLogs({ jobId: id })).entries.find((e) => e.data.startsWith('PROBE '))?.data;
    };
    expect(await statusOf(alice)).toBe('PROBE 200');
    expect(await statusOf(bob)).toBe('PROBE 403');
  });

  it('answers 504 for a backend that never answers and 502 for one nobody listens on, without hanging', async () => {
    const started = Date.now();
    const hung = await fetch(`${base}/proxy${web}/hang`, { headers: bearer(aliceKey) });
    expect(hung.status).toBe(504);
    expect(await hung.json()).toMatchObject({ code: 'IRIS_DEADLINE_EXCEEDED' });
    expect(Date.now() - started).toBeLessThan(PROXY_TIMEOUT_MS + 20_000);
    const closed = await fetch(`${base}/proxy${jobId}/closed/x`, { headers: bearer(aliceKey) });
    expect(closed.status).toBe(502);
    expect(await closed.json()).toMatchObject({ code: 'IRIS_ENDPOINT_UNREACHABLE' });
  });

  it('refuses malformed names and path traversal with 400, and an unknown endpoint with 404', async () => {
    const auth = bearer(aliceKey);
    for (const path of [
      '/proxy/',
      `/proxy${web}/../../../api/jobs`,
      `/proxy${web}/%2e%2e/x`,
      `/proxy${web}/a%2Fb`,
      '/proxy/%ZZ/x',
      `/proxy/${encodeURIComponent('/alice/../x')}/y`,
      `/proxy${web}/a%00b`,
      `/proxy${web}/a%5Cb`,
    ]) {
      const res = await raw(path, auth);
      expect(res.status, path).toBe(400);
      expect(JSON.parse(res.body), path).toMatchObject({ code: 'IRIS_INVALID_ARGUMENT' });
    }
    const unknown = await raw('/proxy/alice/nothing/here/x', auth);
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toMatchObject({ code: 'IRIS_NOT_FOUND' });
  });
});

describe('endpoint proxy: gRPC over the same port', () => {
  it('calls a task\u2019s gRPC service named by x-iris-endpoint, bytes and status intact', async () => {
    const body = randomBytes(1024 * 1024);
    const echoed = await grpcCall('/test.Proxy/Echo', body, { 'x-iris-endpoint': rpc, ...bearer(aliceKey) });
    expect(echoed.equals(body)).toBe(true);
    const meta = JSON.parse((await grpcCall('/test.Proxy/Meta', Buffer.alloc(0), { 'x-iris-endpoint': rpc, 'x-trace': 't1', ...bearer(aliceKey) })).toString()) as Record<string, string>;
    expect(meta['x-trace']).toBe('t1');
    expect(meta['authorization']).toBeUndefined();
    expect(meta['x-iris-endpoint']).toBeUndefined();
    const failed = await grpcCall('/test.Proxy/Fail', Buffer.alloc(0), { 'x-iris-endpoint': rpc, ...bearer(aliceKey) }).catch((e: unknown) => e as ServiceError);
    expect(failed).toMatchObject({ code: status.FAILED_PRECONDITION, details: 'backend says no' });
    expect((failed as ServiceError).metadata.get('backend-code')).toEqual(['E42']);
  });

  it('refuses another user (PERMISSION_DENIED), a missing or malformed name (INVALID_ARGUMENT) and an unknown one (NOT_FOUND)', async () => {
    const cases: [Record<string, string>, number, string][] = [
      [{ 'x-iris-endpoint': rpc, ...bearer(bobKey) }, status.PERMISSION_DENIED, 'IRIS_PERMISSION_DENIED'],
      [{ 'x-iris-endpoint': rpc }, status.UNAUTHENTICATED, 'IRIS_UNAUTHENTICATED'],
      [bearer(aliceKey), status.INVALID_ARGUMENT, 'IRIS_INVALID_ARGUMENT'],
      [{ 'x-iris-endpoint': `${jobId}/../rpc`, ...bearer(aliceKey) }, status.INVALID_ARGUMENT, 'IRIS_INVALID_ARGUMENT'],
      [{ 'x-iris-endpoint': '/alice/nothing/here', ...bearer(aliceKey) }, status.NOT_FOUND, 'IRIS_NOT_FOUND'],
      [{ 'x-iris-endpoint': `${jobId}/closed`, ...bearer(aliceKey) }, status.UNAVAILABLE, 'IRIS_ENDPOINT_UNREACHABLE'],
    ];
    for (const [md, code, irisErrorCode] of cases) {
      const e = await grpcCall('/test.Proxy/Echo', Buffer.from('x'), md).catch((err: unknown) => err);
      expect(e, JSON.stringify(md)).toMatchObject({ code });
      expect(irisCode(e), JSON.stringify(md)).toBe(irisErrorCode);
    }
  });

  it('ends a call to a backend that hangs at the caller\u2019s deadline', async () => {
    const started = Date.now();
    const e = await grpcCall('/test.Proxy/Hang', Buffer.alloc(0), { 'x-iris-endpoint': rpc, ...bearer(aliceKey) }, 1000).catch((err: unknown) => err);
    expect(e).toMatchObject({ code: status.DEADLINE_EXCEEDED });
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});

describe('endpoint proxy: a backend that dies', () => {
  it('fails the call in flight at once, then answers 404 (HTTP) and NOT_FOUND (gRPC): the endpoints ended with the task', async () => {
    const started = Date.now();
    const e = await grpcCall('/test.Proxy/Die', Buffer.alloc(0), { 'x-iris-endpoint': rpc, ...bearer(aliceKey) }, 60_000).catch((err: unknown) => err);
    expect(e).toMatchObject({ code: status.UNAVAILABLE });
    expect(Date.now() - started).toBeLessThan(30_000); // well before the call's 60 s deadline
    expect((await alice.waitForJob(jobId, { timeoutMs: 60_000 })).state).toBe('FAILED');
    const res = await fetch(`${base}/proxy${web}/echo`, { headers: bearer(aliceKey) });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'IRIS_NOT_FOUND' });
    const gone = await grpcCall('/test.Proxy/Echo', Buffer.from('x'), { 'x-iris-endpoint': rpc, ...bearer(aliceKey) }).catch((err: unknown) => err);
    expect(gone).toMatchObject({ code: status.NOT_FOUND });
  });
});
