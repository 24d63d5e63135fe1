import type { ExecutorStep } from '../dag/executor-step.js';
import { setOwn } from '../dag/config-node.js';
import { visitConfigRaw } from '../dag/walk-config.js';

/** What a step's config contributes to its version. */
export interface CollectedDependencies {
  /** Blocking dependencies, in walk order, duplicates kept. */
  readonly dependencies: ExecutorStep[];
  /** Nonblocking (pseudo) dependencies, in walk order, duplicates kept. */
  readonly pseudoDependencies: ExecutorStep[];
  /** Versioned fields, hardcoded input paths and `DEP[i]` markers keyed by walk prefix, in walk order. */
  readonly configVersion: Record<string, unknown>;
}

/**
 * Walks a config and collects its dependencies and config version (Marin's
 * `collect_dependencies_and_version`).
 *
 * `versioned` values enter as they are; a hardcoded input contributes its raw relative path; a step
 * input contributes `DEP[i]` (plus `/name` when it has a sub-name), where `i` counts blocking and
 * pseudo-dependencies together. Nothing else enters the version.
 *
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT for a non-string `Map` key or a cyclic config.
 */
export function collectDependenciesAndVersion(config: unknown): CollectedDependencies {
  const dependencies: ExecutorStep[] = [];
  const pseudoDependencies: ExecutorStep[] = [];
  const configVersion: Record<string, unknown> = {};
  visitConfigRaw(config, {
    versioned: (prefix, value) => setOwn(configVersion, prefix, value),
    input: (prefix, step, name, blockOnStep) => {
      if (step === null) {
        setOwn(configVersion, prefix, name);
        return;
      }
      const index = dependencies.length + pseudoDependencies.length;
      (blockOnStep ? dependencies : pseudoDependencies).push(step);
      setOwn(configVersion, prefix, name !== null && name !== '' ? `DEP[${index}]/${name}` : `DEP[${index}]`);
    },
  });
  return { dependencies, pseudoDependencies, configVersion };
}
