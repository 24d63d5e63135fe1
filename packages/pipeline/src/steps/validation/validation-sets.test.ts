import { InputName, VersionGraph, silentLogger } from '@marin/executor';
import { describe, expect, it } from 'vitest';
import { offlineValidationDataPath } from '../../assets.js';
import { OFFLINE_VALIDATION, PALOMA, defaultValidationSets } from './validation-sets.js';

describe('defaultValidationSets()', () => {
  it('makes one tokenize step per Paloma set, from one pinned download of the suite\'s validation files', () => {
    const sets = defaultValidationSets('meta-llama/Llama-3.1-8B@d04e592bb4f6aa9cfee91e2e20afa771667e1d4b');
    expect(Object.keys(sets)).toHaveLength(Object.keys(PALOMA.sets).length);
    const c4 = sets['paloma/c4_en'];
    expect(c4?.name).toBe('tokenized/paloma/c4_en');
    expect(c4?.config.tags).toEqual(['paloma']);
    expect(c4?.config.train_paths).toEqual([]);
    const input = c4?.config.validation_paths[0] as InputName;
    expect(input.name).toBe('c4_en/val');
    expect(input.step?.name).toBe('raw/paloma');
    expect(input.step?.config).toMatchObject({ hf_dataset_id: { value: 'allenai/paloma' }, revision: { value: '65cd6fc' }, source_url_override: null });
    // One download for the whole suite.
    expect(new Set(Object.values(sets).map((s) => (s.config.validation_paths[0] as InputName).step)).size).toBe(1);
  });

  it('reads the shipped offline suite from the package through the same download step, and versions by tokenizer', () => {
    const sets = defaultValidationSets('marin-tiny-bpe', { suite: 'offline' });
    expect(Object.keys(sets)).toEqual(['offline/gazetteer', 'offline/chronicle']);
    const raw = (sets['offline/gazetteer']?.config.validation_paths[0] as InputName).step;
    expect(raw?.config).toMatchObject({ source_url_override: offlineValidationDataPath(), hf_dataset_id: { value: OFFLINE_VALIDATION.hubId } });
    const graph = new VersionGraph({ prefix: '/p', logger: silentLogger });
    const a = sets['offline/gazetteer'];
    const b = defaultValidationSets('gpt2', { suite: 'offline' })['offline/gazetteer'];
    if (a === undefined || b === undefined) throw new Error('missing set');
    graph.computeVersion(a, false);
    graph.computeVersion(b, false);
    expect(graph.outputPaths.get(a)).not.toBe(graph.outputPaths.get(b));
  });

  it('refuses a suite that is not registered', () => {
    expect(() => defaultValidationSets('gpt2', { suite: 'nope' })).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID', details: { field: 'suite', suite: 'nope' } }));
  });
});
