import { RiggingError } from '../errors.js';
import type { Filesystem } from './filesystem.js';
import { createGcsFilesystem } from './gcs-filesystem.js';
import { createLocalFilesystem } from './local-filesystem.js';
import { createMemoryFilesystem } from './memory-filesystem.js';
import { defaultMirrorFilesystem } from '../mirror/mirror-filesystem.js';
import { schemeOf } from './storage-path.js';

/** Builds the backend for a scheme; called once, on first use of that scheme. */
export type FilesystemFactory = () => Filesystem;

const factories = new Map<string, FilesystemFactory>();
const instances = new Map<string, Filesystem>();
let builtinsInstalled = false;

// Installed lazily so the backends' own imports of this module never see a half-built table.
function installBuiltins(): void {
  if (builtinsInstalled) return;
  builtinsInstalled = true;
  const local = createLocalFilesystem();
  if (!factories.has('file')) factories.set('file', () => local);
  if (!factories.has('memory')) factories.set('memory', createMemoryFilesystem);
  if (!factories.has('gs')) factories.set('gs', () => createGcsFilesystem());
  // Not cached: setDefaultMirrorFilesystem() may swap the default at any time.
  if (!factories.has('mirror')) factories.set('mirror', defaultMirrorFilesystem);
}

/**
 * Registers (or replaces) the backend for `scheme` (lower case, without `://`).
 * The built-ins are `file` (also bare paths), `memory`, `gs` and `mirror`.
 */
export function registerFilesystem(scheme: string, factory: FilesystemFactory): void {
  installBuiltins();
  const key = schemeOf(`${scheme}://x`) ?? scheme.toLowerCase();
  factories.set(key, factory);
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
  const factory = factories.get(scheme);
  if (factory === undefined) {
    throw new RiggingError('RIGGING_UNSUPPORTED', `no filesystem registered for scheme "${scheme}"`, {
      details: { path: url, operation: 'filesystemFor', scheme },
    });
  }
  const fs = factory();
  if (scheme !== 'mirror') instances.set(scheme, fs);
  return fs;
}
