import { THIS_OUTPUT_PATH, VersionedValue } from '@marin/executor';
import { describe, expect, it } from 'vitest';
import { defaultDownload } from './default-download.js';
import { download } from './download.js';

describe('defaultDownload()', () => {
  it('builds a step named as given with the versioned fields of Marin', () => {
    const step = defaultDownload('raw/tiny', 'org/ds', { revision: 'abc1234', hfUrlsGlob: ['data/*.jsonl'] });
    expect(step.name).toBe('raw/tiny');
    expect(step.fn).toBe(download);
    expect(step.config.hf_dataset_id).toEqual(new VersionedValue('org/ds'));
    expect(step.config.revision).toEqual(new VersionedValue('abc1234'));
    expect(step.config.hf_urls_glob).toEqual(new VersionedValue(['data/*.jsonl']));
    expect(step.config.gcs_output_path).toBe(THIS_OUTPUT_PATH);
    expect(step.config.source_url_override).toBeNull();
    expect(step.overrideOutputPath).toBeNull();
  });

  it('keeps the override directory and output path out of the versioned fields', () => {
    const step = defaultDownload('raw/q', 'org/q', { sourceUrlOverride: '/data/q', overrideOutputPath: 'raw/q-pinned' });
    expect(step.config.source_url_override).toBe('/data/q');
    expect(step.config.revision).toEqual(new VersionedValue(null));
    expect(step.overrideOutputPath).toBe('raw/q-pinned');
  });

  it('requires a revision unless an override directory is given', () => {
    expect(() => defaultDownload('raw/x', 'org/x')).toThrow(expect.objectContaining({ code: 'PIPELINE_CONFIG_INVALID' }));
  });
});
