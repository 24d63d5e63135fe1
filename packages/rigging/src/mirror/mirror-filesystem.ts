import type { Readable, Writable } from 'node:stream';
import { currentMirrorBudget, globalTransferBudget } from '../budget/mirror-budget.js';
import type { TransferBudget } from '../budget/transfer-budget.js';
import { loadDataConfig } from '../config/data-config.js';
import { marinPrefix } from '../config/marin-prefix.js';
import { RiggingError } from '../errors.js';
import { atomicRename } from '../fs/atomic-rename.js';
import type { ByteRange, FileInfo, Filesystem, RmOptions } from '../fs/filesystem.js';
import { filesystemFor, registerFilesystem } from '../fs/registry.js';
import { StoragePath, prefixJoin, schemeOf } from '../fs/storage-path.js';
import { fsError, notFound } from '../internal/fs-error.js';
import { createLease } from '../locks/distributed-lease.js';
import type { LeaseTimings } from '../locks/lease-timings.js';
import { defaultWorkerId } from '../locks/worker-id.js';

/** How long a reader waits for another process's copy. */
export interface MirrorLockWait {
  /** Polls before giving up. @default 60 */
  attempts: number;
  /** Milliseconds between polls. @default 2000 */
  intervalMs: number;
}

/** Options of {@link createMirrorFilesystem}. */
export interface MirrorFilesystemOptions {
  /** Where reads are served from and writes go. @default await marinPrefix() */
  localPrefix?: string;
  /**
   * Regional prefixes scanned in order. @default `gs://<bucket>` of every `store: gcs` region bucket in
   * config order, minus the local bucket; `[]` unless the local prefix is `gs://`.
   */
  remotePrefixes?: readonly string[];
  /** Charged when no `mirrorBudget` scope is active. @default globalTransferBudget() */
  budget?: TransferBudget;
  /** Base of the lock holder ids; each copy gets its own id. @default defaultWorkerId() per copy */
  workerId?: string;
  /** @default { attempts: 60, intervalMs: 2000 } */
  lockWait?: MirrorLockWait;
  /** Lease timings of the copy locks. @default leaseTimings() */
  leaseTimings?: LeaseTimings;
  /** Where copy log lines go. @default console.info */
  log?: (line: string) => void;
}

interface MirrorLayout {
  localPrefix: string;
  remotePrefixes: readonly string[];
}

const SCHEME = 'mirror://';

/** The relative key of a `mirror://` URL. @throws {RiggingError} RIGGING_INVALID_ARGUMENT for traversal or a non-mirror URL. */
export function mirrorRelativeKey(url: string): string {
  if (schemeOf(url) !== 'mirror') {
    throw fsError('RIGGING_INVALID_ARGUMENT', `not a mirror:// url: "${url}"`, { path: url, operation: 'mirror' });
  }
  const rel = url.slice(url.indexOf('://') + 3).replace(/^\/+/, '').replace(/\/+$/, '');
  if (rel.split('/').some((s) => s === '..' || s === '.')) {
    throw fsError('RIGGING_INVALID_ARGUMENT', `mirror path "${url}" must not contain "." or ".." segments`, { path: url, operation: 'mirror' });
  }
  return rel;
}

function defaultRemotes(localPrefix: string): string[] {
  const local = StoragePath.parse(localPrefix);
  if (local.scheme !== 'gs') return [];
  return loadDataConfig()
    .regionBuckets.filter((b) => b.store === 'gcs' && b.bucket !== local.netloc)
    .map((b) => `gs://${b.bucket}`);
}

/**
 * `mirror://<rel>`: the same relative key in every regional bucket. Reads prefer the local prefix and
 * copy from the first remote holding the file (under a lease lock, charged to the active budget,
 * staged in a temp sibling); writes always go local.
 */
export class MirrorFilesystem implements Filesystem, AsyncDisposable {
  private layoutPromise: Promise<MirrorLayout> | undefined;
  private copied = 0;
  private copyCounter = 0;
  private readonly wait: MirrorLockWait;
  private readonly log: (line: string) => void;

  constructor(private readonly opts: MirrorFilesystemOptions = {}) {
    this.wait = opts.lockWait ?? { attempts: 60, intervalMs: 2000 };
    this.log = opts.log ?? ((line) => console.info(line));
  }

  /** Bytes copied into the local prefix by this instance. */
  get bytesCopied(): number {
    return this.copied;
  }

  /** The local prefix and the remote scan order, resolved on first use. */
  layout(): Promise<MirrorLayout> {
    this.layoutPromise ??= (async () => {
      const localPrefix = (this.opts.localPrefix ?? (await marinPrefix())).replace(/(?<!:\/)\/+$/, '');
      const remotePrefixes = this.opts.remotePrefixes ?? defaultRemotes(localPrefix);
      return { localPrefix, remotePrefixes };
    })();
    return this.layoutPromise;
  }

