/** Edit distance (insertions, deletions, substitutions) between two strings. */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/**
 * The candidates closest to `input`, best first (at most `limit`): those within an edit distance of
 * about a third of the input's length (at least 1), plus those containing it, case-insensitively.
 */
export function closestMatches(input: string, candidates: Iterable<string>, limit = 3): string[] {
  const needle = input.toLowerCase();
  const maxDistance = Math.max(1, Math.floor(needle.length / 3));
  const scored: { name: string; score: number }[] = [];
  for (const name of new Set(candidates)) {
    const hay = name.toLowerCase();
    const tail = hay.slice(hay.lastIndexOf('/') + 1);
    const distance = Math.min(editDistance(needle, hay), editDistance(needle, tail));
    if (distance <= maxDistance) scored.push({ name, score: distance });
    else if (needle.length >= 3 && hay.includes(needle)) scored.push({ name, score: maxDistance + 1 });
  }
  return scored
    .sort((x, y) => x.score - y.score || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0))
    .slice(0, limit)
    .map((s) => s.name);
}
