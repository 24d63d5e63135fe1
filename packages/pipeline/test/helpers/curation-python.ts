import { spawn } from 'node:child_process';
import { access, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pythonEnvCacheDir, pythonEnvKey } from '@marin/rigging';

const here = dirname(fileURLToPath(import.meta.url));
/** The pipeline's checked-in lock of the curation oracles (pyarrow, datasketch, datatrove, fasttext). */
export const CURATION_LOCK = resolve(here, '../../python/curation.lock');
const CREATE_COMMAND = 'node tools/python-env/python-env.mjs packages/pipeline/python/curation.lock';

/**
 * The interpreter of the curation oracle environment `.ci/run` creates from the checked-in lock.
 * @throws Error naming the command that creates it when it does not exist (tests never skip on it)
 */
export async function curationPython(): Promise<string> {
  const dir = join(pythonEnvCacheDir(), `py3.11-${pythonEnvKey(await readFile(CURATION_LOCK), '3.11')}`);
  try {
    await access(join(dir, '.marin-env.json'));
  } catch {
    throw new Error(`the curation oracle Python environment is missing; create it from the repository root with: ${CREATE_COMMAND}`);
  }
  return join(dir, 'bin', 'python');
}

/**
 * Runs a Python oracle script (a file under test/python/) with the curation environment, `input` on its stdin,
 * and resolves with its stdout. Rejects when it exits non-zero, with its stderr.
 */
export async function runCurationPython(script: string, args: readonly string[] = [], input = ''): Promise<string> {
  const python = await curationPython();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(python, [resolve(here, '../python', script), ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, HF_HUB_OFFLINE: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolvePromise(stdout) : reject(new Error(`${script} exited ${code}:\n${stderr.slice(-4000)}`))));
    child.stdin.end(input);
  });
}
