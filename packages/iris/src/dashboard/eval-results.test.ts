import { describe, expect, it } from 'vitest';
import { evalResultRows } from './eval-results.js';

describe('evalResultRows', () => {
  it("turns results.json into task, metric, value and stderr rows, skipping aliases, bookkeeping and stderr keys", () => {
    const doc = {
      results: {
        tiny_mc: { alias: 'tiny_mc', sample_len: 20, 'acc,none': 0.5, 'acc_stderr,none': 0.1, 'acc_norm,none': 0.25, 'acc_norm_stderr,none': 'N/A' },
        validation: { alias: 'validation', 'loss,none': 6.1, 'bits_per_byte,none': 2.2 },
        filtered: { 'exact_match,strict-match': 0.75, 'exact_match_stderr,strict-match': 0.05 },
      },
    };
    expect(evalResultRows(doc)).toEqual([
      { task: 'tiny_mc', metric: 'acc', value: 0.5, stderr: 0.1 },
      { task: 'tiny_mc', metric: 'acc_norm', value: 0.25, stderr: null },
      { task: 'validation', metric: 'loss', value: 6.1, stderr: null },
      { task: 'validation', metric: 'bits_per_byte', value: 2.2, stderr: null },
      { task: 'filtered', metric: 'exact_match (strict-match)', value: 0.75, stderr: 0.05 },
    ]);
  });

  it('gives no rows for a document without results', () => {
    expect(evalResultRows(null)).toEqual([]);
    expect(evalResultRows({ results: [] })).toEqual([]);
  });
});
