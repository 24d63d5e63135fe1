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
 * What {@link forEachMerged} hands each record to: a function, or an object whose `visit` method is
 * called. A class's method is the same call target in every merge, so the engine compiles the merge
 * loop around it once; a closure made per task is a new target each time (the loop is recompiled for
 * every task once the previous task's closure is collected).
 */
export type RecordVisitor<T> = ((record: T) => Promise<void> | undefined) | { visit(record: T): Promise<void> | undefined };

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
  visit: RecordVisitor<T>,
): Promise<void> {
  const visitor = typeof visit === 'function' ? new FunctionVisitor(visit) : visit;
  const merge = new BatchMerge<T>(sources, key);
  for (let s = 0; s < sources.length; s++) if (await loadBatch(sources[s] as SortedBatchSource<T>)) merge.add(s);
  // The per-record loop is BatchMerge.drain, a small synchronous method compiled once for every merge;
  // this async function only waits, so the engine never recompiles it around a hot loop.
  while (merge.drain(visitor)) {
    const { pending, exhausted } = merge;
    merge.pending = undefined;
    merge.exhausted = -1;
    if (pending !== undefined) await pending;
    if (exhausted >= 0 && (await loadBatch(sources[exhausted] as SortedBatchSource<T>))) merge.add(exhausted);
  }
}

/** A function visitor as an object visitor. */
class FunctionVisitor<T> {
  constructor(private readonly fn: (record: T) => Promise<void> | undefined) {}

  visit(record: T): Promise<void> | undefined {
    return this.fn(record);
  }
}

/** Loads batches until `source` has a current record; false at its end. */
async function loadBatch<T>(source: SortedBatchSource<T>): Promise<boolean> {
  while (source.index >= source.rows.length) if (!(await source.next())) return false;
  return true;
}

/**
 * The synchronous part of {@link forEachMerged}: a binary heap of the sources that have a current record,
 * ordered by (current key, source index). The order is total, so taking a source out of the heap while
 * its next batch loads and adding it back gives the same sequence as keeping it in.
 */
class BatchMerge<T extends Record<string, unknown>> {
  private readonly heap: number[] = [];
  private readonly keys: unknown[];
  /** Set by {@link drain} when `visit` returned a promise: await it before draining again. */
  pending: Promise<void> | undefined = undefined;
  /** Set by {@link drain} to a source whose batch ran out (it left the heap): load its next batch and {@link add} it. */
  exhausted = -1;

  constructor(
    private readonly sources: readonly SortedBatchSource<T>[],
    private readonly key: string,
  ) {
    this.keys = new Array<unknown>(sources.length).fill(null);
  }

  /** Adds source `s`, which has a current record. */
  add(s: number): void {
    const source = this.sources[s] as SortedBatchSource<T>;
    this.keys[s] = (source.rows[source.index] as T)[this.key];
    this.heap.push(s);
    this.siftUp(this.heap.length - 1);
  }

  /**
   * Visits records in order until the heap is empty (returns false), or `visit` returned a promise
   * ({@link pending}), or a source's batch ran out ({@link exhausted}); then returns true.
   */
  drain(visitor: { visit(record: T): Promise<void> | undefined }): boolean {
    const { heap, sources, keys, key } = this;
    while (heap.length > 0) {
      const s = heap[0] as number;
      const source = sources[s] as SortedBatchSource<T>;
      const pending = visitor.visit(source.rows[source.index] as T);
      source.index += 1;
      let exhausted = false;
      if (source.index < source.rows.length) keys[s] = (source.rows[source.index] as T)[key];
      else {
        exhausted = true;
        const last = heap.pop() as number;
        if (heap.length > 0) heap[0] = last;
      }
      if (heap.length > 0) this.siftDown();
      if (pending !== undefined || exhausted) {
        this.pending = pending;
        this.exhausted = exhausted ? s : -1;
        return true;
      }
    }
    return false;
  }

  private less(x: number, y: number): boolean {
    const c = compareKeys(this.keys[x], this.keys[y]);
    return c < 0 || (c === 0 && x < y);
  }

  private siftDown(): void {
    const { heap } = this;
    let i = 0;
    const n = heap.length;
    const top = heap[0] as number;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const m = r < n && this.less(heap[r] as number, heap[l] as number) ? r : l;
      if (!this.less(heap[m] as number, top)) break;
      heap[i] = heap[m] as number;
      i = m;
    }
    heap[i] = top;
  }

  private siftUp(i: number): void {
    const { heap } = this;
    const s = heap[i] as number;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(s, heap[parent] as number)) break;
      heap[i] = heap[parent] as number;
      i = parent;
    }
    heap[i] = s;
  }
}
