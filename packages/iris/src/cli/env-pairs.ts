/**
 * Accepts Marin's `-e KEY VALUE` beside our `-e KEY=VALUE` in `iris job run`'s options: before the
 * `--` that starts the command, `-e KEY VALUE` (KEY without `=`, VALUE not an option) becomes
 * `-e KEY=VALUE`. Without a `--` nothing changes, since a bare `-e KEY` followed by the command
 * would be ambiguous.
 */
export function joinEnvPairs(args: readonly string[]): string[] {
  const end = args.indexOf('--');
  if (end < 0) return [...args];
  const out: string[] = [];
  for (let i = 0; i < end; i++) {
    const a = args[i]!;
    const key = args[i + 1];
    const value = args[i + 2];
    if ((a === '-e' || a === '--env') && key !== undefined && !key.includes('=') && i + 2 < end && value !== undefined && !value.startsWith('-')) {
      out.push(a, `${key}=${value}`);
      i += 2;
    } else out.push(a);
  }
  return [...out, ...args.slice(end)];
}
