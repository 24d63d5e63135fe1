import { execFile } from 'node:child_process';
import { userInfo } from 'node:os';
import { promisify } from 'node:util';

/** Marin's `rigging.provenance.Provenance`: who, when, from which commit and command an artifact was built. */
export interface Provenance {
  tree_hash: string;
  base_commit: string;
  dirty: boolean;
  branch: string | null;
  built_by: string | null;
  git_remote: string | null;
  /** Local time without a zone, as Python's `datetime.now().isoformat()` writes it. */
  created_at: string;
  command_line: string[];
}

/** The env var a submitting client publishes its launch provenance in (JSON); preferred when set. */
export const LAUNCH_PROVENANCE_ENV = 'MARIN_PROVENANCE';

/**
 * The provenance published in `MARIN_PROVENANCE`, or null when absent or malformed (Marin's `from_json`: it needs
 * `tree_hash`, `base_commit` and `dirty`, and a `built_by` that is a string or null).
 */
export function publishedProvenance(env: NodeJS.ProcessEnv = process.env): Provenance | null {
  const raw = env[LAUNCH_PROVENANCE_ENV];
  if (raw === undefined || raw === '') return null;
  try {
    const d = JSON.parse(raw) as Record<string, unknown>;
    if (typeof d !== 'object' || d === null || !('tree_hash' in d) || !('base_commit' in d) || !('dirty' in d)) return null;
    if (d['built_by'] !== undefined && d['built_by'] !== null && typeof d['built_by'] !== 'string') return null;
    return normalizeProvenance({ ...(d as Partial<Provenance>), dirty: Boolean(d['dirty']) });
  } catch {
    return null;
  }
}

async function git(args: string[]): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)('git', args, { timeout: 10_000 });
    return stdout.trim();
  } catch {
    return '';
  }
}

function localIsoMicros(d: Date): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds() * 1000, 6)}`;
}

/**
 * Best-effort provenance of this launch, as Marin's `Provenance.capture()`: the `MARIN_PROVENANCE` JSON when a
 * submitter published one, else git facts of the working directory (each empty or null outside a checkout),
 * the OS user, the time and the command line (`process.argv` after the interpreter, as Python's `sys.argv`).
 */
export async function captureProvenance(env: NodeJS.ProcessEnv = process.env): Promise<Provenance> {
  const published = publishedProvenance(env);
  if (published !== null) return published;
  const stash = await git(['stash', 'create']);
  const ref = stash === '' ? 'HEAD' : stash;
  const [treeHash, baseCommit, status, branch, remote] = await Promise.all([
    git(['rev-parse', '--short', `${ref}^{tree}`]),
    git(['rev-parse', '--short', 'HEAD']),
    git(['status', '--porcelain', '--untracked-files=all']),
    git(['symbolic-ref', '--short', '-q', 'HEAD']),
    git(['remote', 'get-url', 'origin']),
  ]);
  let user: string | null = null;
  try {
    user = userInfo().username;
  } catch {
    user = env['USER'] ?? null;
  }
  return {
    tree_hash: treeHash,
    base_commit: baseCommit,
    dirty: status !== '',
    branch: branch === '' ? null : branch,
    built_by: user,
    git_remote: remote === '' ? null : remote,
    created_at: localIsoMicros(new Date()),
    command_line: process.argv.slice(1),
  };
}

/** A provenance object read from a record or the environment, with Marin's defaults for absent fields. */
export function normalizeProvenance(p: Partial<Provenance>): Provenance {
  return {
    tree_hash: p.tree_hash ?? '',
    base_commit: p.base_commit ?? '',
    dirty: p.dirty ?? false,
    branch: p.branch ?? null,
    built_by: p.built_by ?? null,
    git_remote: p.git_remote ?? null,
    created_at: p.created_at ?? '',
    command_line: [...(p.command_line ?? [])],
  };
}
