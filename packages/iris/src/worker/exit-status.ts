import { constants } from 'node:os';

/** How an attempt's process ended, in the terms the controller stores. */
export interface ExitStatus {
  /** The exit code; a signal `s` maps to `128 + s` (SIGKILL → 137). */
  exitCode: number;
  /** The signal name when the process was killed by one, else `null`. */
  signal: NodeJS.Signals | null;
  /** `""` for exit 0, else e.g. `Exit code 3` or `Exit code 137: killed by SIGKILL`. */
  message: string;
}

/** Converts Node's `(code, signal)` pair of an `exit` event into an {@link ExitStatus}. */
export function exitStatusOf(code: number | null, signal: NodeJS.Signals | null): ExitStatus {
  if (signal !== null) {
    const number = (constants.signals as Record<string, number | undefined>)[signal] ?? 0;
    const exitCode = 128 + number;
    return { exitCode, signal, message: `Exit code ${exitCode}: killed by ${signal}` };
  }
  const exitCode = code ?? 0;
  return { exitCode, signal: null, message: exitCode === 0 ? '' : `Exit code ${exitCode}` };
}
