import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A file tasks wait for, so tests release them on cue instead of sleeping. */
export interface Gate extends Disposable {
  readonly path: string;
  /** A command that prints `ready`, then exits `exitCode` once the gate opens. */
  command(exitCode?: number): string[];
  open(): void;
}

/** Creates a closed gate in a temp dir. */
export function createGate(): Gate {
  const dir = mkdtempSync(join(tmpdir(), 'iris-gate-'));
  const path = join(dir, 'open');
  return {
    path,
    command: (exitCode = 0) => [
      'node',
      '-e',
      `console.log('ready'); const fs = require('fs'); setInterval(() => { if (fs.existsSync(${JSON.stringify(path)})) process.exit(${exitCode}); }, 50);`,
    ],
    open: () => writeFileSync(path, ''),
    [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Polls `probe` until it returns a value that is not undefined. */
export async function eventually<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
