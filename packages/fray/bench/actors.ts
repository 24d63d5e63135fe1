// Actor method call round trip on one machine: a TS caller → a local TS actor process (gRPC, fray's actor frames),
// side by side with a Ray actor call (`ray.get(actor.add.remote(1))` from a Python driver that starts its own
// local Ray instance with `ray.init(num_cpus=2)`, from the environment of packages/fray/python/ray.lock) measured in
// the same run. Both: a small JSON call (`add(1)`) and a 1 MiB binary echo. Prints figures; asserts nothing.
// The Ray environment must be built first: node tools/python-env/python-env.mjs packages/fray/python/ray.lock
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { mapLimit, pythonEnvCacheDir, pythonEnvDir, pythonEnvKey } from '@marin/rigging';
import { ACTOR_READY_PREFIX, DEFAULT_PYTHON_VERSION, connectActor, createLocalActorBackend, findWorkspaceRoot, silentLogger } from '@marin/fray';
import { RAY_LOCK_PATH } from '@marin/fray/testing';
import { QualityScorer } from '../test/fixtures/actors.js';

const CALLS = Number(process.env['FRAY_BENCH_ACTOR_CALLS'] ?? '2000');
const BIG_CALLS = Number(process.env['FRAY_BENCH_ACTOR_BIG_CALLS'] ?? '200');
const WARMUP = 200;

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function timeCalls(n: number, call: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await call();
    out.push(performance.now() - t0);
  }
  return out;
}

const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');
const loadBefore = load();

// TS → TS.
const big = new Uint8Array(1024 * 1024).fill(7);
await using actors = createLocalActorBackend({ logger: silentLogger });
const actor = await actors.createActor({ module: 'packages/fray/test/fixtures/actors.ts', exportName: 'Counter' });

// Throughput: a pool of 4 scorer actors fed batches of 200 documents (8 batches in flight, round-robin) against
// the same scoring in this process.
const DOCS = Number(process.env['FRAY_BENCH_ACTOR_DOCS'] ?? '40000');
const docs = Array.from({ length: DOCS }, (_, i) => `document ${i}: ${'the quick brown fox jumps over the lazy dog '.repeat(12)}`);
const batches: string[][] = [];
for (let i = 0; i < docs.length; i += 200) batches.push(docs.slice(i, i + 200));
const inProcessStart = performance.now();
const local = new QualityScorer();
for (const b of batches) local.score(b);
const inProcessMs = performance.now() - inProcessStart;
const pool = await actors.createActorGroup({ module: 'packages/fray/test/fixtures/actors.ts', exportName: 'QualityScorer' }, 4);
await pool.callAll('score', [batches[0]]);
const poolStart = performance.now();
await mapLimit(batches, 8, (b) => pool.call('score', b));
const poolMs = performance.now() - poolStart;
await pool.close();

// Ray: a Python driver with its own local Ray instance, so it measures Ray's own actor-call path (no Fray in between).
const RAY_DRIVER = `
import json, time, ray
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
@ray.remote
class Counter:
    def __init__(self):
        self.n = 0
    def add(self, k):
        self.n += k
        return self.n
    def echo(self, v):
        return v
a = Counter.remote()
def timed(n, f):
    out = []
    for _ in range(n):
        t = time.perf_counter(); f(); out.append((time.perf_counter() - t) * 1000)
    return out
timed(${WARMUP}, lambda: ray.get(a.add.remote(1)))
small = timed(${CALLS}, lambda: ray.get(a.add.remote(1)))
big = bytes(1024 * 1024)
timed(10, lambda: ray.get(a.echo.remote(big)))
large = timed(${BIG_CALLS}, lambda: ray.get(a.echo.remote(big)))
print("FRAY_BENCH_RAY " + json.dumps({"small": small, "big": large}), flush=True)
ray.shutdown()
`;
const workspace = findWorkspaceRoot();
const envDir = pythonEnvDir(pythonEnvCacheDir(), DEFAULT_PYTHON_VERSION, pythonEnvKey(readFileSync(join(workspace, RAY_LOCK_PATH)), DEFAULT_PYTHON_VERSION));
const python = join(envDir, 'bin', 'python');
if (!existsSync(join(envDir, 'bin', 'ray'))) throw new Error(`the Ray environment is not built; run: node tools/python-env/python-env.mjs ${RAY_LOCK_PATH}`);
const fmt = (v: readonly number[]): string => `p50 ${percentile(v, 50).toFixed(3)} ms  p99 ${percentile(v, 99).toFixed(3)} ms  (n=${v.length})`;
console.log(`actor call round trip, one machine: nproc=${cpus().length}, node ${process.version}, load average before ${loadBefore}`);

