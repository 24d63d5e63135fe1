import { IrisError } from '../errors.js';
import { requireConnection } from './cli-context.js';
import type { CliIo } from './cli-context.js';
import { parseNumberFlag } from './cli-options.js';

/** Flags of `iris task exec`. */
export interface TaskExecFlags {
  controller?: string;
  timeout: string;
}

/** `JOB/TASK` → the task id; a bare job id means its task 0. */
export function execTaskId(target: string): string {
  const trimmed = target.replace(/\/+$/, '');
  if (!trimmed.startsWith('/')) throw new IrisError('IRIS_INVALID_ARGUMENT', `"${target}": expected JOB/TASK, e.g. /alice/train/0`);
  return /\/\d+$/.test(trimmed) ? trimmed : `${trimmed}/0`;
}

/**
 * `iris task exec JOB/TASK [--timeout SEC] -- CMD...`: runs CMD in the running task's workdir and
 * environment on its worker, streams its output and exits with its exit code (130 after Ctrl-C,
 * which stops the command).
 */
export async function taskExecCommand(target: string, args: readonly string[], flags: TaskExecFlags, io: CliIo, signal: AbortSignal): Promise<number> {
  const taskId = execTaskId(target);
  const command = args[0] === '--' ? args.slice(1) : args;
  if (command.length === 0) throw new IrisError('IRIS_INVALID_ARGUMENT', 'no command: iris task exec JOB/TASK -- CMD...');
  const timeoutMs = parseNumberFlag('--timeout', flags.timeout) * 1000;
  await using connection = await requireConnection(flags.controller, io.env);
  return await connection.use(async (client) => {
    let exitCode = 1;
    try {
      for await (const ev of client.execInTask(taskId, command, { timeoutMs, signal })) {
        if (ev.kind === 'exit') exitCode = ev.exitCode;
        else (ev.kind === 'stdout' ? io.stdout : io.stderr)(ev.data.toString());
      }
    } catch (e) {
      if (signal.aborted) return 130;
      throw e;
    }
    return exitCode;
  });
}
