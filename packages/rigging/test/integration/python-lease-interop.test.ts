import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { formatLease, parseLease } from '../../src/locks/distributed-lease.js';

const run = promisify(execFile);

const CASES: Array<[string, number]> = [
  ['host-123-1', 1732212345.25],
  ['host-123-2', 1732212345],
  ['tpu-vm-ü-7', 1700000000.1234567],
  ['quote"back\\slash', 1e-7],
  ['ctrl\u0001\u007f', 1732212345.999999],
];

describe('lease bytes versus Python json.dumps', () => {
  it('matches Python byte for byte, and Python parses ours back', async () => {
    const script = [
      'import json, sys',
      'cases = json.loads(sys.stdin.read())',
      'print(json.dumps([json.dumps({"worker_id": w, "timestamp": float(t)}) for w, t in cases]))',
    ].join('\n');
    const child = execFile('python3', ['-c', script]);
    child.stdin?.end(JSON.stringify(CASES));
    const out = await new Promise<string>((resolve, reject) => {
      let buf = '';
      child.stdout?.on('data', (d: Buffer) => (buf += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(buf) : reject(new Error(`python3 exited ${code}`))));
    });
    const expected = JSON.parse(out) as string[];
    CASES.forEach(([w, t], i) => {
      expect(formatLease(w, t)).toBe(expected[i]);
      expect(parseLease(expected[i] ?? '')).toEqual({ workerId: w, timestamp: t });
    });
    const { stdout } = await run('python3', ['-c', `import json; d = json.loads(${JSON.stringify(formatLease('w', 1.5))}); print(d["worker_id"], d["timestamp"])`]);
    expect(stdout.trim()).toBe('w 1.5');
  });
});
