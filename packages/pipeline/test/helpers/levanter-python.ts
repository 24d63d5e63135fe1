import { spawn } from 'node:child_process';
import { access, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pythonEnvCacheDir, pythonEnvKey } from '@marin/rigging';

const here = dirname(fileURLToPath(import.meta.url));
/** The pipeline's checked-in Levanter lock. */
export const LEVANTER_LOCK = resolve(here, '../../python/levanter.lock');
const CREATE_COMMAND = 'node tools/python-env/python-env.mjs packages/pipeline/python/levanter.lock';

/**
 * The interpreter of the Levanter environment `.ci/run` creates from the checked-in lock.
 * @throws Error naming the command that creates it when it does not exist (tests never skip on it)
 */
export async function levanterPython(): Promise<string> {
  const key = pythonEnvKey(await readFile(LEVANTER_LOCK), '3.11');
  const python = join(pythonEnvCacheDir(), `py3.11-${key}`, 'bin', 'python');
  try {
    await access(join(pythonEnvCacheDir(), `py3.11-${key}`, '.marin-env.json'));
  } catch {
    throw new Error(`the Levanter Python environment is missing; create it from the repository root with: ${CREATE_COMMAND}`);
  }
  return python;
}

/** What a Python script printed and how it ended. */
export interface PythonResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a Python script (inline source) with the Levanter environment, offline and with JAX on CPU.
 * `args` become `sys.argv[1:]`. Rejects when the script exits non-zero, with its stderr.
 */
export async function runLevanterPython(source: string, args: readonly string[] = [], env: Record<string, string> = {}): Promise<PythonResult> {
  const python = await levanterPython();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(python, ['-c', source, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        JAX_PLATFORMS: 'cpu',
        HF_HUB_OFFLINE: '1',
        HF_DATASETS_OFFLINE: '1',
        TRANSFORMERS_OFFLINE: '1',
        WANDB_MODE: 'disabled',
        ...env,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolvePromise({ code, stdout, stderr });
      else reject(new Error(`python exited ${code}:\n${stderr.slice(-4000)}`));
    });
  });
}
