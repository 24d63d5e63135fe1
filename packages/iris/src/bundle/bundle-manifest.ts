import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { comparePaths } from './bundle-files.js';

/** One file of a bundle. */
export interface BundleFile {
  /** `/`-separated path relative to the bundle root. */
  path: string;
  /** `0o755` when any execute bit is set, else `0o644`. */
  mode: 0o644 | 0o755;
  /** sha256 hex of the content. */
  sha256: string;
  sizeBytes: number;
}

/** Normalises a file mode to the two modes a bundle knows. */
export function bundleModeOf(mode: number): 0o644 | 0o755 {
  return (mode & 0o111) !== 0 ? 0o755 : 0o644;
}

/** Describes one file from its content and mode. */
export function bundleFileOf(path: string, content: Buffer, mode: number): BundleFile {
  return { path, mode: bundleModeOf(mode), sha256: createHash('sha256').update(content).digest('hex'), sizeBytes: content.length };
}

/** Reads and hashes `paths` under `root`. */
export async function readBundleFiles(root: string, paths: readonly string[]): Promise<BundleFile[]> {
  const files: BundleFile[] = [];
  // A bounded number of reads in flight: fast on many small files, no fd exhaustion on huge trees.
  for (let i = 0; i < paths.length; i += 32) {
    const batch = paths.slice(i, i + 32);
    files.push(
      ...(await Promise.all(
        batch.map(async (path) => {
          const full = join(root, path);
          const [content, info] = await Promise.all([readFile(full), stat(full)]);
          return bundleFileOf(path, content, info.mode);
        }),
      )),
    );
  }
  return files;
}

/**
 * The bundle manifest text: lines `<644|755>\t<sha256>\t<path>` sorted by path, joined by `\n`.
 */
export function manifestText(files: readonly BundleFile[]): string {
  return [...files]
    .sort((a, b) => comparePaths(a.path, b.path))
    .map((f) => `${f.mode.toString(8)}\t${f.sha256}\t${f.path}`)
    .join('\n');
}

/** A bundle's content id: the sha256 hex of its manifest, independent of archive bytes. */
export function bundleIdOf(files: readonly BundleFile[]): string {
  return createHash('sha256').update(manifestText(files)).digest('hex');
}
