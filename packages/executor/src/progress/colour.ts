/** ANSI styling of progress lines, or the identity when colour is off. */
export interface Palette {
  green(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

const wrap =
  (open: number, close: number) =>
  (s: string): string =>
    `\x1b[${open}m${s}\x1b[${close}m`;

const COLOURS: Palette = { green: wrap(32, 39), red: wrap(31, 39), yellow: wrap(33, 39), cyan: wrap(36, 39), dim: wrap(2, 22), bold: wrap(1, 22) };
const id = (s: string): string => s;
const PLAIN: Palette = { green: id, red: id, yellow: id, cyan: id, dim: id, bold: id };

/**
 * Whether to colour output written to `stream`, as Node and most CLIs decide: `FORCE_COLOR` wins
 * (`0` or `false` turns colour off, anything else on), then a non-empty `NO_COLOR` turns it off,
 * else colour on a TTY whose `TERM` is not `dumb`.
 */
export function wantsColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  const force = env['FORCE_COLOR'];
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  return stream.isTTY === true && env['TERM'] !== 'dumb';
}

/** The palette for `enabled`. */
export function palette(enabled: boolean): Palette {
  return enabled ? COLOURS : PLAIN;
}

/** Removes ANSI escape sequences (colour and cursor movement) from `s`. */
export function stripAnsi(s: string): string {
  return s.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
}
