import type { LeaseTimings } from '@marin/rigging';
import type { ExecutorStep } from '../dag/executor-step.js';
import type { StepStatus } from '../status/status.js';
import type { RunConfig } from './run-options.js';

/** What `Executor.run()` reads and decides before scheduling. */
export interface PreparedRun {
  config: RunConfig;
  timings: LeaseTimings;
  stepsToRun: ExecutorStep[];
  /** Steps not needed because what they feed is already built, each with the built step it feeds. */
  pruned: Map<ExecutorStep, ExecutorStep>;
  statuses: Map<ExecutorStep, StepStatus | null>;
  /** `.executor_info` text read during verify-on-hit, to skip identical rewrites. */
  infoTexts: Map<ExecutorStep, string | null>;
  /** SUCCESS outputs whose stored version differs (override paths): their info is never overwritten. */
  keepInfo: Set<ExecutorStep>;
  /** Steps matched by `forceRun`: run again whatever their status. */
  forced: Set<ExecutorStep>;
  /** SUCCESS outputs whose recorded config differs from this run's (unversioned values): the changed fields. */
  unversioned: Map<ExecutorStep, string>;
}