  private async localUrl(url: string): Promise<string> {
    const rel = mirrorRelativeKey(url);
    return prefixJoin((await this.layout()).localPrefix, rel);
  }

  /** The first remote holding `rel`, with its stat (one metadata round-trip per remote scanned). */
  private async findRemote(rel: string): Promise<FileInfo | null> {
    for (const prefix of (await this.layout()).remotePrefixes) {
      const candidate = prefixJoin(prefix, rel);
      try {
        const info = await filesystemFor(candidate).stat(candidate);
        return { ...info, url: candidate };
      } catch (err) {
        if (!RiggingError.hasCode(err, 'RIGGING_NOT_FOUND')) throw err;
      }
    }
    return null;
  }

  /**
   * The concrete local URL of `url`, copying it from a remote first when needed.
   * @throws {RiggingError} RIGGING_NOT_FOUND if no bucket has it; RIGGING_BUDGET_EXCEEDED if the copy
   *   would pass the active budget; RIGGING_LOCK_TIMEOUT if another copier holds the lock too long.
   */
  async resolveUrl(url: string): Promise<string> {
    const rel = mirrorRelativeKey(url);
    const { localPrefix } = await this.layout();
    const local = prefixJoin(localPrefix, rel);
    const localFs = filesystemFor(local);
    if (await localFs.exists(local)) return local;
    const found = await this.findRemote(rel);
    if (found === null) {
      throw fsError('RIGGING_NOT_FOUND', `mirror://${rel} not found in any marin bucket`, { path: url, operation: 'mirror' });
    }
    if (found.type === 'directory') {
      throw fsError('RIGGING_INVALID_ARGUMENT', `mirror://${rel} is a directory; mirror its files (glob "${rel}/**")`, {
        path: url,
        operation: 'mirror',
      });
    }
    const source = found.url;
    const lockUrl = prefixJoin(localPrefix, `.mirror_locks/${rel}.lock`);
    const workerId = this.opts.workerId === undefined ? defaultWorkerId() : `${this.opts.workerId}-${++this.copyCounter}`;
    const lease = createLease(lockUrl, { workerId, ...(this.opts.leaseTimings === undefined ? {} : { timings: this.opts.leaseTimings }) });
    if (!(await lease.tryAcquire())) {
      for (let i = 0; i < this.wait.attempts; i++) {
        await new Promise((r) => setTimeout(r, this.wait.intervalMs));
        if (await localFs.exists(local)) return local;
        if (!(await lease.hasActiveHolder())) break;
      }
      if (await localFs.exists(local)) return local;
      if (!(await lease.tryAcquire())) {
        throw fsError('RIGGING_LOCK_TIMEOUT', `Could not acquire mirror lock for ${rel} after waiting`, {
          path: url,
          operation: 'mirror',
          details: { lock: lockUrl },
        });
      }
    }
    try {
      if (await localFs.exists(local)) return local; // another copier finished while we acquired
      const size = found.size;
      (currentMirrorBudget() ?? this.opts.budget ?? globalTransferBudget()).record(size, source);
      this.log(`Mirror: copying ${source} → ${local}`);
      await atomicRename(local, (tmp) => filesystemFor(source).copy(source, tmp));
      this.copied += size;
      return local;
    } finally {
      await lease.release();
    }
  }

  async exists(url: string): Promise<boolean> {
    const rel = mirrorRelativeKey(url);
    const local = await this.localUrl(url);
    if (await filesystemFor(local).exists(local)) return true;
    return (await this.findRemote(rel)) !== null;
  }

  async stat(url: string): Promise<FileInfo> {
    const local = await this.localUrl(url);
    if (!(await filesystemFor(local).exists(local))) {
      const remote = await this.findRemote(mirrorRelativeKey(url));
      if (remote !== null && remote.type === 'directory') return { ...remote, url: `${SCHEME}${mirrorRelativeKey(url)}` };
    }
    const resolved = await this.resolveUrl(url);
    const info = await filesystemFor(resolved).stat(resolved);
    return { ...info, url: `${SCHEME}${mirrorRelativeKey(url)}` };
  }

  async size(url: string): Promise<number> {
    return (await this.stat(url)).size;
  }

  async ls(url: string): Promise<FileInfo[]> {
    const rel = mirrorRelativeKey(url);
    const { localPrefix, remotePrefixes } = await this.layout();
    const byUrl = new Map<string, FileInfo>();
    let found = false;
    for (const prefix of [localPrefix, ...remotePrefixes]) {
      const target = prefixJoin(prefix, rel);
      let entries: FileInfo[];
      try {
        entries = await filesystemFor(target).ls(target);
      } catch (err) {
        if (RiggingError.hasCode(err, 'RIGGING_NOT_FOUND')) continue;
        throw err;
      }
      found = true;
      for (const e of entries) {
        const relEntry = StoragePath.parse(e.url).relativeTo(StoragePath.parse(prefix));
        if (relEntry.startsWith('.mirror_locks')) continue;
        const mirrorUrl = `${SCHEME}${relEntry}`;
        if (!byUrl.has(mirrorUrl)) byUrl.set(mirrorUrl, { ...e, url: mirrorUrl }); // local is first, so it wins
      }
    }
    if (!found) throw notFound(url, 'ls');
    return [...byUrl.values()].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  }

