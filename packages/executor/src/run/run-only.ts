import { ExecutorError } from '../errors.js';
import { closestMatches } from '../internal/suggest.js';

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

/**
 * The error for `--run-only` / `--force-run` patterns that match no step: the patterns as typed, close step
 * names per pattern (`details.suggestions`), or a few step names when nothing is close.
 */
export function unmatchedPatternsError(flag: string, unmatched: readonly RegExp[], names: readonly string[]): ExecutorError {
  const typed = unmatched.map(patternText);
  const suggestions = Object.fromEntries(typed.map((t) => [t, closestMatches(t.replace(/^\^|\$$/g, ''), names)]));
  const hint = [...new Set(Object.values(suggestions).flat())];
  // With nothing close, name a few steps so the line still says what exists.
  const known = [...new Set(names)];
  const tail =
    hint.length > 0
      ? `; did you mean ${hint.join(', ')}?`
      : `; steps: ${known.slice(0, 5).join(', ')}${known.length > 5 ? `, … (${known.length} in all)` : ''}`;
  return new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `${flag} ${typed.map((t) => JSON.stringify(t)).join(', ')} matched no step${tail}`, {
    details: { unmatched: typed, suggestions, usage: true },
  });
}
