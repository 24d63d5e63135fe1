import { ExecutorStep, VersionGraph, silentLogger } from '@marin/executor';
import { describe, expect, it } from 'vitest';
import { download } from '../download/download.js';
import { defaultTokenize } from './default-tokenize.js';

const SHA = '0123456789abcdef0123456789abcdef01234567';
const OTHER = 'fedcba9876543210fedcba9876543210fedcba98';

function graphOf(...steps: ExecutorStep[]): VersionGraph {
  const graph = new VersionGraph({ prefix: '/p', logger: silentLogger });
  for (const s of steps) graph.computeVersion(s, false);
  return graph;
}

describe('defaultTokenize() with a hub tokenizer', () => {
  it('depends on a download step of only the tokenizer files of the pinned model repository', () => {
    const step = defaultTokenize('demo', '/data/train', { hubModel: 'org/tok', revision: SHA });
    const dl = step.config.tokenizer as ExecutorStep;
    expect(dl).toBeInstanceOf(ExecutorStep);
    expect(dl.name).toBe('raw/tokenizers/org--tok');
    expect(dl.fn).toBe(download);
    expect(dl.config).toMatchObject({ hf_repo_type_prefix: '', hf_dataset_id: { value: 'org/tok' }, revision: { value: SHA } });
    expect((dl.config as { hf_urls_glob: { value: string[] } }).hf_urls_glob.value).toEqual(expect.arrayContaining(['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json']));
    expect(step.config.tokenizer_name).toBe(`org/tok@${SHA}`);
  });

  it('versions the tokenizer by repository id and revision, never by a local path; both spellings are one version', () => {
    const object = defaultTokenize('demo', '/data/train', { hubModel: 'org/tok', revision: SHA });
    const text = defaultTokenize('demo', '/data/train', `org/tok@${SHA}`);
    const other = defaultTokenize('demo', '/data/train', { hubModel: 'org/tok', revision: OTHER });
    const graph = graphOf(object, text, other);
    const version = graph.versionStrs.get(object) ?? '';
    expect(version).toContain('org/tok');
    expect(version).toContain(SHA);
    expect(version).not.toContain('/p/');
    expect(graph.outputPaths.get(text)).toBe(graph.outputPaths.get(object));
    expect(graph.outputPaths.get(other)).not.toBe(graph.outputPaths.get(object));
    // Two tokenize steps with one tokenizer share one download (same version, same output path).
    const a = defaultTokenize('a', '/data/a', { hubModel: 'org/tok', revision: SHA });
    const b = defaultTokenize('b', '/data/b', { hubModel: 'org/tok', revision: SHA });
    const g2 = graphOf(a, b);
    expect(g2.outputPaths.get(a.config.tokenizer as ExecutorStep)).toBe(g2.outputPaths.get(b.config.tokenizer as ExecutorStep));
  });

  it('refuses a hub id without a revision before any step exists', () => {
    for (const bad of ['meta-llama/Llama-3.1-8B', { hubModel: 'meta-llama/Llama-3.1-8B' }]) {
      expect(() => defaultTokenize('demo', '/data/train', bad as never)).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID' }));
    }
  });

  it('keeps shipped names as versioned strings with no recorded name', () => {
    const step = defaultTokenize('demo', '/data/train', 'marin-tiny-bpe');
    expect(step.config.tokenizer).toMatchObject({ value: 'marin-tiny-bpe' });
    expect(step.config.tokenizer_name).toBeNull();
  });
});
