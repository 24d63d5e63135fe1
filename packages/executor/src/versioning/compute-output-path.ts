import { marinPrefix } from '@marin/rigging';
import { ExecutorStep } from '../dag/executor-step.js';
import { ExecutorError } from '../errors.js';
import { silentLogger } from '../logger.js';
import { VersionGraph } from './version-graph.js';
import { absolutePrefix } from '../resolution/make-prefix-absolute.js';

/** Options of {@link computeOutputPath}. */
export interface ComputeOutputPathOptions {
  /** Pin the output path (relative ones are joined to the prefix). @default null */
  overrideOutputPath?: string | null;
  /**
   * Root of all outputs; a relative local prefix is made absolute, as the executor does.
   * @default await marinPrefix() (`MARIN_PREFIX`, the cluster config, the regional bucket or `/tmp/marin`)
   */
  prefix?: string;
}

/**
 * The output path `Executor.run` would give a step named `name` with `config`, without running
 * anything or touching any file (besides prefix resolution): builds a throwaway step and versions it.
 *
 * @example
 * await computeOutputPath('my-step', { n: versioned(3) }, { prefix: '/tmp/marin' }); // '/tmp/marin/my-step-<hash6>'
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT for a bad name, prefix or config.
 */
export async function computeOutputPath(
  name: string,
  config: unknown,
  options: ComputeOutputPathOptions = {},
): Promise<string> {
  const prefix = options.prefix ?? (await marinPrefix());
  if (typeof prefix !== 'string' || prefix === '') {
    throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', 'computeOutputPath() needs a non-empty prefix', {
      details: { prefix },
    });
  }
  const graph = new VersionGraph({ prefix: absolutePrefix(prefix), logger: silentLogger });
  const step = new ExecutorStep({ name, fn: null, config, overrideOutputPath: options.overrideOutputPath ?? null });
  graph.computeVersion(step, false);
  return graph.outputPaths.get(step) as string;
}
