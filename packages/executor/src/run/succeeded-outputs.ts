import { mapLimit } from '@marin/rigging';
import type { ExecutorStep } from '../dag/executor-step.js';
import type { ExecutorLogger } from '../logger.js';
import { verifyOnHit } from '../status/verify-on-hit.js';
import { summarizeChanges, unversionedChanges } from './run-reason.js';

/** What verify-on-hit found for the SUCCESS outputs of a run. */
export interface SucceededOutputs {
  /** `.executor_info` text read, to skip identical rewrites. */
  infoTexts: Map<ExecutorStep, string | null>;
  /** Outputs whose stored version differs (override paths): their info is never overwritten. */
  keepInfo: Set<ExecutorStep>;
  /** Outputs whose recorded config differs from this run's in unversioned values: the changed fields. */
  unversioned: Map<ExecutorStep, string>;
}

/** Runs verify-on-hit over the SUCCESS outputs (bounded concurrency) and notes unversioned config changes. */
export async function checkSucceeded(
  succeeded: readonly ExecutorStep[],
  options: {
    concurrency: number;
    target: (step: ExecutorStep) => Parameters<typeof verifyOnHit>[0];
    config: (step: ExecutorStep) => unknown;
    forced: ReadonlySet<ExecutorStep>;
    logger: ExecutorLogger;
  },
): Promise<SucceededOutputs> {
  const infoTexts = new Map<ExecutorStep, string | null>();
  const keepInfo = new Set<ExecutorStep>();
  const unversioned = new Map<ExecutorStep, string>();
  await mapLimit(succeeded, options.concurrency, async (s) => {
    const result = await verifyOnHit(options.target(s), options.logger);
    infoTexts.set(s, result.infoText);
    if (!result.matches && result.infoText !== null) keepInfo.add(s);
    if (result.matches && !options.forced.has(s)) {
      const changes = unversionedChanges(result.infoText, options.config(s));
      if (changes.length > 0) unversioned.set(s, summarizeChanges(changes));
    }
  });
  return { infoTexts, keepInfo, unversioned };
}
