import type { ExecutorStep } from '../dag/executor-step.js';
import type { InputName } from '../dag/input-name.js';
import { joinName } from '../dag/path-join.js';
import { ExecutorError } from '../errors.js';
import { hasScheme } from './make-prefix-absolute.js';

/** The scheme every mirrored path is rewritten to. */
export const MIRROR_SCHEME = 'mirror://';

function outside(path: string, prefix: string, input: InputName): ExecutorError {
  return new ExecutorError(
    'EXECUTOR_INVALID_ARGUMENT',
    `mirrored input "${path}" is not under the prefix "${prefix}"; mirror:// paths are relative to the prefix`,
    { details: { path, prefix, input: String(input) } },
  );
}

/**
 * The `mirror://` URL of a mirrored `InputName`: the input's path **relative to the prefix**
 * (`mirror://<name>` for a hardcoded input, `mirror://<dep name>-<hash6>[/name]` for a step input).
 * Marin writes `mirror://<absolute path>`, which its mirror filesystem cannot resolve.
 *
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT when the input resolves outside the prefix or its
 *   relative path contains `.`/`..` segments; also when a step input's output path is unknown.
 */
export function mirrorUrlForInput(
  input: InputName,
  outputPaths: ReadonlyMap<ExecutorStep, string>,
  prefix: string,
): string {
  let rel: string;
  const step = input.step;
  const name = input.name ?? '';
  if (step === null && !hasScheme(name) && !name.startsWith('/')) {
    rel = name;
  } else {
    let full: string;
    if (step === null) {
      full = name;
    } else {
      const depPath = outputPaths.get(step);
      if (depPath === undefined) {
        throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `No output path computed for step ${step.name}`, {
          details: { step: step.name },
        });
      }
      full = joinName(depPath, name);
    }
    const base = prefix.replace(/\/+$/, '');
    if (!full.startsWith(`${base}/`)) throw outside(full, prefix, input);
    rel = full.slice(base.length + 1);
  }
  const segments = rel.split('/');
  if (rel === '' || segments.some((s) => s === '..' || s === '.')) throw outside(rel, prefix, input);
  return `${MIRROR_SCHEME}${rel}`;
}
