import { CommanderError } from 'commander';
import { IrisError } from '../errors.js';
import type { CliIo } from './cli-context.js';
import { errorLine } from './cli-errors.js';
import { joinEnvPairs } from './env-pairs.js';
import { buildProgram } from './program.js';

/** Options of {@link main} beyond argv; defaults use the real process. */
export interface CliOptions {
  /** @default process.stdout / process.stderr / process.env */
  readonly io?: CliIo;
  /** Aborts on Ctrl-C; @default SIGINT/SIGTERM of this process */
  readonly signal?: AbortSignal;
}

function processSignal(): { signal: AbortSignal; dispose: () => void } {
  const ac = new AbortController();
  const onSignal = () => ac.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: ac.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/**
 * The `iris` CLI. Returns the exit code: 0 success, 1 failure or a non-SUCCEEDED job, 2 usage
 * errors, 130 after Ctrl-C.
 */
export async function main(argv: readonly string[], options: CliOptions = {}): Promise<number> {
  const io: CliIo = options.io ?? {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    env: process.env,
  };
  const own = options.signal ? undefined : processSignal();
  const signal = options.signal ?? own!.signal;
  let code = 0;
  const program = buildProgram({ io, signal, argv, setCode: (c) => (code = c) });

  try {
    await program.parseAsync(argv[0] === 'job' && argv[1] === 'run' ? joinEnvPairs(argv) : [...argv], { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    io.stderr(`iris: ${errorLine(e)}\n`);
    return IrisError.hasCode(e, 'IRIS_INVALID_ARGUMENT') ? 2 : 1;
  } finally {
    own?.dispose();
  }
}
