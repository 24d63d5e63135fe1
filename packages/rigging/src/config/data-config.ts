import { AsyncLocalStorage } from 'node:async_hooks';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { z } from 'zod';
import { RiggingError } from '../errors.js';

// The YAML parser is only needed when a cluster config file is actually read; loading it eagerly would
// cost every process that imports rigging (CLIs included) tens of milliseconds at start-up.
const require = createRequire(import.meta.url);
function parseYaml(text: string): unknown {
  return (require('yaml') as typeof import('yaml')).parse(text);
}

/** The object stores a region bucket can live on. */
export type StoreKind = 'gcs' | 'r2' | 'coreweave';

/** One `region_buckets` entry, in config order. */
export interface RegionBucket {
  /** Region name, e.g. `us-central1`. */
  region: string;
  /** Bucket name, e.g. `marin-us-central1`. */
  bucket: string;
  /** Which object store holds the bucket. */
  store: StoreKind;
  /** Signing region (required for CoreWeave). */
  signingRegion: string | null;
}

/** The resolved `data:` block of a cluster config. */
export interface DataConfig {
  /** URL scheme of region buckets. @default 'gs' */
  scheme: string;
  /** Optional single data root (normalised by callers). @default null */
  root: string | null;
  /** Region buckets in config order: the mirror scan order. */
  regionBuckets: readonly RegionBucket[];
  /** Store endpoints and credential env names (used with `s3://`, later). */
  stores: Readonly<Record<string, unknown>>;
  /** Temporary storage layout. */
  temp: { path: string; ttlDays: readonly number[] };
}

const RegionBucketSchema = z
  .object({
    bucket: z.string().min(1),
    store: z.enum(['gcs', 'r2', 'coreweave']),
    signing_region: z.string().min(1).optional(),
  })
  .refine((b) => b.store !== 'coreweave' || b.signing_region !== undefined, {
    message: 'a coreweave bucket needs signing_region',
    path: ['signing_region'],
  });

const DataBlockSchema = z.object({
  scheme: z.string().min(1).default('gs'),
  root: z.string().min(1).nullable().default(null),
  region_buckets: z.record(z.string(), RegionBucketSchema).nullable().default({}),
  stores: z.record(z.string(), z.unknown()).nullable().default({}),
  temp: z
    .object({
      path: z.string().min(1).default('tmp'),
      ttl_days: z.array(z.number().int().positive()).min(1).default([1, 2, 3, 4, 5, 6, 7, 14, 30]),
    })
    .default({ path: 'tmp', ttl_days: [1, 2, 3, 4, 5, 6, 7, 14, 30] }),
});

const DocumentSchema = z.object({ data: DataBlockSchema.nullable().optional() }).passthrough();

/** A config with no region buckets, used when the default cluster has no file or no `data:` block. */
export const EMPTY_DATA_CONFIG: DataConfig = Object.freeze({
  scheme: 'gs',
  root: null,
  regionBuckets: [],
  stores: {},
  temp: { path: 'tmp', ttlDays: [1, 2, 3, 4, 5, 6, 7, 14, 30] },
});

/**
 * Validates a parsed cluster-config document (only its top-level `data:` block is read).
 * @throws {RiggingError} RIGGING_INVALID_ARGUMENT naming the bad key (`details.key`, `details.issues`).
 */
export function parseDataConfig(document: unknown, source = '<inline>'): DataConfig {
  const parsed = DocumentSchema.safeParse(document ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = (issue?.path ?? []).map(String).join('.');
    throw new RiggingError('RIGGING_INVALID_ARGUMENT', `invalid cluster config ${source}: key "${key}": ${issue?.message ?? 'invalid'}`, {
      details: { path: source, operation: 'loadDataConfig', key, issues: parsed.error.issues },
    });
  }
  const data = parsed.data.data;
  if (data === undefined || data === null) return EMPTY_DATA_CONFIG;
  return {
    scheme: data.scheme,
    root: data.root,
    regionBuckets: Object.entries(data.region_buckets ?? {}).map(([region, b]) => ({
      region,
      bucket: b.bucket,
      store: b.store,
      signingRegion: b.signing_region ?? null,
    })),
    stores: data.stores ?? {},
    temp: { path: data.temp.path, ttlDays: [...data.temp.ttl_days].sort((a, b) => a - b) },
  };
}

