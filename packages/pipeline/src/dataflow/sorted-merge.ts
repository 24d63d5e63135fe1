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

/**
 * A sorted stream read a batch at a time, for {@link forEachMerged}: `rows[index]` is its current record;
 * `next()` replaces `rows` with the next batch (and resets `index` to 0), resolving false at the end.
 */
export interface SortedBatchSource<T> {
  rows: readonly T[];
  index: number;
  next(): Promise<boolean>;
}

/**
 * Merges sorted batch sources by `key` (a k-way merge on a binary heap, ties in source order, as
 * {@link mergeSorted}) and calls `visit` with each record in order. The merge runs synchronously: it
 * awaits only a source that needs its next batch, and a promise `visit` returns (so a consumer that
 * returns `undefined` for most records pays for no promise per record). Call it on fresh sources: it
 * loads each one's first batch.
 */
export async function forEachMerged<T extends Record<string, unknown>>(
  sources: readonly SortedBatchSource<T>[],
  key: string,
  visit: (record: T) => Promise<void> | undefined,
): Promise<void> {
  const heap: number[] = [];
  const keys: unknown[] = new Array<unknown>(sources.length);
  const less = (x: number, y: number): boolean => {
    const c = compareKeys(keys[x], keys[y]);
    return c < 0 || (c === 0 && x < y);
  };
  const siftDown = (): void => {
    let i = 0;
    const n = heap.length;
    const top = heap[0] as number;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const m = r < n && less(heap[r] as number, heap[l] as number) ? r : l;
      if (!less(heap[m] as number, top)) break;
      heap[i] = heap[m] as number;
      i = m;
    }
    heap[i] = top;
  };
  const siftUp = (i: number): void => {
    const s = heap[i] as number;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!less(s, heap[parent] as number)) break;
      heap[i] = heap[parent] as number;
      i = parent;
    }
    heap[i] = s;
  };
  const ready = async (s: number): Promise<boolean> => {
    const source = sources[s] as SortedBatchSource<T>;
    while (source.index >= source.rows.length) if (!(await source.next())) return false;
    keys[s] = (source.rows[source.index] as T)[key];
    return true;
  };
  for (let s = 0; s < sources.length; s++) {
    if (await ready(s)) {
      heap.push(s);
      siftUp(heap.length - 1);
    }
  }
  while (heap.length > 0) {
    const s = heap[0] as number;
    const source = sources[s] as SortedBatchSource<T>;
    const pending = visit(source.rows[source.index] as T);
    if (pending !== undefined) await pending;
    source.index += 1;
    if (source.index < source.rows.length) keys[s] = (source.rows[source.index] as T)[key];
    else if (!(await ready(s))) {
      const last = heap.pop() as number;
      if (heap.length === 0) break;
      heap[0] = last;
    }
    siftDown();
  }
}
