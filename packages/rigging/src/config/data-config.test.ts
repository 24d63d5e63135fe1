import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EMPTY_DATA_CONFIG, defaultClusterSearchDirs, loadDataConfig, parseDataConfig, resetDataConfigCache, withDataConfig } from './data-config.js';
import { regionFromPrefix, regionFromZone } from './region.js';

const YAML = `
name: ignored
data:
  scheme: gs
  region_buckets:
    us-central1: {bucket: marin-us-central1, store: gcs}
    us-east1: {bucket: marin-us-east1, store: gcs}
    europe-west4: {bucket: marin-eu-west4, store: gcs}
  temp: {path: tmp, ttl_days: [1, 2, 3, 4, 5, 6, 7, 14, 30]}
`;

async function withDir<T>(files: Record<string, string>, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'rigging-config-'));
  try {
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

afterEach(() => resetDataConfigCache());

describe('loadDataConfig()', () => {
  it('loads a data: block, keeping region_buckets in config order', async () => {
    await withDir({ 'gcp.yaml': YAML }, async (dir) => {
      const c = loadDataConfig({ cluster: 'gcp', searchDirs: [dir] });
      expect(c.regionBuckets.map((b) => b.region)).toEqual(['us-central1', 'us-east1', 'europe-west4']);
      expect(c.regionBuckets[2]).toEqual({ region: 'europe-west4', bucket: 'marin-eu-west4', store: 'gcs', signingRegion: null });
      expect(c.temp).toEqual({ path: 'tmp', ttlDays: [1, 2, 3, 4, 5, 6, 7, 14, 30] });
      expect(loadDataConfig({ cluster: 'gcp', searchDirs: [dir] })).toBe(c);
    });
  });

  it('searches the directories in order', async () => {
    await withDir({ 'c.yaml': 'data: {root: gs://first}' }, async (first) => {
      await withDir({ 'c.yaml': 'data: {root: gs://second}' }, async (second) => {
        expect(loadDataConfig({ cluster: 'c', searchDirs: [first, second] }).root).toBe('gs://first');
      });
    });
  });

  it('names the bad key of a malformed entry', async () => {
    await withDir(
      {
        'bad.yaml': 'data:\n  region_buckets:\n    us-east1: marin-us-east1\n',
        'cw.yaml': 'data:\n  region_buckets:\n    us-east-04: {bucket: b, store: coreweave}\n',
        'syntax.yaml': 'data: [unclosed\n',
      },
      async (dir) => {
        expect(() => loadDataConfig({ cluster: 'bad', searchDirs: [dir] })).toThrow(
          expect.objectContaining({ code: 'RIGGING_INVALID_ARGUMENT', details: expect.objectContaining({ key: 'data.region_buckets.us-east1' }) }),
        );
        expect(() => loadDataConfig({ cluster: 'cw', searchDirs: [dir] })).toThrow(
          expect.objectContaining({ details: expect.objectContaining({ key: 'data.region_buckets.us-east-04.signing_region' }) }),
        );
        expect(() => loadDataConfig({ cluster: 'syntax', searchDirs: [dir] })).toThrow(expect.objectContaining({ code: 'RIGGING_INVALID_ARGUMENT' }));
      },
    );
  });

  it('treats a missing default config as no buckets and a missing named cluster as RIGGING_NOT_FOUND', async () => {
    await withDir({}, async (dir) => {
      expect(loadDataConfig({ cluster: 'marin', searchDirs: [dir] })).toBe(EMPTY_DATA_CONFIG);
      expect(() => loadDataConfig({ cluster: 'nowhere', searchDirs: [dir] })).toThrow(expect.objectContaining({ code: 'RIGGING_NOT_FOUND' }));
    });
  });

  it('accepts a document without a data: block', () => {
    expect(parseDataConfig({ other: 1 })).toBe(EMPTY_DATA_CONFIG);
  });

  it('binds an override only inside withDataConfig', async () => {
    const config = parseDataConfig({ data: { root: 'gs://scoped' } });
    const inside = await withDataConfig(config, async () => {
      await new Promise((r) => setTimeout(r, 1));
      return loadDataConfig().root;
    });
    expect(inside).toBe('gs://scoped');
    expect(loadDataConfig({ cluster: 'marin', searchDirs: [] }).root).toBeNull();
  });
});

describe('regions', () => {
  it('derives the region from a metadata zone body', () => {
    expect(regionFromZone('projects/123/zones/us-central2-b')).toBe('us-central2');
    expect(regionFromZone('nodash')).toBeNull();
  });

  it('derives the region from a gs:// prefix via config, then the marin-X convention', () => {
    const config = parseDataConfig({ data: { region_buckets: { 'europe-west4': { bucket: 'marin-eu-west4', store: 'gcs' } } } });
    withDataConfig(config, () => {
      expect(regionFromPrefix('gs://marin-eu-west4/x')).toBe('europe-west4');
      expect(regionFromPrefix('gs://marin-us-east5')).toBe('us-east5');
      expect(regionFromPrefix('gs://other-bucket/x')).toBeNull();
      expect(regionFromPrefix('/tmp/marin')).toBeNull();
      expect(regionFromPrefix('s3://marin-us-east1/x')).toBeNull();
    });
  });
});

describe('the bundled marin cluster config', () => {
  it("holds Marin's regional buckets, europe-west4 as marin-eu-west4", () => {
    const c = loadDataConfig({ cluster: 'marin', searchDirs: [defaultClusterSearchDirs()[2] ?? ''] });
    expect(c.regionBuckets.map((b) => `${b.region}=${b.bucket}`)).toEqual([
      'us-central1=marin-us-central1',
      'us-central2=marin-us-central2',
      'us-east1=marin-us-east1',
      'us-east5=marin-us-east5',
      'us-west4=marin-us-west4',
      'europe-west4=marin-eu-west4',
    ]);
  });
});
