import { RiggingError } from '../errors.js';
import type { Filesystem } from './filesystem.js';
import { createGcsFilesystem } from './gcs-filesystem.js';
import { createLocalFilesystem } from './local-filesystem.js';
import { createMemoryFilesystem } from './memory-filesystem.js';
import { schemeOf } from './storage-path.js';
import { setCrossBackendLookup } from './stream-copy.js';

/** Builds the backend for a scheme; called once, on first use of that scheme (unless registered with `cache: false`). */
export type FilesystemFactory = () => Filesystem;

/** Options of {@link registerFilesystem}. */
export interface RegisterFilesystemOptions {
  /**
   * Reuse the factory's first filesystem. `false` calls the factory on every lookup, for a factory that returns a
   * replaceable default (`mirror://` returns `setDefaultMirrorFilesystem`'s).
   * @default true
   */
  cache?: boolean;
}

const factories = new Map<string, { factory: FilesystemFactory; cache: boolean }>();
const instances = new Map<string, Filesystem>();
let builtinsInstalled = false;

// Installed lazily so the backends' own imports of this module never see a half-built table.
function installBuiltins(): void {
  if (builtinsInstalled) return;
  builtinsInstalled = true;
  const local = createLocalFilesystem();
  if (!factories.has('file')) factories.set('file', { factory: () => local, cache: true });
  if (!factories.has('memory')) factories.set('memory', { factory: createMemoryFilesystem, cache: true });
  if (!factories.has('gs')) factories.set('gs', { factory: () => createGcsFilesystem(), cache: true });
}

/**
 * Registers (or replaces) the backend for `scheme` (lower case, without `://`).
 * The built-ins are `file` (also bare paths), `memory` and `gs`; `mirror`, which reads through this registry,
 * registers itself when `@marin/rigging` loads.
 */
export function registerFilesystem(scheme: string, factory: FilesystemFactory, options: RegisterFilesystemOptions = {}): void {
  installBuiltins();
  const key = schemeOf(`${scheme}://x`) ?? scheme.toLowerCase();
  factories.set(key, { factory, cache: options.cache ?? true });
  instances.delete(key);
}

/**
 * The backend for `url`, chosen by scheme (a bare path is local).
 * @throws {RiggingError} RIGGING_UNSUPPORTED if no filesystem is registered for the scheme.
 */
export function filesystemFor(url: string): Filesystem {
  installBuiltins();
  const scheme = schemeOf(url) ?? 'file';
  const cached = instances.get(scheme);
  if (cached !== undefined) return cached;
  const entry = factories.get(scheme);
  if (entry === undefined) {
    throw new RiggingError('RIGGING_UNSUPPORTED', `no filesystem registered for scheme "${scheme}"`, {
      details: { path: url, operation: 'filesystemFor', scheme },
    });
  }
  const fs = entry.factory();
  if (entry.cache) instances.set(scheme, fs);
  return fs;
}

// The backends copy and rename onto other backends through this registry; it imports them, so it hands itself over.
setCrossBackendLookup(filesystemFor);
