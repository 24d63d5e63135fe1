/**
 * True for a plain JSON object (not null, not an array): what `JSON.parse` gives for `{…}`. Iris's
 * one copy; `@marin/rigging` exports none with this meaning.
 */
export function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}
