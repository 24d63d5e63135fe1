import { FloatValue } from '@marin/rigging';
import { isConfigRecord, mapContainer } from '../dag/config-node.js';
import { ExecutorStep } from '../dag/executor-step.js';
import { InputName } from '../dag/input-name.js';
import { MirroredValue } from '../dag/mirrored-value.js';
import { OutputName } from '../dag/output-name.js';
import { joinName } from '../dag/path-join.js';
import { VersionedValue } from '../dag/versioned-value.js';
import { unresolvedOutputNameError } from './instantiate-config.js';

/**
 * Resolves what a submitter can resolve in place: `OutputName` → path under
 * `outputPath`; `VersionedValue` → its value, resolved the same way (so wrappers nested inside are
 * removed and an `OutputName` inside is resolved, as in Marin); `FloatValue` → number; `MirroredValue` → rebuilt
 * around its resolved inner value (the wrapper is kept); `InputName` and `ExecutorStep` untouched.
 * Recurses into records, `Map`s and arrays.
 *
 * @throws {ExecutorError} EXECUTOR_MATERIALIZE_FAILED for an `OutputName` when `outputPath` is null;
 *   EXECUTOR_INVALID_ARGUMENT for a cyclic config.
 */
export function resolveLocalPlaceholders<TConfig>(config: TConfig, outputPath: string | null): unknown {
  const stack = new Set<object>();
  const resolve = (x: unknown): unknown => {
    if (x === null || typeof x !== 'object') return x;
    if (x instanceof OutputName) {
      if (outputPath === null) throw unresolvedOutputNameError(x);
      return joinName(outputPath, x.name);
    }
    // Like Marin: the inner value goes through the same resolution (nested wrappers removed).
    if (x instanceof VersionedValue) return resolve(x.value);
    if (FloatValue.is(x)) return x.value;
    if (x instanceof MirroredValue) return new MirroredValue(resolve(x.value), x.budgetGb);
    if (x instanceof InputName || x instanceof ExecutorStep) return x;
    if (Array.isArray(x) || x instanceof Map || isConfigRecord(x)) return mapContainer(x, stack, resolve);
    return x;
  };
  return resolve(config);
}

