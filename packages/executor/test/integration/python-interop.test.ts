import { execFile, spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Executor, ExecutorStep, float, versioned } from '@marin/executor';
import type { StepContext } from '@marin/executor';
import { captureLogger } from '../helpers/capture-logger.js';
import { makeTempDir } from '../helpers/temp-dir.js';

// Python 3 re-reads every file the executor wrote and checks that its own json module produces the
// same bytes: `.executor_info` and the experiment JSON as json.dumps(indent=2) + "\n", the lease as
// json.dumps(...), and md5(json.dumps(version, sort_keys=True))[:6] as the hash in the output path.
const CHECK = String.raw`
import hashlib, json, sys
report = {}
for path in sys.argv[2:]:
    text = open(path, encoding="utf-8").read()
    obj = json.loads(text)
    report[path] = {"indent_roundtrip": json.dumps(obj, indent=2) + "\n" == text}
    if "version" in obj and "output_path" in obj:
        v = json.dumps(obj["version"], sort_keys=True)
        report[path]["hash6"] = hashlib.md5(v.encode("utf-8")).hexdigest()[:6]
        report[path]["output_path"] = obj["output_path"]
lease = open(sys.argv[1], encoding="utf-8").read()
parsed = json.loads(lease)
report["lease"] = {
    "compact_roundtrip": json.dumps(parsed) == lease,
    "keys": list(parsed.keys()),
    "timestamp_is_float": isinstance(parsed["timestamp"], float),
}
print(json.dumps(report))
`;

describe('files read back by Python json', () => {
  it('round-trips .executor_info, the experiment JSON and the lease byte for byte, and reproduces the hashes', async () => {
    await using tmp = await makeTempDir();
    await using side = await makeTempDir();
    const leaseCopy = join(side.path, 'lease.json');
    const a = new ExecutorStep({
      name: 'interop/a',
      config: { lr: versioned(float(1)), eps: versioned(1e-5), title: versioned('naïve 😀 "quoted"'), plain: [1, 2.5, null] },
      fn: async (_c, ctx: StepContext) => {
        await writeFile(leaseCopy, await readFile(join(ctx.outputPath, '.executor_status.lock'), 'utf8'));
      },
    });
    const b = new ExecutorStep({ name: 'interop/b', config: { input_path: a.cd('x'), n: versioned(3) }, fn: () => {} });
    const ex = new Executor({ prefix: tmp.path, logger: captureLogger() });
    const paths = await ex.run([b], { progress: 'plain' });
    const infos = [paths.get(a)!, paths.get(b)!].map((p) => join(p, '.executor_info'));
    const files = [...infos, ex.executorInfoPath!];
    const { stdout } = await promisify(execFile)('python3', ['-c', CHECK, leaseCopy, ...files]);
    const report = JSON.parse(stdout) as Record<string, Record<string, unknown>>;
    for (const f of files) expect(report[f]!['indent_roundtrip'], f).toBe(true);
    for (const [step, info] of [[a, infos[0]!], [b, infos[1]!]] as const) {
      expect(report[info]!['hash6']).toBe(ex.hashedVersions.get(step));
      expect(report[info]!['output_path']).toBe(paths.get(step));
    }
    expect(report['lease']).toEqual({ compact_roundtrip: true, keys: ['worker_id', 'timestamp'], timestamp_is_float: true });
  });
});

// A Python holder following Marin's protocol: RUNNING status, a json.dumps lease refreshed with
// time.time(), then SUCCESS (bare token) and the lease removed.
const PY_HOLDER = String.raw`
import json, os, sys, time
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
lock = os.path.join(out, ".executor_status.lock")
def heartbeat():
    with open(lock + ".tmp", "w") as f:
        f.write(json.dumps({"worker_id": "pyhost-4242-1", "timestamp": time.time()}))
    os.replace(lock + ".tmp", lock)
heartbeat()
with open(os.path.join(out, ".executor_status"), "w") as f:
    f.write("RUNNING")
print("HOLDING", flush=True)
end = time.time() + 1.5
while time.time() < end:
    time.sleep(0.2)
    heartbeat()
with open(os.path.join(out, "result.txt"), "w") as f:
    f.write("from python")
with open(os.path.join(out, ".executor_status"), "w") as f:
    f.write("SUCCESS")
os.remove(lock)
`;

describe('sharing a prefix with a Python holder', () => {
  const saved = process.env['MARIN_LEASE_POLL_S'];
  beforeAll(() => {
    process.env['MARIN_LEASE_POLL_S'] = '0.1';
  });
  afterAll(() => {
    if (saved === undefined) delete process.env['MARIN_LEASE_POLL_S'];
    else process.env['MARIN_LEASE_POLL_S'] = saved;
  });

  it('waits while a Python worker holds the lease, then reuses its SUCCESS without running', async () => {
    await using tmp = await makeTempDir();
    let runs = 0;
    const step = new ExecutorStep({ name: 'shared/py', config: {}, fn: () => void runs++ });
    const probe = new Executor({ prefix: tmp.path, logger: captureLogger() });
    probe.computeVersion(step);
    const out = probe.outputPaths.get(step)!;
    await mkdir(out, { recursive: true });
    const holder = spawn('python3', ['-c', PY_HOLDER, out], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<number | null>((resolve) => holder.on('exit', resolve));
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    const logger = captureLogger();
    await new Executor({ prefix: tmp.path, logger }).run([step], { progress: 'plain' });
    expect(await exited).toBe(0);
    expect(runs).toBe(0);
    expect(logger.infos.some((m) => m.includes('pyhost-4242-1'))).toBe(true);
    expect(await readFile(join(out, 'result.txt'), 'utf8')).toBe('from python');
  });
});
