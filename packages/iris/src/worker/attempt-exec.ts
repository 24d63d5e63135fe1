import { spawn } from 'node:child_process';
import { terminateProcessGroup } from '@marin/rigging';
import type { ExecOutput } from '../gen/iris/v1/types.js';

/** Longest an exec may run when the caller names no deadline, and the longest it may ask for. */
export const EXEC_DEFAULT_TIMEOUT_MS = 10 * 60_000;
export const EXEC_MAX_TIMEOUT_MS = 60 * 60_000;

const SIGNAL_NUMBERS: Readonly<Record<string, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

/**
 * Runs `argv` in a running task's workdir and environment, as its own process group, and sends its
 * output as it comes and then one exit. Past `timeoutMs`, or when `signal` aborts (the caller went
 * away), the group gets SIGTERM, a short grace, then SIGKILL: an exec never outlives its caller.
 * A command that cannot start (no such binary) ends with exit code 127 and the reason on stderr.
 */
export async function execInTaskContext(options: {
  context: { readonly cwd: string; readonly env: Readonly<Record<string, string>> };
  argv: readonly string[];
  timeoutMs: number;
  write: (message: ExecOutput) => void;
  signal: AbortSignal;
}): Promise<void> {
  const { write } = options;
  const timeoutMs = Math.min(options.timeoutMs > 0 ? options.timeoutMs : EXEC_DEFAULT_TIMEOUT_MS, EXEC_MAX_TIMEOUT_MS);
  const [command, ...args] = options.argv;
  const child = spawn(command!, args, { cwd: options.context.cwd, env: { ...options.context.env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stopped: string | null = null;
  const stop = (why: string) => {
    if (stopped !== null || child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    stopped = why;
    void terminateProcessGroup(child.pid, { graceMs: 2000 });
  };
  const timer = setTimeout(() => stop('deadline'), timeoutMs);
  const onAbort = () => stop('caller gone');
  options.signal.addEventListener('abort', onAbort, { once: true });
  child.stdout.on('data', (d: Buffer) => write({ chunk: { $case: 'stdout', value: d } }));
  child.stderr.on('data', (d: Buffer) => write({ chunk: { $case: 'stderr', value: d } }));
  try {
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.once('error', (e: NodeJS.ErrnoException) => {
        write({ chunk: { $case: 'stderr', value: Buffer.from(`cannot run ${command}: ${e.code ?? e.message}\n`) } });
        resolve({ code: 127, signal: null });
      });
      child.once('close', (code, sig) => resolve({ code, signal: sig }));
    });
    const signalName = exit.signal ?? '';
    write({ chunk: { $case: 'exit', value: { exitCode: exit.code ?? 128 + (SIGNAL_NUMBERS[signalName] ?? 0), signal: signalName } } });
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
  }
}
