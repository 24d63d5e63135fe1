import { ConnectedComponents } from '../minhash/connected-components.js';
import { hashString32, shingleSet } from '../minhash/shingles.js';

/** A pair of documents (by index, `a < b`) with the exact Jaccard similarity of their shingle sets. */
export interface JaccardPair {
  a: number;
  b: number;
  jaccard: number;
}

/**
 * The exact Jaccard similarity of every pair of documents that share at least one shingle — a superset of every
 * pair at or above any threshold above zero. Candidates come from an inverted index of shingle hashes (a hash
 * collision only adds a candidate); each candidate's similarity is computed on the shingle strings themselves.
 */
export function exactJaccardPairs(texts: readonly string[], ngramSize: number): JaccardPair[] {
  const sets = texts.map((t) => shingleSet(t, ngramSize));
  const postings = new Map<number, number[]>();
  for (const [doc, set] of sets.entries()) {
    const seen = new Set<number>();
    for (const s of set) {
      const h = hashString32(s);
      if (seen.has(h)) continue;
      seen.add(h);
      const list = postings.get(h);
      if (list === undefined) postings.set(h, [doc]);
      else list.push(doc);
    }
  }
  const candidates = new Set<number>();
  const pairs: JaccardPair[] = [];
  const n = texts.length;
  for (const list of postings.values()) {
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const a = list[i] as number;
        const b = list[j] as number;
        const code = a * n + b;
        if (candidates.has(code)) continue;
        candidates.add(code);
        pairs.push({ a, b, jaccard: jaccard(sets[a] as Set<string>, sets[b] as Set<string>) });
      }
    }
  }
  pairs.sort((x, y) => x.a - y.a || x.b - y.b);
  return pairs;
}

/** Exact Jaccard similarity of two sets (1 for two empty sets). */
export function jaccard<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let inter = 0;
  for (const x of small) if (large.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}

/**
 * The true duplicate clusters at a threshold: connected components of the graph whose edges are the pairs at or
 * above it. Returns each document's cluster label (the smallest index in its cluster), by index.
 */
export function thresholdClusters(count: number, pairs: readonly JaccardPair[], threshold: number): number[] {
  const cc = new ConnectedComponents();
  const key = (i: number): string => i.toString().padStart(10, '0');
  for (const p of pairs) if (p.jaccard >= threshold) cc.union(key(p.a), key(p.b));
  return Array.from({ length: count }, (_, i) => Number(cc.representative(key(i)) ?? i));
}
