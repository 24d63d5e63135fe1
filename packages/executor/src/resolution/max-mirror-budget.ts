import { isConfigRecord } from '../dag/config-node.js';
import { ExecutorStep } from '../dag/executor-step.js';
import { InputName } from '../dag/input-name.js';
import { MirroredValue } from '../dag/mirrored-value.js';
import { OutputName } from '../dag/output-name.js';
import { VersionedValue } from '../dag/versioned-value.js';

/**
 * The largest `budgetGb` among the `MirroredValue`s of a raw (unresolved) config, or `null` when it
 * has none. Searched through records, `Map` values, arrays and `VersionedValue`s, never through
 * `InputName`s or steps. The executor runs the step inside rigging's `mirrorBudget` with it.
 */
export function maxMirrorBudgetGb(rawConfig: unknown): number | null {
  let max: number | null = null;
  const seen = new Set<object>();
  const visit = (x: unknown): void => {
    if (x === null || typeof x !== 'object' || seen.has(x)) return;
    if (x instanceof InputName || x instanceof ExecutorStep || x instanceof OutputName) return;
    seen.add(x);
    if (x instanceof MirroredValue) {
      max = max === null ? x.budgetGb : Math.max(max, x.budgetGb);
      return;
    }
    if (x instanceof VersionedValue) visit(x.value);
    else if (Array.isArray(x)) for (const v of x) visit(v);
    else if (x instanceof Map) for (const v of x.values()) visit(v);
    else if (isConfigRecord(x)) for (const k of Object.keys(x)) visit(x[k]);
  };
  visit(rawConfig);
  return max;
}
