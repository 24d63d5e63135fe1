import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { isProcessGroupAlive, terminateProcessGroup } from '@marin/rigging';

/** How a process group's leader ended. */
export type ProcessOutcome =
  | { readonly kind: 'exited'; readonly exitCode: number; readonly signal: NodeJS.Signals | null }
  | { readonly kind: 'spawn-error'; readonly error: Error };

/** A command running as the leader of its own process group. */
export interface ProcessGroupRun {
  /** Leader pid = process group id; undefined when spawning failed. */
  readonly pid: number | undefined;
  /** Settles when the leader exits (after its output was read) or could not start. */
  readonly outcome: Promise<ProcessOutcome>;
  /** SIGTERM to the group, SIGKILL to what is left of it after `graceMs`; resolves once the leader is gone. */
  terminate(graceMs: number): Promise<void>;
}

/** What to run and where its output goes. */
export interface ProcessGroupSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Called for each stdout or stderr line, in arrival order per stream. */
  readonly onLine: (line: string, stream: 'stdout' | 'stderr') => void;
}

function pipeLines(stream: Readable | null, which: 'stdout' | 'stderr', onLine: ProcessGroupSpec['onLine']): Promise<void> {
  if (stream === null) return Promise.resolve();
  const rl = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  rl.on('line', (line) => onLine(line, which));
  return new Promise((resolve) => rl.once('close', () => resolve()));
}

/**
 * Spawns `command` without a shell in its own process group (`detached`), reading stdout and stderr line by line.
 * A signal death is reported as exit code 128 + signal number.
 */
export function spawnProcessGroup(spec: ProcessGroupSpec): ProcessGroupRun {
  const child = spawn(spec.command, [...spec.args], {
    cwd: spec.cwd,
    env: spec.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let leaderExited = false;
  const outputDone = Promise.all([pipeLines(child.stdout, 'stdout', spec.onLine), pipeLines(child.stderr, 'stderr', spec.onLine)]);
  const outcome = new Promise<ProcessOutcome>((resolve) => {
    child.once('error', (error) => {
      if (child.pid === undefined) resolve({ kind: 'spawn-error', error });
    });
    child.once('exit', (code, signal) => {
      leaderExited = true;
      const exitCode = code ?? 128 + (signal === null ? 0 : (constants.signals[signal] ?? 0));
      // Wait for the pipes so every line is in the tail before the job reports its end; grandchildren holding
      // the pipes open must not block that, hence the cap.
      void Promise.race([outputDone, new Promise((r) => setTimeout(r, 2000).unref())]).then(() =>
        resolve({ kind: 'exited', exitCode, signal }),
      );
    });
  });
  const pid = child.pid;
  return {
    pid,
    outcome,
    async terminate(graceMs: number): Promise<void> {
      if (pid === undefined) return;
      // Grandchildren share the group: the ones that outlived the leader or ignored SIGTERM get SIGKILL too.
      await terminateProcessGroup(pid, { graceMs, isGone: () => leaderExited && !isProcessGroupAlive(pid) });
      await outcome;
    },
  };
}
