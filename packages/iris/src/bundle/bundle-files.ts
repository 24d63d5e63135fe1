import { execFile } from 'node:child_process';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

// Never shipped, whatever git says: VCS data, installed dependencies, build outputs and Nx's cache.
const EXCLUDED_DIRS = new Set(['.git', 'node_modules', '.nx', 'dist']);

/** True when a workspace-relative path must stay out of every bundle. */
export function isExcludedPath(path: string): boolean {
  if (path.endsWith('.log')) return true;
  return path.split('/').some((part) => EXCLUDED_DIRS.has(part));
}

/**
 * Lists the files of a workspace that go into its bundle, as sorted `/`-separated relative paths:
 * `git ls-files --cached --others --exclude-standard` inside a git work tree (so `.gitignore` is
 * honoured), else a directory walk that also skips dot-directories. Only regular files present on
 * disk are listed; symlinks and deleted-but-tracked files are left out.
 */
export async function listBundleFiles(root: string): Promise<string[]> {
  const listed = (await gitListFiles(root)) ?? (await walk(root));
  const files: string[] = [];
  for (const path of new Set(listed)) {
    if (path === '' || isExcludedPath(path)) continue;
    try {
      if ((await lstat(join(root, path))).isFile()) files.push(path);
    } catch {
      // tracked but deleted on disk: not part of the workspace as it is now
    }
  }
  return files.sort(comparePaths);
}

/** Orders paths by their UTF-8 bytes, the order manifests and archives use. */
export function comparePaths(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

async function gitListFiles(root: string): Promise<string[] | null> {
  try {
    const { stdout } = await execFileAsync('git', ['-C', root, 'ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
      maxBuffer: 256 * 1024 * 1024,
      encoding: 'buffer',
    });
    return stdout.toString('utf8').split('\0');
  } catch {
    return null; // not a git work tree (or no git): walk instead
  }
}

async function walk(root: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(join(root, prefix), { withFileTypes: true });
  for (const entry of entries) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name.startsWith('.') || EXCLUDED_DIRS.has(entry.name)) continue;
      out.push(...(await walk(root, path)));
    } else if (entry.isFile()) {
      out.push(path);
    }
  }
  return out;
}