/** Options of {@link loadDataConfig}. */
export interface LoadDataConfigOptions {
  /** Cluster name. @default process.env.MARIN_CLUSTER ?? 'marin' */
  cluster?: string;
  /** Directories searched for `<cluster>.yaml`, in order. @default ~/.config/marin/clusters, <workspace>/config, the bundled clusters/ */
  searchDirs?: readonly string[];
}

const cache = new Map<string, DataConfig>();
const override = new AsyncLocalStorage<DataConfig>();

function workspaceRoot(): string {
  let dir = process.cwd();
  for (;;) {
    if (existsSync(join(dir, 'nx.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
}

function bundledClustersDir(): string {
  // src/config/ when run from source, dist/ when built: walk up to the package root either way.
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'clusters');
    dir = dirname(dir);
  }
  return join(dirname(fileURLToPath(import.meta.url)), 'clusters');
}

/** The default search path for cluster configs. */
export function defaultClusterSearchDirs(): string[] {
  return [join(homedir(), '.config', 'marin', 'clusters'), join(workspaceRoot(), 'config'), bundledClustersDir()];
}

/**
 * The `data:` block of cluster `cluster` (inside {@link withDataConfig}, the bound override when no
 * cluster is named). Cached per cluster name.
 * @throws {RiggingError} RIGGING_NOT_FOUND if an explicitly named cluster has no config file.
 * @throws {RiggingError} RIGGING_INVALID_ARGUMENT for malformed YAML or a bad `data:` block.
 */
export function loadDataConfig(opts: LoadDataConfigOptions = {}): DataConfig {
  if (opts.cluster === undefined) {
    const bound = override.getStore();
    if (bound !== undefined) return bound;
  }
  const envCluster = process.env['MARIN_CLUSTER'];
  const cluster = opts.cluster ?? (envCluster !== undefined && envCluster !== '' ? envCluster : 'marin');
  const dirs = opts.searchDirs ?? defaultClusterSearchDirs();
  const cacheKey = `${cluster}\0${dirs.join('\0')}`;
  const hit = cache.get(cacheKey);
  if (hit !== undefined) return hit;
  const file = dirs.map((d) => join(d, `${cluster}.yaml`)).find((f) => existsSync(f));
  let config: DataConfig;
  if (file === undefined) {
    if (cluster !== 'marin') {
      throw new RiggingError('RIGGING_NOT_FOUND', `no config for cluster "${cluster}": looked for ${cluster}.yaml in ${dirs.join(', ')}`, {
        details: { path: `${cluster}.yaml`, operation: 'loadDataConfig', searchDirs: dirs },
      });
    }
    config = EMPTY_DATA_CONFIG;
  } else {
    let doc: unknown;
    try {
      doc = parseYaml(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new RiggingError('RIGGING_INVALID_ARGUMENT', `cluster config "${file}" is not valid YAML`, {
        cause: err,
        details: { path: file, operation: 'loadDataConfig' },
      });
    }
    config = parseDataConfig(doc, `"${file}"`);
  }
  cache.set(cacheKey, config);
  return config;
}

/** Clears the per-cluster cache of {@link loadDataConfig}. */
export function resetDataConfigCache(): void {
  cache.clear();
}

/**
 * Runs `fn` with `config` as the data config for its async scope (Marin's `use_data_config`).
 * @example withDataConfig(parseDataConfig({ data: { region_buckets: {} } }), () => marinPrefix())
 */
export function withDataConfig<T>(config: DataConfig, fn: () => T): T {
  return override.run(config, fn);
}
