import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDataConfig, withDataConfig } from '../../src/config/data-config.js';
import { marinPrefix } from '../../src/config/marin-prefix.js';
import { marinRegion, regionFromMetadata, resetMetadataRegionCache } from '../../src/config/region.js';
import { marinTempBucket } from '../../src/config/temp-bucket.js';
import { startMetadataStub } from '../helpers/metadata-stub.js';

const CONFIG = parseDataConfig({
  data: {
    region_buckets: {
      'us-central1': { bucket: 'marin-us-central1', store: 'gcs' },
      'europe-west4': { bucket: 'marin-eu-west4', store: 'gcs' },
    },
  },
});

const saved = { ...process.env };
beforeEach(() => {
  resetMetadataRegionCache();
  delete process.env['MARIN_PREFIX'];
});
afterEach(() => {
  for (const k of ['MARIN_PREFIX', 'GCE_METADATA_HOST']) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  resetMetadataRegionCache();
});

describe('regionFromMetadata()', () => {
  it('turns the zone into a region and asks only once per process', async () => {
    await using stub = await startMetadataStub('projects/123/zones/us-central2-b');
    process.env['GCE_METADATA_HOST'] = stub.host;
    expect(await regionFromMetadata()).toBe('us-central2');
    expect(await regionFromMetadata()).toBe('us-central2');
    expect(await marinRegion()).toBe('us-central2');
    expect(stub.requests()).toBe(1);
  });

  it('gives null within the 2 s timeout for a server that never answers, and caches the null', async () => {
    await using stub = await startMetadataStub(null);
    process.env['GCE_METADATA_HOST'] = stub.host;
    const started = Date.now();
    expect(await regionFromMetadata()).toBeNull();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await regionFromMetadata()).toBeNull();
    expect(stub.requests()).toBe(1);
  });

  it('gives null at once when the host does not resolve', async () => {
    process.env['GCE_METADATA_HOST'] = 'metadata.invalid';
    expect(await regionFromMetadata()).toBeNull();
  });

  it('falls back to the region of MARIN_PREFIX in marinRegion()', async () => {
    process.env['GCE_METADATA_HOST'] = 'metadata.invalid';
    process.env['MARIN_PREFIX'] = 'gs://marin-eu-west4/x';
    expect(await withDataConfig(CONFIG, () => marinRegion())).toBe('europe-west4');
  });
});

describe('marinPrefix()', () => {
  it('prefers a normalised MARIN_PREFIX, read on every call', async () => {
    process.env['MARIN_PREFIX'] = 'gcs://bkt//run/';
    expect(await marinPrefix()).toBe('gs://bkt/run');
    process.env['MARIN_PREFIX'] = '/data//marin/';
    expect(await marinPrefix()).toBe('/data/marin');
  });

  it('uses the config root next', async () => {
    const config = parseDataConfig({ data: { root: 's3://marin-na/marin/' } });
    expect(await withDataConfig(config, () => marinPrefix())).toBe('s3://marin-na/marin');
  });

  it("uses the metadata region's configured bucket, else gs://marin-<region>", async () => {
    await using stub = await startMetadataStub('projects/1/zones/us-central1-a');
    process.env['GCE_METADATA_HOST'] = stub.host;
    expect(await withDataConfig(CONFIG, () => marinPrefix())).toBe('gs://marin-us-central1');
    expect(await withDataConfig(parseDataConfig({}), () => marinPrefix())).toBe('gs://marin-us-central1');
  });

  it('falls back to /tmp/marin off GCP', async () => {
    process.env['GCE_METADATA_HOST'] = 'metadata.invalid';
    expect(await withDataConfig(CONFIG, () => marinPrefix())).toBe('/tmp/marin');
  });
});

describe('marinTempBucket()', () => {
  it('places temp data in the regional bucket with a TTL folder', async () => {
    await using stub = await startMetadataStub('projects/1/zones/us-central1-a');
    process.env['GCE_METADATA_HOST'] = stub.host;
    const warnings: string[] = [];
    const warn = (m: string) => warnings.push(m);
    await withDataConfig(CONFIG, async () => {
      expect(await marinTempBucket(3, 'foo')).toBe('gs://marin-us-central1/tmp/ttl=3d/foo');
      expect(await marinTempBucket(8, '/foo/', { warn })).toBe('gs://marin-us-central1/tmp/ttl=14d/foo');
      expect(await marinTempBucket(100, '', { warn })).toBe('gs://marin-us-central1/tmp/ttl=30d');
      expect(await marinTempBucket(1, 'x', { sourcePrefix: 'gs://marin-eu-west4/data' })).toBe('gs://marin-eu-west4/tmp/ttl=1d/x');
      await expect(marinTempBucket(0, 'x')).rejects.toMatchObject({ code: 'RIGGING_INVALID_ARGUMENT' });
    });
    expect(warnings).toHaveLength(2);
  });

  it('uses a flat path under a local prefix', async () => {
    process.env['GCE_METADATA_HOST'] = 'metadata.invalid';
    process.env['MARIN_PREFIX'] = '/tmp/marin';
    expect(await withDataConfig(CONFIG, () => marinTempBucket(3, 'foo'))).toBe('file:///tmp/marin/tmp/foo');
  });
});
