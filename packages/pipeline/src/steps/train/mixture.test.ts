import { ExecutorStep, THIS_OUTPUT_PATH, VersionGraph, silentLogger, versioned } from '@marin/executor';
import { describe, expect, it } from 'vitest';
import { defaultTrain } from './default-train.js';
import { llama_nano } from './levanter-model-config.js';
import { lmMixtureDataConfig, lmVaryingMixtureDataConfig, mixture } from './mixture.js';

function tokenized(name: string, tokenizer = 'marin-tiny-bpe', extra: Record<string, unknown> = {}): ExecutorStep {
  return new ExecutorStep({ name: `tokenized/${name}`, fn: null, config: { cache_path: THIS_OUTPUT_PATH, tokenizer: versioned(tokenizer), ...extra } });
}
const web = tokenized('web');
const code = tokenized('code');
const MODEL = { ...llama_nano, max_seq_len: 64 };
const TRAIN = { train_batch_size: 8, num_train_steps: 20, learning_rate: 3e-3 };

function versionOf(step: ExecutorStep): { config: Record<string, unknown>; path: string; str: string } {
  const graph = new VersionGraph({ prefix: '/tmp/marin', logger: silentLogger });
  graph.computeVersion(step, false);
  const str = graph.versionStrs.get(step) as string;
  return { config: (JSON.parse(str) as { config: Record<string, unknown> }).config, path: graph.outputPaths.get(step) as string, str };
}

describe('mixture()', () => {
  it('keeps weights, validation-only components at 0, the common tokenizer and Marin\'s shuffle defaults', () => {
    const m = mixture({ web: [web, 0.7], code: [code, 0.3] }, { validation: { 'offline/x': tokenized('offline/x') } });
    expect(m.stages).toEqual([[0, { web: 0.7, code: 0.3, 'offline/x': 0 }]]);
    expect(m.trainComponents()).toEqual(['web', 'code']);
    expect(m.validationComponents()).toEqual(['offline/x']);
    expect(m.tokenizer).toBe('marin-tiny-bpe');
    expect([m.shuffle, m.permutationType]).toEqual([true, 'feistel']);
  });

  it('accepts weight stages over steps, first at step 0', () => {
    const m = mixture({ web: [web, 1], code: [code, 0] }, { stages: [[256, { web: 1, code: 1 }]] });
    expect(m.stages).toEqual([[0, { web: 1, code: 0 }], [256, { web: 1, code: 1 }]]);
    expect(m.trainComponents()).toEqual(['web', 'code']);
  });

  it.each([
    ['a negative weight', () => mixture({ web: [web, -1], code: [code, 1] }), 'weights.web'],
    ['a non-finite weight', () => mixture({ web: [web, Number.NaN], code: [code, 1] }), 'weights.web'],
    ['all-zero weights', () => mixture({ web: [web, 0], code: [code, 0] }), 'weights'],
    ['all-zero weights in a stage', () => mixture({ web: [web, 1] }, { stages: [[100, { web: 0 }]] }), 'stages.0'],
    ['a stage weight naming no component', () => mixture({ web: [web, 1] }, { stages: [[100, { books: 1 }]] }), 'stages.0.books'],
    ['stages out of order', () => mixture({ web: [web, 1] }, { stages: [[100, { web: 1 }], [50, { web: 2 }]] }), 'stages.1'],
    ['a weight naming no component (Marin\'s shape)', () => lmMixtureDataConfig({ web }, { web: 1, books: 1 }), 'weights.books'],
    ['a first stage after step 0', () => lmVaryingMixtureDataConfig({ web }, [[10, { web: 1 }]]), 'weights'],
    ['a validation set named like a component', () => mixture({ web: [web, 1] }, { validation: { web: code } }), 'validation'],
    ['different tokenizers', () => mixture({ web: [web, 1], code: [tokenized('code-gpt2', 'gpt2'), 1] }), 'tokenizer'],
    ['a validation set of another tokenizer', () => mixture({ web: [web, 1] }, { validation: { v: tokenized('v', 'gpt2') } }), 'tokenizer'],
    ['different seq_lens', () => mixture({ a: [tokenized('a', 'marin-tiny-bpe', { seq_len: versioned(64) }), 1], b: [tokenized('b', 'marin-tiny-bpe', { seq_len: 128 }), 1] }), 'seq_len'],
    ['paths without a tokenizer', () => mixture({ a: ['/caches/a', 1] }), 'tokenizer'],
  ])('refuses %s with PIPELINE_MIXTURE_INVALID naming the field', (_what, build, field) => {
    expect(build).toThrow(expect.objectContaining({ code: 'PIPELINE_MIXTURE_INVALID', details: expect.objectContaining({ field }) }));
  });

  it('fills missing weights with 0 in Marin\'s shape, or refuses them when missing_weights_are_validation is off', () => {
    expect(lmMixtureDataConfig({ web, code }, { web: 1 }).validationComponents()).toEqual(['code']);
    expect(() => lmMixtureDataConfig({ web, code }, { web: 1 }, { missing_weights_are_validation: false })).toThrow(
      expect.objectContaining({ code: 'PIPELINE_MIXTURE_INVALID', details: expect.objectContaining({ component: 'code' }) }),
    );
  });
});

