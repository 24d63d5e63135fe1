import { ExecutorError } from '../errors.js';

/** The text each compiled pattern was typed as (`source` escapes `/` and more). */
const TYPED = new WeakMap<RegExp, string>();

/** The pattern as the user typed it. */
export function patternText(re: RegExp): string {
  return TYPED.get(re) ?? re.source;
}

/**
 * Checks that every `--run-only` (or `--force-run`) pattern compiles as a JS regular expression.
 *
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT naming the first pattern that does not compile, as typed.
 */
export function compileRunOnly(patterns: readonly string[], flag = '--run-only'): RegExp[] {
  return patterns.map((p) => {
    try {
      const re = new RegExp(p);
      TYPED.set(re, p);
      return re;
    } catch (cause) {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `${flag} ${JSON.stringify(p)} is not a valid regular expression`, {
        cause,
        details: { pattern: p, usage: true },
      });
    }
  });
}
