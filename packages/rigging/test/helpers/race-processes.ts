import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const RACER = fileURLToPath(new URL('./lease-racer.ts', import.meta.url));

/** One racer's report. */
export interface RaceResult {
  workerId: string;
  won: boolean;
}

/** Spawns `count` real processes that all call `tryAcquire()` on `url` at the same instant. */
export async function raceForLease(url: string, count: number, env: NodeJS.ProcessEnv = {}): Promise<RaceResult[]> {
  // Process start-up on a busy 2-core machine takes seconds; give every child time to be ready.
  const startAt = Date.now() + 4000 + count * 300;
  const runs = Array.from(
    { length: count },
    () =>
      new Promise<RaceResult>((resolve, reject) => {
        const child = spawn(process.execPath, ['--conditions=@marin/source', '--import', 'tsx', RACER, url, String(startAt)], {
          env: { ...process.env, ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.on('error', reject);
        child.on('close', (code) => {
          if (code !== 0) reject(new Error(`racer exited with ${code}: ${err}`));
          else resolve(JSON.parse(out.trim()) as RaceResult);
        });
      }),
  );
  return Promise.all(runs);
}
