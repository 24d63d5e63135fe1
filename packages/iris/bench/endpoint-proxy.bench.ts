/**
 * What the controller's endpoint proxy adds to a round trip: a task serving gRPC (a raw-bytes echo) and HTTP on
 * a warm local cluster (no auth), called directly at its registered address and through the controller's
 * dashboard port (gRPC routed by `x-iris-endpoint`, HTTP at `/proxy/<endpoint>/…`), alternating call by call so
 * both see the same load. 64-byte and 1 MiB payloads. Prints p50/p99 and the p50 difference; asserts nothing.
 *
 * Run: `node --conditions=@marin/source --import tsx bench/endpoint-proxy.bench.ts`
 * (IRIS_BENCH_PROXY_CALLS sets the calls per form and size, default 2000 small / 200 large).
 */
import { request as httpRequest, Agent } from 'node:http';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Client, Metadata, credentials } from '@grpc/grpc-js';
import { pollUntil } from '@marin/rigging';
import { startLocalCluster } from '../src/cluster/local-cluster.js';

const CALLS = Number(process.env['IRIS_BENCH_PROXY_CALLS'] ?? '2000');
const BIG_CALLS = Math.max(20, Math.floor(CALLS / 10));
const WARMUP = 200;
const BACKEND = fileURLToPath(new URL('../test/fixtures/endpoint-proxy/backend.mjs', import.meta.url));

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');
const loadBefore = load();

await using cluster = await startLocalCluster({ workers: 1 });
await using client = cluster.client();
const jobId = await client.launchJob({ name: 'proxy-bench', command: ['node', BACKEND] });
let ports: { http: number; grpc: number } | undefined;
await pollUntil(
  async () => {
    const line = (await client.fetchLogs({ jobId })).entries.find((e) => e.data.startsWith('PROXY_BACKEND '));
    if (line) ports = JSON.parse(line.data.slice('PROXY_BACKEND '.length)) as { http: number; grpc: number };
    return ports !== undefined;
  },
  { timeoutMs: 60_000, interval: 100 },
);
const task = await client.getTask(`${jobId}/0`);
const rpcName = `${jobId}/rpc`;
const webName = `${jobId}/web`;
await client.registerEndpoint({ name: rpcName, address: `127.0.0.1:${ports!.grpc}`, taskId: task.taskId, attemptId: task.currentAttemptId });
await client.registerEndpoint({ name: webName, address: `127.0.0.1:${ports!.http}`, taskId: task.taskId, attemptId: task.currentAttemptId });
const dashboard = new URL(cluster.dashboardUrl!);

const options = { 'grpc.max_receive_message_length': 64 * 1024 * 1024, 'grpc.max_send_message_length': 64 * 1024 * 1024 };
const direct = new Client(`127.0.0.1:${ports!.grpc}`, credentials.createInsecure(), options);
const proxied = new Client(dashboard.host, credentials.createInsecure(), options);
const routed = new Metadata();
routed.set('x-iris-endpoint', rpcName);

function echo(c: Client, body: Buffer, md: Metadata): Promise<void> {
  return new Promise((resolve, reject) =>
    c.makeUnaryRequest('/test.Proxy/Echo', (b: Buffer) => b, (b: Buffer) => b, body, md.clone(), { deadline: new Date(Date.now() + 30_000) }, (e) => (e ? reject(e) : resolve())),
  );
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });
function get(port: number, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve());
    });
    req.on('error', reject);
    req.end();
  });
}

async function sideBySide(n: number, a: () => Promise<void>, b: () => Promise<void>): Promise<[number[], number[]]> {
  for (let i = 0; i < Math.min(WARMUP, n); i++) {
    await a();
    await b();
  }
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < n; i++) {
    let t0 = performance.now();
    await a();
    ta.push(performance.now() - t0);
    t0 = performance.now();
    await b();
    tb.push(performance.now() - t0);
  }
  return [ta, tb];
}

function row(label: string, [d, p]: [number[], number[]]): string {
  const f = (x: number): string => x.toFixed(3);
  return `${label}: direct p50 ${f(percentile(d, 50))} ms p99 ${f(percentile(d, 99))} ms | through the controller p50 ${f(percentile(p, 50))} ms p99 ${f(percentile(p, 99))} ms | added p50 ${f(percentile(p, 50) - percentile(d, 50))} ms (n = ${d.length})`;
}

const small = Buffer.alloc(64, 1);
const big = Buffer.alloc(1024 * 1024, 7);
const none = new Metadata();
console.log(row('gRPC echo 64 B', await sideBySide(CALLS, () => echo(direct, small, none), () => echo(proxied, small, routed))));
console.log(row('gRPC echo 1 MiB', await sideBySide(BIG_CALLS, () => echo(direct, big, none), () => echo(proxied, big, routed))));
console.log(row('HTTP GET /echo', await sideBySide(CALLS, () => get(ports!.http, '/echo'), () => get(Number(dashboard.port), `/proxy${webName}/echo`))));
console.log(`load average before ${loadBefore}, after ${load()}`);
direct.close();
proxied.close();
agent.destroy();
await client.terminateJob(jobId);
