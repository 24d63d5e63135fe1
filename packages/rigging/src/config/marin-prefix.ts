import { StoragePath } from '../fs/storage-path.js';
import { loadDataConfig } from './data-config.js';
import { regionFromMetadata } from './region.js';

/** Where Marin data lives when nothing else says so. */
export const DEFAULT_LOCAL_PREFIX = '/tmp/marin';

/**
 * The data prefix: `MARIN_PREFIX` (normalised) > the config's `root` > the metadata region's
 * configured bucket (`<scheme>://<bucket>`, or `<scheme>://marin-<region>`) > `/tmp/marin`.
 * The environment is read on every call; the metadata lookup is cached.
 */
export async function marinPrefix(): Promise<string> {
  const env = process.env['MARIN_PREFIX'];
  if (env !== undefined && env !== '') return StoragePath.normalize(env);
  const config = loadDataConfig();
  if (config.root !== null) return StoragePath.normalize(config.root);
  const region = await regionFromMetadata();
  if (region !== null) {
    const bucket = config.regionBuckets.find((b) => b.region === region)?.bucket ?? `marin-${region}`;
    return `${config.scheme}://${bucket}`;
  }
  return DEFAULT_LOCAL_PREFIX;
}
