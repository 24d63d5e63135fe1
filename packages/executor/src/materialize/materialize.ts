import { marinPrefix } from '@marin/rigging';
import { OutputName } from '../dag/output-name.js';
import { upstreamSteps } from '../dag/upstream-steps.js';
import type { Resolved } from '../dag/resolved.js';
import type { ExecutorStep } from '../dag/executor-step.js';
import { ExecutorError } from '../errors.js';
import { Executor } from '../executor.js';
import type { ExecutorLogger } from '../logger.js';
import { absolutePrefix } from '../resolution/make-prefix-absolute.js';
import { pathJoin } from '../dag/path-join.js';
import { instantiateConfig } from '../resolution/instantiate-config.js';

/** Options of {@link materialize}. */
export interface MaterializeOptions {
  /** Root of all outputs. @default await marinPrefix() */
  prefix?: string | null;
  /** The output path that `OutputName` placeholders resolve to. @default `config.outputPath ?? config.output_path` */
  outputPath?: string | null;
  /** Where the upstream run logs. @default stderr */
  logger?: ExecutorLogger;
}

function configOutputPath(config: unknown): unknown {
  if (typeof config !== 'object' || config === null) return null;
  const rec = config as Record<string, unknown>;
  return rec['outputPath'] ?? rec['output_path'] ?? null;
}

/**
 * Resolves a config that references executor steps: runs the upstream steps it references (once,
 * under the lease protocol, so concurrent callers share one execution) and returns the config with
 * every placeholder replaced by a concrete path. A config without step references is resolved in
 * place without running anything or writing any file.
 *
 * @example
 * const cfg = await materialize({ tokens: tokenize.cd('tokens.bin'), output_path: '/tmp/out' });
 *
 * @throws {ExecutorError} EXECUTOR_MATERIALIZE_FAILED when the current output path is still an
 * unresolved `OutputName`; any error of `Executor.run()` for the upstream steps.
 */
export async function materialize<TConfig>(config: TConfig, options: MaterializeOptions = {}): Promise<Resolved<TConfig>> {
  const steps: ExecutorStep[] = upstreamSteps(config);
  const prefix = absolutePrefix(options.prefix ?? (await marinPrefix()));
  let outputPaths = new Map<ExecutorStep, string>();
  if (steps.length > 0) {
    const executorOptions = { prefix, executorInfoBasePath: pathJoin(prefix, 'experiments') };
    const executor = new Executor(options.logger ? { ...executorOptions, logger: options.logger } : executorOptions);
    outputPaths = await executor.run(steps);
  }
  const current = options.outputPath ?? configOutputPath(config);
  if (current instanceof OutputName) {
    throw new ExecutorError(
      'EXECUTOR_MATERIALIZE_FAILED',
      'materialize: cannot resolve OutputName(output_path): the config output path is itself an unresolved OutputName; pass an explicit outputPath',
      { details: { field: 'output_path' } },
    );
  }
  const outputPath = typeof current === 'string' ? current : null;
  return instantiateConfig(config, { outputPath, outputPaths, prefix }) as Resolved<TConfig>;
}
