import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { canonicalGpuVariant } from '../core/device-constraints.js';

const execFileAsync = promisify(execFile);

/** GPUs found on this host. */
export interface ProbedGpus {
  /** Canonical lower-case variant (`h100`), or the sanitised product name when it is not a known one. */
  variant: string;
  count: number;
}

/**
 * Asks `nvidia-smi` for the host's GPUs. Resolves to null when the tool is absent, fails or
 * lists nothing, so a CPU-only host is never an error.
 */
export async function probeGpus(command = 'nvidia-smi', env: NodeJS.ProcessEnv = process.env): Promise<ProbedGpus | null> {
  let stdout: string;
  try {
    ({ stdout } = await execFileAsync(command, ['--query-gpu=name', '--format=csv,noheader'], { timeout: 10_000, env }));
  } catch {
    return null;
  }
  const names = stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const first = names[0];
  if (first === undefined) return null;
  const variant = canonicalGpuVariant(first) ?? first.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return { variant, count: names.length };
}
