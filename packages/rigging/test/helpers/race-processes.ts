import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const RACER = fileURLToPath(new URL('./lease-racer.ts', import.meta.url));
const MIRROR_READER = fileURLToPath(new URL('./mirror-reader.ts', import.meta.url));

/** One racer's report. */
export interface RaceResult {
  workerId: string;
  won: boolean;
}

/** Runs `script` with `args` in a real child process and parses its one JSON line of output. */
function runChild<T>(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=@marin/source', '--import', 'tsx', script, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${script} exited with ${code}: ${err}`));
      else resolve(JSON.parse(out.trim()) as T);
    });
  });
}

// Process start-up on a busy 2-core machine takes seconds; give every child time to be ready.
function startTime(count: number): number {
  return Date.now() + 4000 + count * 300;
}

/** Spawns `count` real processes that all call `tryAcquire()` on `url` at the same instant. */
export async function raceForLease(url: string, count: number, env: NodeJS.ProcessEnv = {}): Promise<RaceResult[]> {
  const startAt = String(startTime(count));
  return Promise.all(Array.from({ length: count }, () => runChild<RaceResult>(RACER, [url, startAt], env)));
}

/** One mirror reader's report. */
export interface MirrorReadResult {
  bytes: number;
  bytesCopied: number;
}

/** Spawns `count` real processes that read `mirror://<rel>` through their own MirrorFilesystem at once. */
export async function raceMirrorReads(
  opts: { localPrefix: string; remotePrefix: string; rel: string; count: number },
  env: NodeJS.ProcessEnv = {},
): Promise<MirrorReadResult[]> {
  const startAt = String(startTime(opts.count));
  return Promise.all(
    Array.from({ length: opts.count }, () =>
      runChild<MirrorReadResult>(MIRROR_READER, [opts.localPrefix, opts.remotePrefix, opts.rel, startAt], env),
    ),
  );
}
