import { ExecutorError } from '../errors.js';
import { gcCommand } from './gc-command.js';
import type { CliStreams } from './gc-command.js';

export { GC_USAGE, formatAge, formatBytes, gcCommand, parseGcArgs, parseSince } from './gc-command.js';
export type { CliStreams } from './gc-command.js';

/** The usage text of the `marin` command. */
export const MARIN_USAGE = `usage: marin <command> [options]

commands:
  gc      list step outputs no experiment references any more; delete them with --delete

Run \`marin <command> --help\` for a command's options.
`;

/**
 * The `marin` command (`bin/marin.js`): dispatches to a subcommand and returns the exit code
 * (0 success, 1 failure, 2 bad arguments). Errors print as one line; there is no stack trace.
 */
export async function main(argv: readonly string[], io: CliStreams = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === 'help') {
    (command === undefined ? io.stderr : io.stdout).write(MARIN_USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command !== 'gc') {
    io.stderr.write(`error: unknown command ${JSON.stringify(command)}${command.startsWith('g') ? '; did you mean gc?' : ''}\n\n${MARIN_USAGE}`);
    return 2;
  }
  try {
    return await gcCommand(rest, io);
  } catch (e) {
    const code = typeof (e as { code?: unknown }).code === 'string' ? ` [${(e as { code: string }).code}]` : '';
    io.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}${code}\n`);
    return ExecutorError.hasCode(e, 'EXECUTOR_INVALID_ARGUMENT') && e.details['usage'] === true ? 2 : 1;
  }
}
