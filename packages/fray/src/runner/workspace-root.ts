import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const cache = new Map<string, string>();

/**
 * The workspace (bundle) root for `cwd`: the git top level, or `cwd` itself outside git. Cached per directory.
 */
export function findWorkspaceRoot(cwd: string = process.cwd()): string {
  const dir = resolve(cwd);
  const hit = cache.get(dir);
  if (hit !== undefined) return hit;
  let root = dir;
  try {
    root = execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || dir;
  } catch {
    // Not a git checkout (or no git): the directory itself is the workspace.
  }
  cache.set(dir, root);
  return root;
}