describe('defaultTrain() with a mixture', () => {
  it('versions the weights (as Python floats), shuffle and every cache; a weight change moves the output path', () => {
    const step = defaultTrain('mix', mixture({ web: [web, 3], code: [code, 1] }), MODEL, TRAIN);
    const { config, path, str } = versionOf(step);
    expect(config['data.train_weights']).toEqual({ web: 3, code: 1 });
    expect(str).toMatch(/"web": 3\.0[,}]/);
    expect(config['data.shuffle']).toBe(true);
    expect(step.config.cache_path).toBeNull();
    expect(versionOf(defaultTrain('mix', mixture({ web: [web, 2], code: [code, 1] }), MODEL, TRAIN)).path).not.toBe(path);
  });

  it('keeps the version of a single cache unchanged, and turns it into a mixture only with validation sets', () => {
    const single = defaultTrain('t', web, MODEL, TRAIN);
    expect(single.config.data).toBeUndefined();
    const withSets = defaultTrain('t', web, MODEL, TRAIN, { useDefaultValidation: 'offline' });
    expect(Object.keys(withSets.config.data?.components ?? {})).toEqual(['web', 'offline/gazetteer', 'offline/chronicle']);
    expect(withSets.config.data?.train_weights.value).toEqual({ web: expect.anything(), 'offline/gazetteer': expect.anything(), 'offline/chronicle': expect.anything() });
    expect(versionOf(withSets).path).not.toBe(versionOf(single).path);
  });

  it('refuses a stage that does not start on a mixing block, caches of another seq_len, and a tokenizer the mixture does not use', () => {
    const staged = mixture({ web: [web, 1], code: [code, 1] }, { stages: [[100, { web: 1 }]] });
    expect(() => defaultTrain('t', staged, MODEL, TRAIN)).toThrow(expect.objectContaining({ code: 'PIPELINE_MIXTURE_INVALID', details: expect.objectContaining({ start_step: 100 }) }));
    expect(defaultTrain('t', mixture({ web: [web, 1], code: [code, 1] }, { stages: [[256, { web: 1 }]] }), MODEL, TRAIN).name).toBe('checkpoints/t');
    const packed = mixture({ a: [tokenized('a', 'marin-tiny-bpe', { seq_len: 128 }), 1] });
    expect(() => defaultTrain('t', packed, MODEL, TRAIN)).toThrow(expect.objectContaining({ code: 'PIPELINE_MIXTURE_INVALID', details: expect.objectContaining({ field: 'seq_len' }) }));
    expect(() => defaultTrain('t', mixture({ web: [web, 1] }), MODEL, TRAIN, { tokenizer: 'gpt2' })).toThrow(expect.objectContaining({ code: 'PIPELINE_MIXTURE_INVALID', details: { field: 'tokenizer' } }));
    expect(() => defaultTrain('t', web, MODEL, TRAIN, { validationSets: { v: tokenized('v', 'gpt2') } })).toThrow(expect.objectContaining({ code: 'PIPELINE_MIXTURE_INVALID', details: expect.objectContaining({ field: 'tokenizer' }) }));
  });
});
