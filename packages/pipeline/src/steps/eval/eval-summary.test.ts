import { describe, expect, it } from 'vitest';
import { buildEvalResults } from './eval-results.js';
import { evalSummaryRows, formatEvalSummary } from './eval-summary.js';

const results = buildEvalResults({
  harness: {
    results: {
      arc_easy: { 'sample_len': 4, 'acc,none': 0.2, 'acc_stderr,none': 0.2, 'acc_norm,none': 0.4, 'acc_norm_stderr,none': 0.2449 },
      lambada_openai: { 'perplexity,none': 123456.7, 'perplexity_stderr,none': 'N/A', 'acc,none': 0.05, 'acc_stderr,none': 0.05 },
      gsm8k: { 'exact_match,strict-match': 0.1, 'exact_match_stderr,strict-match': 0.01 },
    },
  },
  validation: { 'eval/loss': 5.9, 'eval/bpb': 2 },
  modelName: 'm',
  modelPath: '/m',
  limit: null,
  date: 1,
});

describe('formatEvalSummary()', () => {
  it('lists task → metric → value ± stderr, a core task\'s primary metric first', () => {
    expect(evalSummaryRows(results)).toEqual([
      { task: 'arc_easy', metric: 'acc_norm', value: 0.4, stderr: 0.2449 },
      { task: 'arc_easy', metric: 'acc', value: 0.2, stderr: 0.2 },
      { task: 'lambada_openai', metric: 'acc', value: 0.05, stderr: 0.05 },
      { task: 'lambada_openai', metric: 'perplexity', value: 123456.7, stderr: null },
      { task: 'gsm8k', metric: 'exact_match (strict-match)', value: 0.1, stderr: 0.01 },
      { task: 'validation', metric: 'loss', value: 5.9, stderr: null },
      { task: 'validation', metric: 'bits_per_byte', value: 2, stderr: null },
      { task: 'validation', metric: 'byte_perplexity', value: 4, stderr: null },
    ]);
  });

  it('prints one aligned line per metric, naming each task once, under a title', () => {
    const text = formatEvalSummary(results, 'eval results of m');
    expect(text.split('\n')).toEqual([
      'eval results of m',
      'task            metric                         value    stderr',
      'arc_easy        acc_norm                      0.4000 ± 0.2449',
      '                acc                           0.2000 ± 0.2000',
      'lambada_openai  acc                           0.0500 ± 0.0500',
      '                perplexity                  1.235e+5',
      'gsm8k           exact_match (strict-match)    0.1000 ± 0.0100',
      'validation      loss                          5.9000',
      '                bits_per_byte                 2.0000',
      '                byte_perplexity               4.0000',
      '',
    ]);
    expect(formatEvalSummary(buildEvalResults({ harness: null, validation: null, modelName: 'm', modelPath: '/m', limit: null }), 't')).toBe('t: no results\n');
  });
});
