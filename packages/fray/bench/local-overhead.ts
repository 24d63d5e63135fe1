// Local backend overhead: submit → wait of a trivial binary job, against a bare spawn of the same command.
// Run with `npm run bench` (prints figures; asserts nothing).
import { spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { Entrypoint, createLocalClient, silentLogger } from '@marin/fray';

const ROUNDS = Number(process.env['FRAY_BENCH_ROUNDS'] ?? '50');

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function bareSpawn(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('true', [], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve());
  });
}

async function time(fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

function report(label: string, samples: number[]): void {
  console.log(`${label.padEnd(44)} p50 ${percentile(samples, 50).toFixed(2)} ms   p90 ${percentile(samples, 90).toFixed(2)} ms   (n=${samples.length})`);
}

await using client = createLocalClient({ logger: silentLogger });
let n = 0;
await time(bareSpawn); // warm-up
const bare = await time(bareSpawn);
const binary = await time(async () => {
  const job = await client.submit({ name: `bench-bin-${n++}`, entrypoint: Entrypoint.fromBinary('true') });
  await job.wait();
});
const callable = await time(async () => {
  const job = await client.submit({ name: `bench-fn-${n++}`, entrypoint: Entrypoint.fromCallable(() => undefined) });
  await job.wait();
});
console.log(`fray local backend, nproc=${cpus().length}, node ${process.version}`);
report('bare spawn("true") → exit', bare);
report('binary job "true": submit → wait', binary);
report('callable job (no-op): submit → wait', callable);
console.log(`binary job overhead over bare spawn (p50): ${(percentile(binary, 50) - percentile(bare, 50)).toFixed(2)} ms`);
