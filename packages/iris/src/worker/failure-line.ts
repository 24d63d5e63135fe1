/** Longest cause kept from a task's output. */
const MAX_CAUSE = 300;

const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;

/**
 * Lines a failing program prints to say why: the executor's `FAILED <step>: <cause> [<code>]`, a
 * CLI's `error: …`, Node's and Python's last traceback line (`TypeError: …`, `ValueError: …`).
 */
const CAUSE = /^(?:FAILED \S+: .+|error: .+|[A-Z][A-Za-z0-9_.]*(?:Error|Exception): .+)$/;

/** The line itself (colour removed, cut to 300 characters) when it states a failure's cause, else `null`. */
export function failureLineOf(line: string): string | null {
  const plain = line.replace(ANSI, '').trim();
  if (!CAUSE.test(plain)) return null;
  return plain.length > MAX_CAUSE ? `${plain.slice(0, MAX_CAUSE - 1)}…` : plain;
}

/** `Exit code 1: FAILED a-123456: vocab.json missing [ENOENT]`: the exit status with the task's own last cause line. */
export function withCause(exitMessage: string, cause: string | null): string {
  return cause === null || exitMessage === '' ? exitMessage : `${exitMessage}: ${cause}`;
}