// TS → Python: a Python actor served by fray_actors.host_actor (grpcio, thread pool), called through connectActor.
const pyHost = spawn(python, [join(workspace, 'packages/fray/test/fixtures/python_actor_host.py')], {
  env: { ...process.env, PYTHONPATH: join(workspace, 'packages/fray/python') },
  stdio: ['pipe', 'pipe', 'inherit'],
});
let pyAddress = '';
for await (const l of createInterface({ input: pyHost.stdout })) {
  if (l.startsWith(ACTOR_READY_PREFIX)) {
    pyAddress = (JSON.parse(l.slice(ACTOR_READY_PREFIX.length)) as { address: string }).address;
    break;
  }
}
const pyActor = connectActor(pyAddress);
// Interleaved, call by call, so both actors see the same machine load.
await timeCalls(WARMUP, () => actor.call('add', 1));
await timeCalls(WARMUP, () => pyActor.call('add', 1));
const tsSmall: number[] = [];
const pySmall: number[] = [];
const tsBig: number[] = [];
const pyBig: number[] = [];
for (let i = 0; i < CALLS; i++) {
  tsSmall.push(...(await timeCalls(1, () => actor.call('add', 1))));
  pySmall.push(...(await timeCalls(1, () => pyActor.call('add', 1))));
}
for (let i = 0; i < BIG_CALLS; i++) {
  tsBig.push(...(await timeCalls(1, () => actor.call('echo', big))));
  pyBig.push(...(await timeCalls(1, () => pyActor.call('echo', big))));
}
await actor.close();
await pyActor.close();
pyHost.stdin.end();
pyHost.kill('SIGKILL');
console.log(`TS → TS actor (fray local backend, gRPC)   add(1):       ${fmt(tsSmall)}`);
console.log(`TS → TS actor                               echo(1 MiB):  ${fmt(tsBig)}`);
console.log(`TS → Python actor (fray_actors.host_actor)   add(1):       ${fmt(pySmall)}`);
console.log(`TS → Python actor                           echo(1 MiB):  ${fmt(pyBig)}`);
const rate = (ms: number): string => `${Math.round((DOCS / ms) * 1000).toLocaleString('en-US')} docs/s (${ms.toFixed(0)} ms)`;
console.log(`scoring ${DOCS} documents in batches of 200: in-process ${rate(inProcessMs)}; 4-actor pool ${rate(poolMs)}`);
const { stdout } = await promisify(execFile)(python, ['-c', RAY_DRIVER], {
  maxBuffer: 64 * 1024 * 1024,
  timeout: 15 * 60_000,
  env: { ...process.env, RAY_AUTH_MODE: 'disabled', RAY_USAGE_STATS_ENABLED: '0' },
});
const line = stdout.split('\n').find((l) => l.startsWith('FRAY_BENCH_RAY '));
if (line === undefined) throw new Error(`the Ray driver printed no result: ${stdout.slice(-2000)}`);
const rayResult = JSON.parse(line.slice('FRAY_BENCH_RAY '.length)) as { small: number[]; big: number[] };

console.log(`Ray actor (ray.get(a.add.remote(1)))        add(1):       ${fmt(rayResult.small)}`);
console.log(`Ray actor                                   echo(1 MiB):  ${fmt(rayResult.big)}`);
console.log(`load average after ${load()}`);
