import { z } from 'zod';
import { ExecutorError } from './errors.js';
import type { InputName } from './dag/input-name.js';
import type { ExecutorStep } from './dag/executor-step.js';
import type { ExecutorLogger } from './logger.js';
import type { ProgressStream } from './progress/progress-reporter.js';
import type { StepRunner } from './run/step-runner.js';

/** Constructor options of `Executor`. */
export interface ExecutorOptions {
  /** Root URL or local path of all outputs; a relative local path is made absolute. */
  prefix: string;
  /** Where the experiment JSON goes. @default `<prefix>/experiments` */
  executorInfoBasePath?: string | null;
  /** Free text about the experiment (not written, as in Marin). @default null */
  description?: string | null;
  /** Where log lines go. @default lines on stderr (through the progress display during a run) */
  logger?: ExecutorLogger;
  /**
   * Executes step bodies inside the lease: plain steps inline, remote steps (a `RemoteCallable` fn or
   * `resources`) as Fray jobs through `currentClient()`.
   * @default new DispatchStepRunner()
   */
  runner?: StepRunner;
  /** Where the progress display (and default log lines during a run) is written. @default process.stderr */
  progressStream?: ProgressStream;
}

const ExecutorOptionsSchema = z.object({
  prefix: z.string().trim().min(1),
  executorInfoBasePath: z.string().trim().min(1).nullish(),
  description: z.string().nullish(),
  logger: z.custom<ExecutorLogger>((v) => typeof v === 'object' && v !== null && typeof (v as ExecutorLogger).info === 'function' && typeof (v as ExecutorLogger).warn === 'function').optional(),
  progressStream: z.custom<ProgressStream>((v) => typeof v === 'object' && v !== null && typeof (v as ProgressStream).write === 'function').optional(),
  runner: z.custom<StepRunner>((v) => typeof v === 'object' && v !== null && typeof (v as StepRunner).run === 'function' && typeof (v as StepRunner).check === 'function').optional(),
});

/** One entry of `run()`'s step list: a step, a reference to one, or `null` (skipped). */
export type StepEntry = ExecutorStep | InputName | null | undefined;

/**
 * Checks `Executor`'s options.
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT for an empty prefix or a malformed option.
 */
export function parseExecutorOptions(options: ExecutorOptions): void {
  const parsed = ExecutorOptionsSchema.safeParse(options ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || 'options';
    throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `invalid executor option ${field}: ${issue?.message ?? 'malformed'}`, {
      cause: parsed.error,
      details: { field, issues: parsed.error.issues },
    });
  }
}
