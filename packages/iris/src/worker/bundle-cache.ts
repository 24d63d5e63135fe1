import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { IrisError } from '../errors.js';
import { extractBundleArchive } from '../bundle/bundle-archive.js';
import type { BundleLimits } from '../bundle/bundle-limits.js';

/** Options of {@link BundleCache}. */
export interface BundleCacheOptions {
  /** Directory holding one extracted tree per bundle id (`<cacheDir>/bundles`). */
  dir: string;
  /** Downloads a bundle archive by id (the worker calls the controller's `FetchBundle`). */
  fetch: (bundleId: string) => Promise<Buffer>;
  /** Trees kept; the least recently used tree not in use is evicted beyond this. @default 16 */
  maxEntries?: number;
  /** Caps on an archive's inflated bytes and entries, checked while it is extracted. @default resolveBundleLimits() */
  limits?: Partial<BundleLimits>;
}

/** A bundle tree held by one attempt; release it when the attempt's workdir is ready. */
export interface BundleLease {
  /** The extracted, verified tree; treat it as read-only. */
  path: string;
  /** Whether this lease was served from the cache without a download. */
  hit: boolean;
  /** Gives the tree back; resolves once any eviction it allowed is done. */
  release(): Promise<void>;
}

const ID_PATTERN = /^[0-9a-f]{64}$/;

/**
 * The worker's bundle cache: each bundle is fetched once, verified against its id, extracted
 * into `<dir>/<id>/` and reused by every later attempt; at most `maxEntries` trees are kept (LRU),
 * never evicting one in use.
 */
export class BundleCache {
  readonly #dir: string;
  readonly #fetch: (bundleId: string) => Promise<Buffer>;
  readonly #maxEntries: number;
  readonly #limits: Partial<BundleLimits>;
  readonly #inFlight = new Map<string, Promise<string>>();
  readonly #lastUse = new Map<string, number>();
  readonly #inUse = new Map<string, number>();
  #fetches = 0;
  #loaded: Promise<void> | null = null;

  constructor(options: BundleCacheOptions) {
    this.#dir = options.dir;
    this.#fetch = options.fetch;
    this.#maxEntries = options.maxEntries ?? 16;
    this.#limits = options.limits ?? {};
  }

  /** How many archives this cache has downloaded. */
  get fetchCount(): number {
    return this.#fetches;
  }

  /**
   * Returns the extracted tree of `bundleId`, downloading and verifying it on a miss; concurrent
   * callers for one id share the download.
   * @throws {IrisError} IRIS_INVALID_ARGUMENT for a malformed id or an archive that does not match it;
   *   IRIS_BUNDLE_UNSAFE or IRIS_BUNDLE_TOO_LARGE for an archive refused while it was extracted
   */
  async acquire(bundleId: string): Promise<BundleLease> {
    if (!ID_PATTERN.test(bundleId)) throw new IrisError('IRIS_INVALID_ARGUMENT', `bundle id "${bundleId}" is not a sha256 hex digest`);
    await (this.#loaded ??= this.#loadExisting());
    this.#inUse.set(bundleId, (this.#inUse.get(bundleId) ?? 0) + 1);
    let hit = true;
    try {
      let path = await this.#present(bundleId);
      if (path === null) {
        hit = false;
        let download = this.#inFlight.get(bundleId);
        if (download === undefined) {
          download = this.#download(bundleId).finally(() => this.#inFlight.delete(bundleId));
          this.#inFlight.set(bundleId, download);
        }
        path = await download;
      }
      this.#lastUse.set(bundleId, Date.now());
      let released = false;
      return {
        path,
        hit,
        release: async () => {
          if (released) return;
          released = true;
          this.#unuse(bundleId);
          await this.#evict();
        },
      };
    } catch (e) {
      this.#unuse(bundleId);
      throw e;
    }
  }

  #unuse(bundleId: string): void {
    const count = (this.#inUse.get(bundleId) ?? 1) - 1;
    if (count <= 0) this.#inUse.delete(bundleId);
    else this.#inUse.set(bundleId, count);
  }

  async #present(bundleId: string): Promise<string | null> {
    const path = join(this.#dir, bundleId);
    try {
      return (await stat(path)).isDirectory() ? path : null;
    } catch {
      return null;
    }
  }

  async #download(bundleId: string): Promise<string> {
    this.#fetches += 1;
    const archive = await this.#fetch(bundleId);
    // Verify and extract in one streaming pass beside the final place, then rename, so a present
    // directory is always complete and verified; the limits stop a bomb before the disk fills.
    const staging = join(this.#dir, `.tmp-${bundleId}-${randomBytes(4).toString('hex')}`);
    try {
      await extractBundleArchive(archive, staging, bundleId, { limits: this.#limits });
      await rename(staging, join(this.#dir, bundleId));
    } catch (e) {
      await rm(staging, { recursive: true, force: true });
      if ((await this.#present(bundleId)) === null) throw e;
    }
    this.#lastUse.set(bundleId, Date.now());
    await this.#evict();
    return join(this.#dir, bundleId);
  }

  async #loadExisting(): Promise<void> {
    await mkdir(this.#dir, { recursive: true });
    for (const name of await readdir(this.#dir)) {
      if (name.startsWith('.tmp-')) await rm(join(this.#dir, name), { recursive: true, force: true });
      else if (ID_PATTERN.test(name)) this.#lastUse.set(name, (await stat(join(this.#dir, name))).mtimeMs);
    }
  }

  async #evict(): Promise<void> {
    const candidates = [...this.#lastUse.entries()].sort((a, b) => a[1] - b[1]);
    let excess = this.#lastUse.size - this.#maxEntries;
    for (const [id] of candidates) {
      if (excess <= 0) break;
      if (this.#inUse.has(id) || this.#inFlight.has(id)) continue;
      this.#lastUse.delete(id);
      await rm(join(this.#dir, id), { recursive: true, force: true });
      excess -= 1;
    }
  }
}
