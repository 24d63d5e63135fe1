/**
 * Marin's document ids of a few texts — xxh3_128 of the UTF-8 bytes, formatted "032x" — as Python's
 * `xxhash` 3.x computes them: the oracle of every test of the id hash.
 */
export const PYTHON_XXH3_128_IDS: readonly (readonly [text: string, id: string])[] = [
  ['', '99aa06d3014798d86001c324468d497f'],
  ['a', 'a96faf705af16834e6c632b61e964e1f'],
  ['hello world', 'df8d09e93f874900a99b8775cc15b6c7'],
  ['ünïcödé ✓ 🙂', 'cb44d23384f62d3709f8f2787160231a'],
  ['x'.repeat(1000), '50a1af5a5f2dcf01c0a4877b962cba82'],
];