  async glob(pattern: string): Promise<string[]> {
    const rel = pattern.slice(pattern.indexOf('://') + 3).replace(/^\/+/, '');
    mirrorRelativeKey(`${SCHEME}${rel.replace(/[*?[\]{}]/g, 'x')}`); // traversal check on the literal parts
    const { localPrefix, remotePrefixes } = await this.layout();
    const out = new Set<string>();
    for (const prefix of [localPrefix, ...remotePrefixes]) {
      const target = prefixJoin(prefix, rel);
      for (const hit of await filesystemFor(target).glob(target)) {
        const relHit = StoragePath.parse(hit).relativeTo(StoragePath.parse(prefix));
        if (!relHit.startsWith('.mirror_locks')) out.add(`${SCHEME}${relHit}`);
      }
    }
    return [...out].sort();
  }

  async createReadStream(url: string, range?: ByteRange): Promise<Readable> {
    const local = await this.resolveUrl(url);
    return filesystemFor(local).createReadStream(local, range);
  }

  async readBytes(url: string): Promise<Buffer> {
    const local = await this.resolveUrl(url);
    return filesystemFor(local).readBytes(local);
  }

  async readText(url: string): Promise<string> {
    return (await this.readBytes(url)).toString('utf8');
  }

  async createWriteStream(url: string): Promise<Writable> {
    const local = await this.localUrl(url);
    return filesystemFor(local).createWriteStream(local);
  }

  async writeBytes(url: string, data: Uint8Array): Promise<void> {
    const local = await this.localUrl(url);
    await filesystemFor(local).writeBytes(local, data);
  }

  async writeText(url: string, text: string): Promise<void> {
    await this.writeBytes(url, Buffer.from(text, 'utf8'));
  }

  async mkdirs(url: string): Promise<void> {
    const local = await this.localUrl(url);
    await filesystemFor(local).mkdirs(local);
  }

  async rm(url: string, opts?: RmOptions): Promise<void> {
    const local = await this.localUrl(url);
    await filesystemFor(local).rm(local, opts);
  }

  async rename(src: string, dst: string): Promise<void> {
    const from = schemeOf(src) === 'mirror' ? await this.localUrl(src) : src;
    const to = schemeOf(dst) === 'mirror' ? await this.localUrl(dst) : dst;
    await filesystemFor(from).rename(from, to);
  }

  async copy(src: string, dst: string): Promise<void> {
    const from = schemeOf(src) === 'mirror' ? await this.resolveUrl(src) : src;
    const to = schemeOf(dst) === 'mirror' ? await this.localUrl(dst) : dst;
    await filesystemFor(from).copy(from, to);
  }

  /** Holds nothing between calls. */
  async close(): Promise<void> {}

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/**
 * A `mirror://` filesystem. Construction is synchronous; the default local prefix
 * (`marinPrefix()`) is resolved on first use.
 *
 * @example
 * const mirror = createMirrorFilesystem({ localPrefix: 'gs://marin-us-central1', remotePrefixes: ['gs://marin-us-east1'] });
 * await mirrorBudget(1, () => mirror.readText('mirror://tokenized/shard-0.jsonl'));
 */
export function createMirrorFilesystem(opts: MirrorFilesystemOptions = {}): MirrorFilesystem {
  return new MirrorFilesystem(opts);
}

let defaultMirror: MirrorFilesystem | undefined;

/** The process default behind `filesystemFor('mirror://…')`, created lazily. */
export function defaultMirrorFilesystem(): MirrorFilesystem {
  defaultMirror ??= createMirrorFilesystem();
  return defaultMirror;
}

/**
 * Makes `filesystemFor('mirror://…')` the process default mirror filesystem (looked up on every call, so
 * {@link setDefaultMirrorFilesystem} takes effect at once). `@marin/rigging`'s entry point calls it when it loads;
 * the registry does not import this module, which is built on it.
 */
export function registerMirrorFilesystem(): void {
  registerFilesystem('mirror', defaultMirrorFilesystem, { cache: false });
}

/** Replaces the process default `mirror://` filesystem (tests); `undefined` restores lazy creation. */
export function setDefaultMirrorFilesystem(fs: MirrorFilesystem | undefined): void {
  defaultMirror = fs;
}

/** The concrete local URL of a `mirror://` URL after mirroring it (other URLs pass through). */
export async function resolveMirrorUrl(url: string): Promise<string> {
  if (schemeOf(url) !== 'mirror') return url;
  return defaultMirrorFilesystem().resolveUrl(url);
}
