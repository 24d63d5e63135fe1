/** Terminal status: the step's output is complete and may be reused. */
export const STATUS_SUCCESS = 'SUCCESS';
/** Terminal status: the step's function threw (or its job failed). */
export const STATUS_FAILED = 'FAILED';
/** Legacy status: a dependency failed. Read, never written (dependents fail in memory only). */
export const STATUS_DEP_FAILED = 'DEP_FAILED';
/** A worker holds (or held) the lease and is running the step. */
export const STATUS_RUNNING = 'RUNNING';

/**
 * A status token as read from `.executor_status`. The four known values are listed; anything else a
 * legacy writer left (for example `WAITING`) is passed through as a plain string.
 */
export type StepStatus =
  | typeof STATUS_SUCCESS
  | typeof STATUS_FAILED
  | typeof STATUS_DEP_FAILED
  | typeof STATUS_RUNNING
  | (string & {});

/** True for the statuses that mean "a previous attempt failed" (`FAILED`, `DEP_FAILED`). */
export function isFailedStatus(status: StepStatus | null): boolean {
  return status === STATUS_FAILED || status === STATUS_DEP_FAILED;
}

/**
 * Parses the text of an `.executor_status` file the way Marin reads it.
 *
 * - empty (after dropping blank lines) → `null` (no status);
 * - one line not starting with `{` → that line, trimmed (the current bare-token format);
 * - otherwise the legacy JSON-lines event log: the last `"status"` string found, or the last line when
 *   no line parses.
 */
export function parseStatusText(text: string): StepStatus | null {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  if (lines.length === 0) return null;
  if (lines.length === 1 && !lines[0]!.startsWith('{')) return lines[0]!;
  let last: string | null = null;
  for (const line of lines) {
    try {
      const parsed: unknown = JSON.parse(line);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
        const status = (parsed as Record<string, unknown>)['status'];
        if (typeof status === 'string') last = status;
      }
    } catch {
      // Not JSON: a torn or foreign line. Marin skips it and falls back to the last line below.
    }
  }
  return last ?? lines[lines.length - 1]!;
}
