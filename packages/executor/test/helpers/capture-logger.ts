import type { ExecutorLogger } from '@marin/executor';

/** A logger that records every line, for assertions on what was logged (never on wording alone). */
export interface CapturedLogger extends ExecutorLogger {
  readonly infos: string[];
  readonly warns: string[];
  all(): string;
}

/** Creates a recording logger. */
export function captureLogger(): CapturedLogger {
  const infos: string[] = [];
  const warns: string[] = [];
  return {
    infos,
    warns,
    info: (m) => void infos.push(m),
    warn: (m) => void warns.push(m),
    all: () => [...infos, ...warns].join('\n'),
  };
}
