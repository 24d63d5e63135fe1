import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AttemptProcess } from './attempt-process.js';
import { isDependencyStep } from '../core/setup-commands.js';
import { copyTree, linkTreePath } from '../bundle/tree-copy.js';

/** Options of {@link EnvironmentCache}. */
export interface EnvironmentCacheOptions {
  /** The worker's cache dir; dependency trees go to `deps/`, per-bundle preparations to `envs/`. */
  cacheDir: string;
  /** Grace between SIGTERM and SIGKILL when a setup command is stopped. @default 5000 */
  termTimeoutMs?: number;
}

/** What one attempt's workdir is prepared from. */
export interface PrepareWorkdirOptions {
  /** Content id of the bundle, or `""` for an empty workdir. */
  bundleId: string;
  /** The extracted bundle tree, or null for an empty workdir. */
  bundleTree: string | null;
  /** The job's setup commands, run as given. */
  setupCommands: readonly (readonly string[])[];
  /** The attempt's fresh workdir. */
  workdir: string;
  /** Environment for setup commands (the task's environment). */
  env: Readonly<Record<string, string>>;
  /** Receives setup output and cache notices (logged with source `build`). */
  onLine: (line: string) => void;
  /** Aborts a running setup (the attempt was stopped). */
  signal?: AbortSignal | undefined;
}

/** How preparing a workdir ended. */
export type PrepareOutcome =
  | { ok: true; dependencies: 'none' | 'installed' | 'cached'; preparation: 'none' | 'ran' | 'cached' }
  | { ok: false; aborted: boolean; exitCode: number; message: string };

interface CachedTree {
  tree: string;
  paths: string[];
}

type StepResult = { ok: true } | { ok: false; aborted: boolean; exitCode: number; message: string };

/**
 * Runs setup commands once per environment key and links their results into each attempt's
 * workdir. Dependency steps (`npm install …`) are keyed by the lockfile, every `package.json`
 * and the install commands, so a code-only change never re-installs; the remaining steps are keyed
 * by bundle id and commands. A failing step caches nothing.
 */
export class EnvironmentCache {
  readonly #cacheDir: string;
  readonly #termTimeoutMs: number;
  readonly #building = new Map<string, Promise<unknown>>();

  constructor(options: EnvironmentCacheOptions) {
    this.#cacheDir = options.cacheDir;
    this.#termTimeoutMs = options.termTimeoutMs ?? 5000;
  }

