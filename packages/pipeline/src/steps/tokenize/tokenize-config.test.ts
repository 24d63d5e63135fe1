import { describe, expect, it } from 'vitest';
import { parseTokenizeConfig } from './tokenize-config.js';

const base = { cache_path: '/tmp/out', tokenizer: 'marin-tiny-bpe' };

describe('parseTokenizeConfig()', () => {
  it('applies Marin’s defaults', () => {
    const c = parseTokenizeConfig({ ...base, train_paths: ['/data/train'] });
    expect(c).toMatchObject({
      validation_paths: [],
      format: { type: 'text', text_key: 'text' },
      enforce_bos: true,
      enforce_eos: true,
      allow_test_in_train: false,
      sample_count: null,
      max_workers: 4,
      resources: null,
      compression: 'lz4',
    });
  });

  it.each([
    ['both lists empty', { ...base }],
    ['a bare string for train_paths', { ...base, train_paths: '/data/train' }],
    ['a bare string for validation_paths', { ...base, validation_paths: '/data/val' }],
    ['a path equal to /', { ...base, train_paths: ['/'] }],
    ['a train path naming test data', { ...base, train_paths: ['/data/test/x.jsonl'] }],
    ['a train path naming validation data', { ...base, train_paths: ['/data/validation'] }],
    ['an unknown field', { ...base, train_paths: ['/d'], trian_paths: ['/d'] }],
    ['a non-positive sample_count', { ...base, train_paths: ['/d'], sample_count: 0 }],
  ])('rejects %s with PIPELINE_CONFIG_INVALID', (_label, raw) => {
    expect(() => parseTokenizeConfig(raw)).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID' }));
  });

  it('names the offending field', () => {
    expect(() => parseTokenizeConfig({ ...base, train_paths: 'x' })).toThrow(expect.objectContaining({ details: { field: 'train_paths' } }));
  });

  it('accepts test-looking train paths with allow_test_in_train, and latest/attest-like names without it', () => {
    expect(parseTokenizeConfig({ ...base, train_paths: ['/data/test/x'], allow_test_in_train: true }).train_paths).toEqual(['/data/test/x']);
    expect(parseTokenizeConfig({ ...base, train_paths: ['/data/latest/x', '/data/attest'] }).train_paths).toHaveLength(2);
  });
});
