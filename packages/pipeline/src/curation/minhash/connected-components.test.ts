import { describe, expect, it } from 'vitest';
import { ConnectedComponents } from './connected-components.js';

describe('ConnectedComponents', () => {
  it('joins transitively and represents each component by its smallest key, whatever the edge order', () => {
    const edges: [string, string][] = [['d', 'c'], ['x', 'y'], ['c', 'b'], ['b', 'e'], ['z', 'y']];
    for (const order of [edges, [...edges].reverse()]) {
      const cc = new ConnectedComponents();
      for (const [a, b] of order) cc.union(a, b);
      expect(['b', 'c', 'd', 'e'].map((k) => cc.representative(k))).toEqual(['b', 'b', 'b', 'b']);
      expect(['x', 'y', 'z'].map((k) => cc.representative(k))).toEqual(['x', 'x', 'x']);
      expect(cc.componentSize('e')).toBe(4);
    }
  });

  it('treats an unknown key as a singleton and unionAll as one bucket', () => {
    const cc = new ConnectedComponents();
    cc.unionAll(['q', 'p', 'r']);
    cc.unionAll(['solo']);
    expect(cc.representative('r')).toBe('p');
    expect(cc.representative('nope')).toBeUndefined();
    expect(cc.componentSize('nope')).toBe(1);
    expect(cc.componentSize('solo')).toBe(1);
    expect([...cc.entries()].map((e) => e.representative)).toEqual(['p', 'p', 'p', 'solo']);
  });

  it('handles a long chain (no recursion, grows its arrays)', () => {
    const cc = new ConnectedComponents();
    for (let i = 0; i < 50_000; i++) cc.union(`n${i + 1}`, `n${i}`);
    expect(cc.componentSize('n0')).toBe(50_001);
    expect(cc.representative('n49999')).toBe('n0');
  });
});
