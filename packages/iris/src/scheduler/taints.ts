import type { Constraint } from './types.js';

/** Prefix of taint attributes: a worker with `taint:<x>` only takes jobs that mention `taint:<x>`. */
export const TAINT_PREFIX = 'taint:';

/**
 * The implicit `taint:<x> NOT_EXISTS` constraints a job gets for every taint among `taintKeys`
 * that its own constraints do not mention (in any op or mode).
 */
export function implicitTaintConstraints(constraints: readonly Constraint[], taintKeys: Iterable<string>): Constraint[] {
  const mentioned = new Set(constraints.map((c) => c.key));
  const implicit: Constraint[] = [];
  for (const key of taintKeys) {
    if (key.startsWith(TAINT_PREFIX) && !mentioned.has(key)) implicit.push({ key, op: 'NOT_EXISTS', mode: 'REQUIRED' });
  }
  return implicit;
}
