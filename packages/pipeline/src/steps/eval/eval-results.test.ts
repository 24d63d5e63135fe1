import { describe, expect, it } from 'vitest';
import { buildEvalResults } from './eval-results.js';

describe('buildEvalResults()', () => {
  it('keeps lm-eval task metrics and adds validation loss, bits per byte and byte perplexity per tag', () => {
    const results = buildEvalResults({
      harness: {
        results: { tiny_mc: { 'acc,none': 0.45, 'acc_stderr,none': 0.114, 'acc_norm,none': 0.5 } },
        versions: { tiny_mc: 1 },
        'n-shot': { tiny_mc: 0 },
        'n-samples': { tiny_mc: { original: 20, effective: 20 } },
      },
      validation: { 'eval/loss': 5.9, 'eval/bpb': 2, 'eval/quickstart/loss': 5.9, 'eval/quickstart/bpb': 2, 'eval/total_time': 0.1 },
      modelName: 'nano-step-19',
      modelPath: '/out/hf/step-19',
      limit: null,
      date: 1763750000,
    });
    expect(results).toEqual({
      results: {
        tiny_mc: { alias: 'tiny_mc', 'acc,none': 0.45, 'acc_stderr,none': 0.114, 'acc_norm,none': 0.5 },
        validation: { alias: 'validation', 'loss,none': 5.9, 'bits_per_byte,none': 2, 'byte_perplexity,none': 4 },
        'validation/quickstart': { alias: 'validation/quickstart', 'loss,none': 5.9, 'bits_per_byte,none': 2, 'byte_perplexity,none': 4 },
      },
      versions: { tiny_mc: 1, validation: 1, 'validation/quickstart': 1 },
      'n-shot': { tiny_mc: 0, validation: 0, 'validation/quickstart': 0 },
      'n-samples': { tiny_mc: { original: 20, effective: 20 } },
      config: { model: 'levanter', model_args: 'path=/out/hf/step-19', limit: null },
      model_name: 'nano-step-19',
      date: 1763750000,
    });
  });

  it('writes only what ran', () => {
    const results = buildEvalResults({ harness: null, validation: null, modelName: 'm', modelPath: '/m', limit: 5, date: 1 });
    expect(results.results).toEqual({});
    expect(results.config.limit).toBe(5);
  });
});
