import type { StepProgress } from '../dag/types.js';
import type { OutputLevel } from './progress-mode.js';
import type { ProgressReporter } from './progress-reporter.js';

/** The `ctx.progress` of the running step `label`: its status and notes go through the run's display. */
export function stepProgress(reporter: ProgressReporter, label: string, level: OutputLevel): StepProgress {
  return {
    level,
    status: (text) => reporter.status(label, text),
    note: (text) => {
      if (level !== 'quiet') reporter.log(`  ↳ ${text}`);
    },
  };
}
