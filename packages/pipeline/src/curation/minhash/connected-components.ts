/**
 * Connected components of an undirected graph over string node keys (union-find with path halving and union by
 * size). Each component's representative is its smallest key (JavaScript string order), so the result does not
 * depend on the order edges arrive in — the property Marin gets from Hash-to-Min's `min(id_norm)`.
 */
export class ConnectedComponents {
  private readonly index = new Map<string, number>();
  private readonly keys: string[] = [];
  private parent: Int32Array = new Int32Array(1024);
  private size: Int32Array = new Int32Array(1024);
  /** Smallest key of each root's component, by node index of the root. */
  private minKey: string[] = [];

  /** Number of nodes seen. */
  get nodeCount(): number {
    return this.keys.length;
  }

  /** Adds a node (idempotent) and returns its index. */
  add(key: string): number {
    const known = this.index.get(key);
    if (known !== undefined) return known;
    const i = this.keys.length;
    if (i === this.parent.length) {
      this.parent = grow(this.parent);
      this.size = grow(this.size);
    }
    this.index.set(key, i);
    this.keys.push(key);
    this.parent[i] = i;
    this.size[i] = 1;
    this.minKey[i] = key;
    return i;
  }

  /** Joins the components of two nodes (adding them if new). */
  union(a: string, b: string): void {
    let ra = this.find(this.add(a));
    let rb = this.find(this.add(b));
    if (ra === rb) return;
    if ((this.size[ra] as number) < (this.size[rb] as number)) [ra, rb] = [rb, ra];
    this.parent[rb] = ra;
    this.size[ra] = (this.size[ra] as number) + (this.size[rb] as number);
    const ka = this.minKey[ra] as string;
    const kb = this.minKey[rb] as string;
    if (kb < ka) this.minKey[ra] = kb;
  }

  /** Joins every key of a group (one LSH bucket) into one component. */
  unionAll(keys: readonly string[]): void {
    const first = keys[0];
    if (first === undefined) return;
    this.add(first);
    for (let i = 1; i < keys.length; i++) this.union(first, keys[i] as string);
  }

  /** The representative (smallest key) of a node's component, or `undefined` for an unknown key. */
  representative(key: string): string | undefined {
    const i = this.index.get(key);
    return i === undefined ? undefined : (this.minKey[this.find(i)] as string);
  }

  /** The size of a node's component (1 for an unknown key: a singleton). */
  componentSize(key: string): number {
    const i = this.index.get(key);
    return i === undefined ? 1 : (this.size[this.find(i)] as number);
  }

  /** Every node with its representative and component size, in insertion order. */
  *entries(): IterableIterator<{ key: string; representative: string; size: number }> {
    for (let i = 0; i < this.keys.length; i++) {
      const root = this.find(i);
      yield { key: this.keys[i] as string, representative: this.minKey[root] as string, size: this.size[root] as number };
    }
  }

  private find(i: number): number {
    let x = i;
    const parent = this.parent;
    while (parent[x] !== x) {
      const grand = parent[parent[x] as number] as number;
      parent[x] = grand;
      x = grand;
    }
    return x;
  }
}

function grow(a: Int32Array): Int32Array {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}