  /** Fills `workdir` with a fresh copy of the bundle plus the cached or newly built setup outputs. */
  async prepareWorkdir(options: PrepareWorkdirOptions): Promise<PrepareOutcome> {
    mkdirSync(options.workdir, { recursive: true }); // usually there already: no thread-pool round trip
    if (options.bundleTree !== null) await copyTree(options.bundleTree, options.workdir);
    const commands = options.setupCommands.map((c) => [...c]);
    let split = 0;
    while (split < commands.length && isDependencyStep(commands[split] as string[])) split += 1;
    const depSteps = commands.slice(0, split);
    const prepSteps = commands.slice(split);
    let dependencies: 'none' | 'installed' | 'cached' = 'none';
    let deps: CachedTree | null = null;
    if (depSteps.length > 0) {
      const key = await dependencyKey(options.bundleTree, depSteps);
      const got = await this.#ensure('deps', key, options, async (tree) => {
        if (options.bundleTree !== null) await copyTree(options.bundleTree, tree);
      }, depSteps);
      if (!got.ok) return got;
      deps = got.entry;
      dependencies = got.cached ? 'cached' : 'installed';
      for (const path of deps.paths) await linkTreePath(deps.tree, options.workdir, path);
    }
    let preparation: 'none' | 'ran' | 'cached' = 'none';
    if (prepSteps.length > 0) {
      const key = sha256(`${options.bundleId}\n${JSON.stringify(commands)}`);
      const depsTree = deps;
      const got = await this.#ensure('envs', key, options, async (tree) => {
        if (options.bundleTree !== null) await copyTree(options.bundleTree, tree);
        if (depsTree !== null) for (const path of depsTree.paths) await linkTreePath(depsTree.tree, tree, path);
      }, prepSteps);
      if (!got.ok) return got;
      preparation = got.cached ? 'cached' : 'ran';
      for (const path of got.entry.paths) await linkTreePath(got.entry.tree, options.workdir, path);
    }
    return { ok: true, dependencies, preparation };
  }

  async #ensure(
    kind: 'deps' | 'envs',
    key: string,
    options: PrepareWorkdirOptions,
    populate: (tree: string) => Promise<void>,
    steps: string[][],
  ): Promise<({ ok: true; entry: CachedTree; cached: boolean }) | Extract<PrepareOutcome, { ok: false }>> {
    const dir = join(this.#cacheDir, kind, key);
    const lockKey = `${kind}/${key}`;
    for (;;) {
      const existing = await readCached(dir);
      if (existing !== null) {
        options.onLine(`[iris] reusing ${kind === 'deps' ? 'dependencies' : 'environment'} ${key}`);
        return { ok: true, entry: existing, cached: true };
      }
      const inFlight = this.#building.get(lockKey);
      if (inFlight === undefined) break;
      options.onLine(`[iris] waiting for environment ${key}`);
      await inFlight.catch(() => undefined);
    }
    const build = (async () => {
      const staging = join(this.#cacheDir, kind, `.tmp-${key}-${randomBytes(4).toString('hex')}`);
      const tree = join(staging, 'tree');
      try {
        await mkdir(tree, { recursive: true });
        await populate(tree);
        const before = await listTree(tree);
        options.onLine(`[iris] ${kind === 'deps' ? 'installing dependencies' : 'preparing environment'} ${key}`);
        for (const argv of steps) {
          const result = await this.#runStep(argv, tree, options);
          if (!result.ok) return result;
        }
        const paths = await newTopPaths(tree, before);
        await writeFile(join(staging, 'paths.json'), JSON.stringify(paths));
        try {
          await mkdir(join(this.#cacheDir, kind), { recursive: true });
          await rename(staging, dir);
        } catch (e) {
          // Another daemon sharing this cache dir finished the same key first: use its tree.
          const theirs = await readCached(dir);
          if (theirs === null) throw e;
          return { ok: true as const, entry: theirs, cached: false };
        }
        return { ok: true as const, entry: { tree: join(dir, 'tree'), paths }, cached: false };
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
    })();
    this.#building.set(lockKey, build);
    try {
      return await build;
    } finally {
      this.#building.delete(lockKey);
    }
  }

  async #runStep(argv: string[], cwd: string, options: PrepareWorkdirOptions): Promise<StepResult> {
    if (isAborted(options.signal)) return { ok: false, aborted: true, exitCode: 137, message: 'stopped during setup' };
    const display = argv.join(' ');
    options.onLine(`$ ${display}`);
    const env = { ...options.env, PATH: `${join(cwd, 'node_modules', '.bin')}:${options.env['PATH'] ?? ''}` };
    let proc: AttemptProcess;
    try {
      proc = await AttemptProcess.spawn({ argv, cwd, env, onOutput: (_source, line) => options.onLine(line) });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'error';
      return { ok: false, aborted: false, exitCode: 127, message: `setup command failed: ${display} could not start (${code})` };
    }
    const onAbort = (): void => void proc.stop(this.#termTimeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    // An abort while the command was still starting fired before the listener existed.
    if (isAborted(options.signal)) onAbort();
    try {
      const status = await proc.exited;
      if (isAborted(options.signal)) return { ok: false, aborted: true, exitCode: status.exitCode, message: 'stopped during setup' };
      if (status.exitCode !== 0) {
        return { ok: false, aborted: false, exitCode: status.exitCode, message: `setup command failed: ${display} exited ${status.exitCode}` };
      }
      return { ok: true };
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
    }
  }
}

/**
 * The dependency-layer cache key (see "Bundles and setup" in `src/worker/DESIGN.md`): sha256 over `package-lock.json`, every `package.json` of the
 * bundle (with its path) and the install commands themselves.
 */
export async function dependencyKey(bundleTree: string | null, depSteps: readonly (readonly string[])[]): Promise<string> {
  const hash = createHash('sha256');
  if (bundleTree !== null) {
    const manifests = (await listTree(bundleTree))
      .filter((p) => p === 'package-lock.json' || p === 'package.json' || p.endsWith('/package.json'))
      .filter((p) => !p.split('/').includes('node_modules'))
      .sort();
    for (const path of manifests) {
      hash.update(`${path}\0`);
      hash.update(await readFile(join(bundleTree, path)));
      hash.update('\0');
    }
  }
  hash.update(JSON.stringify(depSteps));
  return hash.digest('hex');
}

async function readCached(dir: string): Promise<CachedTree | null> {
  try {
    const paths = JSON.parse(await readFile(join(dir, 'paths.json'), 'utf8')) as string[];
    return { tree: join(dir, 'tree'), paths };
  } catch {
    return null;
  }
}

/** Every file and directory under `root` as relative paths (symlinks are not followed). */
async function listTree(root: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(root, prefix), { withFileTypes: true })) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    out.push(path);
    if (entry.isDirectory()) out.push(...(await listTree(root, path)));
  }
  return out;
}

/** The top-most paths under `root` that were not in `before` (a new directory counts once). */
async function newTopPaths(root: string, before: readonly string[]): Promise<string[]> {
  const known = new Set(before);
  const out: string[] = [];
  const visit = async (prefix: string): Promise<void> => {
    for (const entry of await readdir(join(root, prefix), { withFileTypes: true })) {
      const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      if (!known.has(path)) out.push(path);
      else if (entry.isDirectory()) await visit(path);
    }
  };
  await visit('');
  return out.sort();
}

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
