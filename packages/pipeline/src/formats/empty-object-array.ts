const SEED = {};

/**
 * An empty array that is already an array of objects to V8. A literal `[]` starts as an array of small
 * integers and changes its map (its elements kind) at its first `push` of an object or string: compiled
 * code that pushes into such arrays then deoptimizes ("wrong map", "not a Smi") each time it meets a
 * fresh one (a buffer replaced after a spill or a row group, the next task's writer). V8 only sometimes
 * learns the kind at the literal's site (not once the array has been moved out of the young
 * generation before its first push), so the arrays that hot loops push into are made with this.
 */
export function emptyObjectArray<T>(): T[] {
  const a = [SEED] as unknown[];
  a.pop();
  return a as T[];
}
