import { float } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { diffVersions, flattenVersion, formatChange } from './version-diff.js';

describe('diffVersions()', () => {
  it('flattens versions into version paths with compact values', () => {
    const leaves = flattenVersion({ name: 'x', config: { 'a.b': 1, lr: float(1) }, dependencies: [] });
    expect([...leaves]).toEqual([
      ['name', '"x"'],
      ['config.a.b', '1'],
      ['config.lr', '1.0'],
      ['dependencies', '[]'],
    ]);
  });

  it('lists changed, added and removed leaves', () => {
    const before = {
      name: 's',
      config: { tokenizer: 'llama2', glob: '*.jsonl.gz' },
      dependencies: [{ config: { n: 3 } }, 'tokenize-aaaaaa'],
    };
    const after = {
      name: 's',
      config: { tokenizer: 'llama3', seed: 1 },
      dependencies: [{ config: { n: 4 } }, 'tokenize-bbbbbb'],
    };
    expect(diffVersions(before, after).map(formatChange)).toEqual([
      '~ config.tokenizer: "llama2" → "llama3"',
      '+ config.seed: 1',
      '~ dependencies[0].config.n: 3 → 4',
      '~ dependencies[1]: "tokenize-aaaaaa" → "tokenize-bbbbbb"',
      '- config.glob: "*.jsonl.gz"',
    ]);
  });

  it('treats a float and an int of the same value as different', () => {
    expect(diffVersions({ n: 1 }, { n: float(1) }).map(formatChange)).toEqual(['~ n: 1 → 1.0']);
    expect(diffVersions({ n: float(1) }, { n: float(1) })).toEqual([]);
  });
});
