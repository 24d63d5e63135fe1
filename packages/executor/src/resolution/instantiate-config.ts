import { FloatValue } from '@marin/rigging';
import { configCycleError, isConfigRecord, mapContainer, mapRecord } from '../dag/config-node.js';
import { ExecutorStep } from '../dag/executor-step.js';
import { InputName } from '../dag/input-name.js';
import { MirroredValue } from '../dag/mirrored-value.js';
import { OutputName } from '../dag/output-name.js';
import { joinName } from '../dag/path-join.js';
import { VersionedValue } from '../dag/versioned-value.js';
import { ExecutorError } from '../errors.js';
import { makePrefixAbsolute } from './make-prefix-absolute.js';
import { MIRROR_SCHEME, mirrorUrlForInput } from './mirror-path.js';

/** Options of {@link instantiateConfig}. */
export interface InstantiateConfigOptions {
  /** The consuming step's own output path, for `OutputName`s; `null` when unknown. */
  outputPath: string | null;
  /** Output paths of every step the config refers to. */
  outputPaths: ReadonlyMap<ExecutorStep, string>;
  /** The prefix hardcoded inputs are relative to. */
  prefix: string;
  /** Keep `FloatValue` markers (for `.executor_info` files, so `float(1)` is written `1.0`). @default false */
  keepFloats?: boolean;
}

/** The error for an `OutputName` with no output path to resolve against (Marin's text). */
export function unresolvedOutputNameError(x: OutputName): ExecutorError {
  return new ExecutorError(
    'EXECUTOR_MATERIALIZE_FAILED',
    `materialize: cannot resolve ${String(x)} — config has no output_path attribute and no explicit ` +
      'output_path was passed to materialize()',
    { details: { name: x.name } },
  );
}

function isPlaceholder(x: object): boolean {
  return (
    x instanceof VersionedValue ||
    x instanceof MirroredValue ||
    x instanceof InputName ||
    x instanceof OutputName ||
    x instanceof ExecutorStep
  );
}

function stripFloats(x: unknown, stack: Set<object>): unknown {
  if (x === null || typeof x !== 'object') return x;
  if (FloatValue.is(x)) return x.value;
  // Placeholders inside a versioned value are not resolved (Marin does not search them either).
  if (isPlaceholder(x)) return x;
  if (!Array.isArray(x) && !(x instanceof Map) && !isConfigRecord(x)) return x;
  if (stack.has(x)) throw configCycleError(null, x.constructor?.name ?? 'object');
  stack.add(x);
  try {
    // Copy on write: a container without FloatValues inside is returned as it is.
    if (Array.isArray(x)) {
      let out: unknown[] | null = null;
      for (let i = 0; i < x.length; i++) {
        const v: unknown = x[i];
        const r = stripFloats(v, stack);
        if (out === null && r !== v) out = x.slice(0, i);
        out?.push(r);
      }
      return out ?? x;
    }
    if (x instanceof Map) {
      const stripped = [...x].map(([k, v]): [unknown, unknown, boolean] => {
        const r = stripFloats(v, stack);
        return [k, r, r !== v];
      });
      return stripped.some((e) => e[2]) ? new Map(stripped.map(([k, r]) => [k, r])) : x;
    }
    const changed = new Map<string, unknown>();
    for (const k of Object.keys(x)) {
      const v = x[k];
      const r = stripFloats(v, stack);
      if (r !== v) changed.set(k, r);
    }
    return changed.size === 0 ? x : mapRecord(x, (v, k) => (changed.has(k) ? changed.get(k) : v));
  } finally {
    stack.delete(x);
  }
}

/**
 * Replaces every `FloatValue` in a resolved config by its number, copying only the containers on the
 * way to one (everything else is shared with `config`). Placeholders are left alone.
 *
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT for a cyclic value.
 */
export function stripFloatValues(config: unknown): unknown {
  return stripFloats(config, new Set());
}

/**
 * A copy of `config` with every placeholder replaced by a concrete value.
 *
 * Step inputs become `<dep output>/<name>`, `OutputName` the own output path (joined with its name),
 * hardcoded inputs `<prefix>/<path>` (absolute ones and URLs as given), `VersionedValue`s their value
 * (not searched for placeholders; only `FloatValue`s inside are stripped), `FloatValue`s their number,
 * and `MirroredValue`s a `mirror://` URL. Arrays, `Map`s and records are rebuilt (records keep their
 * prototype and frozenness); `Set`s and leaves are returned unchanged.
 *
 * @throws {ExecutorError} EXECUTOR_MATERIALIZE_FAILED for an `OutputName` when `outputPath` is null;
 *   EXECUTOR_INVALID_ARGUMENT for a step without an output path (`No output path computed for step <name>`)
 *   or a mirrored input outside the prefix.
 */
export function instantiateConfig<TConfig>(config: TConfig, options: InstantiateConfigOptions): unknown {
  const { outputPath, outputPaths, prefix } = options;
  const keepFloats = options.keepFloats ?? false;
  const stack = new Set<object>();

  const resolveInput = (input: InputName): string => {
    const step = input.step;
    if (step === null) return makePrefixAbsolute(prefix, input.name ?? '');
    const depPath = outputPaths.get(step);
    if (depPath === undefined) {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `No output path computed for step ${step.name}`, {
        details: { step: step.name },
      });
    }
    return joinName(depPath, input.name);
  };

  const resolve = (x: unknown): unknown => {
    if (x === null || typeof x !== 'object') return x;
    if (x instanceof ExecutorStep) return resolveInput(new InputName(x, null));
    if (x instanceof InputName) return resolveInput(x);
    if (x instanceof OutputName) {
      if (outputPath === null) throw unresolvedOutputNameError(x);
      return joinName(outputPath, x.name);
    }
    if (x instanceof VersionedValue) return keepFloats ? x.value : stripFloats(x.value, new Set());
    if (x instanceof MirroredValue) {
      const inner: unknown = x.value;
      if (inner instanceof InputName) return mirrorUrlForInput(inner, outputPaths, prefix);
      if (inner instanceof ExecutorStep) return mirrorUrlForInput(new InputName(inner, null), outputPaths, prefix);
      const r = resolve(inner);
      return typeof r === 'string' && !r.startsWith(MIRROR_SCHEME) ? `${MIRROR_SCHEME}${r}` : r;
    }
    if (FloatValue.is(x)) return keepFloats ? x : x.value;
    if (Array.isArray(x) || x instanceof Map || isConfigRecord(x)) return mapContainer(x, stack, resolve);
    return x;
  };
  return resolve(config);
}
