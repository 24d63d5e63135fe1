import { StoragePath } from '../fs/storage-path.js';
import { loadDataConfig } from './data-config.js';

let cachedRegion: Promise<string | null> | undefined;

/** Turns `projects/123/zones/us-central2-b` into `us-central2`; `null` when there is no `-`. */
export function regionFromZone(body: string): string | null {
  const zone = body.trim().split('/').pop() ?? '';
  const dash = zone.lastIndexOf('-');
  if (dash <= 0) return null;
  return zone.slice(0, dash);
}

async function askMetadata(): Promise<string | null> {
  const host = process.env['GCE_METADATA_HOST'] || 'metadata.google.internal';
  try {
    const res = await fetch(`http://${host}/computeMetadata/v1/instance/zone`, {
      headers: { 'Metadata-Flavor': 'Google' },
      signal: AbortSignal.timeout(2000),
    });
    if (!res.ok) return null;
    return regionFromZone(await res.text());
  } catch {
    return null; // off GCP: DNS fails at once, anything else is capped by the timeout
  }
}

/**
 * The VM's region from the GCE metadata server (`GCE_METADATA_HOST`), or `null` off GCP.
 * Fails fast (DNS failure, 2 s timeout) and caches the answer, `null` included, for the process.
 */
export function regionFromMetadata(): Promise<string | null> {
  cachedRegion ??= askMetadata();
  return cachedRegion;
}

/** Forgets the cached metadata region (tests). */
export function resetMetadataRegionCache(): void {
  cachedRegion = undefined;
}

/**
 * The region a `gs://` prefix lives in: a configured `region_buckets` bucket gives its region,
 * else a `marin-X` bucket gives `X`; anything else (local, `s3://`) gives `null`.
 */
export function regionFromPrefix(prefix: string): string | null {
  const p = StoragePath.parse(prefix);
  if (p.scheme !== 'gs' || p.netloc === '') return null;
  const configured = loadDataConfig().regionBuckets.find((b) => b.bucket === p.netloc);
  if (configured !== undefined) return configured.region;
  const m = /^marin-(.+)$/.exec(p.netloc);
  return m === null ? null : (m[1] ?? null);
}

/** The metadata region, else the region of `MARIN_PREFIX`, else `null`. */
export async function marinRegion(): Promise<string | null> {
  const fromMetadata = await regionFromMetadata();
  if (fromMetadata !== null) return fromMetadata;
  const prefix = process.env['MARIN_PREFIX'];
  return prefix ? regionFromPrefix(prefix) : null;
}
