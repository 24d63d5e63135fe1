/**
 * Orders keys as the dataflow layer sorts them: strings by UTF-16 code unit (the same as byte order for
 * the ASCII ids stages use), numbers and bigints numerically, `null`/`undefined` first.
 */
export function compareKeys(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : 1;
  return Number(a) < Number(b) ? -1 : Number(a) > Number(b) ? 1 : 0;
}

interface Head<T> {
  value: T;
  source: number;
  it: AsyncIterator<T>;
}

/**
 * Merges sorted record streams into one sorted stream by `key` (a k-way merge on a binary heap). Ties
 * keep source order, so the merge is stable. Memory holds one record per source.
 */
export async function* mergeSorted<T extends Record<string, unknown>>(sources: readonly AsyncIterable<T>[], key: string): AsyncGenerator<T> {
  const heap: Head<T>[] = [];
  const less = (x: Head<T>, y: Head<T>): boolean => {
    const c = compareKeys(x.value[key], y.value[key]);
    return c < 0 || (c === 0 && x.source < y.source);
  };
  const push = (h: Head<T>): void => {
    heap.push(h);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!less(heap[i] as Head<T>, heap[parent] as Head<T>)) break;
      [heap[i], heap[parent]] = [heap[parent] as Head<T>, heap[i] as Head<T>];
      i = parent;
    }
  };
  const pop = (): Head<T> => {
    const top = heap[0] as Head<T>;
    const last = heap.pop() as Head<T>;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && less(heap[l] as Head<T>, heap[m] as Head<T>)) m = l;
        if (r < heap.length && less(heap[r] as Head<T>, heap[m] as Head<T>)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m] as Head<T>, heap[i] as Head<T>];
        i = m;
      }
    }
    return top;
  };
  const iterators = sources.map((s) => s[Symbol.asyncIterator]());
  try {
    for (let i = 0; i < iterators.length; i++) {
      const it = iterators[i] as AsyncIterator<T>;
      const n = await it.next();
      if (n.done !== true) push({ value: n.value, source: i, it });
    }
    while (heap.length > 0) {
      const h = pop();
      yield h.value;
      const n = await h.it.next();
      if (n.done !== true) push({ value: n.value, source: h.source, it: h.it });
    }
  } finally {
    await Promise.all(iterators.map((it) => it.return?.()));
  }
}
