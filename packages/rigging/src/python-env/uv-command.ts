import { spawn } from 'node:child_process';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';
import { RiggingError } from '../errors.js';

const OUTPUT_TAIL_LINES = 40;
/** At most this many characters of uv's error text go into an error message. */
const ERROR_TEXT_MAX_CHARS = 2000;

async function onPath(name: string): Promise<string | null> {
  for (const entry of (process.env['PATH'] ?? '').split(delimiter)) {
    if (entry === '') continue;
    try {
      await access(join(entry, name));
      return join(entry, name);
    } catch {
      // not in this PATH entry
    }
  }
  return null;
}

/**
 * The argv prefix that runs uv: `uv` from `PATH`, else `python3 -m uv`, else uv installed from PyPI
 * with `python3 -m pip install uv` (a user install where the system Python refuses one, PEP 668).
 * @throws {RiggingError} RIGGING_ENV_BUILD_FAILED if uv cannot be found or installed
 */
export async function findUv(log: (line: string) => void, signal?: AbortSignal): Promise<string[]> {
  const binary = await onPath('uv');
  if (binary !== null) return [binary];
  const python = (await onPath('python3')) ?? 'python3';
  const viaModule = [python, '-m', 'uv'];
  try {
    await runLogged([...viaModule, '--version'], () => undefined, signal);
    return viaModule;
  } catch {
    log('uv is not on PATH: installing it with "python3 -m pip install uv"');
  }
  try {
    await runLogged([python, '-m', 'pip', 'install', '--quiet', 'uv'], log, signal);
  } catch {
    await runLogged([python, '-m', 'pip', 'install', '--quiet', '--user', '--break-system-packages', 'uv'], log, signal);
  }
  return viaModule;
}

/**
 * The error text of a failed command's output: from its last `error:` line to the end (uv prints the
 * error, then `cause:`/`hint:` lines), else its last non-empty line.
 */
export function errorTextOf(lines: readonly string[]): string {
  const nonEmpty = lines.map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
  let start = -1;
  for (let i = nonEmpty.length - 1; i >= 0; i -= 1) {
    if (/^\s*error\b/i.test(nonEmpty[i] as string)) {
      start = i;
      break;
    }
  }
  const picked = start >= 0 ? nonEmpty.slice(start) : nonEmpty.slice(-1);
  const text = picked.map((l) => l.trim()).join('\n');
  return text.length > ERROR_TEXT_MAX_CHARS ? `${text.slice(0, ERROR_TEXT_MAX_CHARS)}…` : text;
}

/**
 * Runs argv without a shell, forwarding each output line to `log`.
 * @throws {RiggingError} RIGGING_ENV_BUILD_FAILED on a non-zero exit or a spawn error: the message ends with
 *   the command's error text, `details.output` holds its last lines and `details.errorText` the text alone
 */
export function runLogged(argv: readonly string[], log: (line: string) => void, signal?: AbortSignal): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const [command, ...args] = argv as [string, ...string[]];
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], signal, env: { ...process.env, UV_NO_PROGRESS: '1' } });
    const tail: string[] = [];
    const onLine = (line: string): void => {
      log(line);
      tail.push(line);
      if (tail.length > OUTPUT_TAIL_LINES) tail.shift();
    };
    createInterface({ input: child.stdout }).on('line', onLine);
    createInterface({ input: child.stderr }).on('line', onLine);
    let spawnError: Error | null = null;
    child.on('error', (cause) => {
      spawnError = cause;
    });
    child.on('close', (code, sig) => {
      if (code === 0 && spawnError === null) return resolvePromise();
      const display = `${argv.slice(0, 3).join(' ')} …`;
      if (spawnError !== null) {
        const errorText = (spawnError as NodeJS.ErrnoException).code ?? spawnError.message;
        reject(
          new RiggingError('RIGGING_ENV_BUILD_FAILED', `cannot run "${display}": ${errorText}`, {
            cause: spawnError,
            details: { command: [...argv], output: tail, errorText },
          }),
        );
        return;
      }
      const errorText = errorTextOf(tail) || `exit ${code ?? sig}`;
      reject(
        new RiggingError('RIGGING_ENV_BUILD_FAILED', `"${display}" failed: ${errorText}`, {
          details: { command: [...argv], exitCode: code, signal: sig, output: tail, errorText },
        }),
      );
    });
  });
}
