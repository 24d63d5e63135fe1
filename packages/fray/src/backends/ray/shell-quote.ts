/**
 * Quotes one argument for a POSIX shell: Ray job entrypoints are shell command strings, so every argv element is
 * single-quoted (a `'` inside becomes `'\''`); plain words that need no quoting are left readable.
 */
export function shellQuote(arg: string): string {
  if (arg !== '' && /^[A-Za-z0-9_./:=@%+,-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Joins an argv into one shell command with every element quoted. */
export function shellJoin(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}
