import { ExecutorError } from '../errors.js';

/**
 * Checks that every `--run-only` pattern compiles as a JS regular expression.
 *
 * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT naming the first pattern that does not compile.
 */
export function compileRunOnly(patterns: readonly string[]): RegExp[] {
  return patterns.map((p) => {
    try {
      return new RegExp(p);
    } catch (cause) {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `invalid run_only regex ${JSON.stringify(p)}`, {
        cause,
        details: { pattern: p, usage: true },
      });
    }
  });
}
