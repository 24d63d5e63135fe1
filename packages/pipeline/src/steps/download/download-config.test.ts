import { describe, expect, it } from 'vitest';
import { DEFAULT_HUB_URL, hubUrlOf, parseDownloadConfig } from './download-config.js';

describe('parseDownloadConfig()', () => {
  it("fills Marin's defaults", () => {
    expect(parseDownloadConfig({ hf_dataset_id: 'org/ds', revision: 'abc1234' })).toEqual({
      hf_dataset_id: 'org/ds',
      revision: 'abc1234',
      hf_urls_glob: [],
      gcs_output_path: null,
      append_sha_to_path: false,
      hf_repo_type_prefix: 'datasets',
      max_parallelism: 8,
      read_timeout_seconds: 120,
      min_speed_kib_per_second: 128,
      read_chunk_size_mib: 8,
      source_url_override: null,
      hub_url: null,
    });
  });

  it.each(['../x', '/abs', 'a//b'])('refuses revision %j as a directory name with append_sha_to_path', (revision) => {
    expect(() => parseDownloadConfig({ hf_dataset_id: 'org/ds', revision, append_sha_to_path: true })).toThrow(
      expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID', details: { issues: [expect.objectContaining({ path: ['revision'] })] } }),
    );
    expect(parseDownloadConfig({ hf_dataset_id: 'org/ds', revision }).revision).toBe(revision);
  });

  it('requires a revision for a hub download', () => {
    expect(() => parseDownloadConfig({ hf_dataset_id: 'org/ds' })).toThrow(
      expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID', details: { issues: [expect.objectContaining({ path: ['revision'] })] } }),
    );
  });

  it('accepts an override directory without a revision', () => {
    expect(parseDownloadConfig({ hf_dataset_id: 'org/ds', source_url_override: '/data/x' }).revision).toBeNull();
  });

  it('refuses append_sha_to_path without a revision', () => {
    expect(() => parseDownloadConfig({ hf_dataset_id: 'org/ds', source_url_override: '/x', append_sha_to_path: true })).toThrow(
      expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID' }),
    );
  });

  it.each([
    ['an unknown field', { hf_url_glob: ['*'] }],
    ['a non-positive max_parallelism', { max_parallelism: 0 }],
    ['a glob list given as a string', { hf_urls_glob: '*.json' }],
    ['an unknown repo type prefix', { hf_repo_type_prefix: 'models' }],
    ['a hub URL that is not http(s)', { hub_url: 'ftp://hub' }],
  ])('reports %s as PIPELINE_CONFIG_INVALID with zod issues', (_what, extra) => {
    let caught: unknown;
    try {
      parseDownloadConfig({ hf_dataset_id: 'org/ds', revision: 'abc1234', ...extra });
    } catch (err) {
      caught = err;
    }
    expect(caught).toMatchObject({ code: 'PIPELINE_CONFIG_INVALID', retryable: false });
    expect((caught as { details: { issues: unknown[] } }).details.issues.length).toBeGreaterThan(0);
  });
});

describe('hubUrlOf()', () => {
  const cfg = parseDownloadConfig({ hf_dataset_id: 'org/ds', revision: 'abc1234' });

  it('prefers the config, then HF_ENDPOINT, then the public hub', () => {
    expect(hubUrlOf({ ...cfg, hub_url: 'http://127.0.0.1:9/' }, { HF_ENDPOINT: 'http://mirror' })).toBe('http://127.0.0.1:9');
    expect(hubUrlOf(cfg, { HF_ENDPOINT: 'https://hf-mirror.example/' })).toBe('https://hf-mirror.example');
    expect(hubUrlOf(cfg, {})).toBe(DEFAULT_HUB_URL);
    expect(hubUrlOf(cfg, { HF_ENDPOINT: '' })).toBe(DEFAULT_HUB_URL);
  });

  it.each(['not a url', 'file:///etc', 'ftp://hub'])('refuses HF_ENDPOINT %j with PIPELINE_CONFIG_INVALID', (endpoint) => {
    expect(() => hubUrlOf(cfg, { HF_ENDPOINT: endpoint })).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID', details: expect.objectContaining({ field: 'HF_ENDPOINT' }) }));
  });
});
