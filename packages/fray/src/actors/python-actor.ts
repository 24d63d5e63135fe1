import { join } from 'node:path';
import { ensurePythonEnv, pythonEnvCacheDir } from '@marin/rigging';
import { FrayError } from '../errors.js';
import { validatePythonEnvSpec } from '../request/python-env-spec.js';
import type { PythonEnvSpec } from '../request/python-env-spec.js';
import type { JsonValue } from '../request/entrypoint.js';

/** Where `fray_actors` (the Python host and client) lives, relative to the workspace root. */
export const FRAY_PYTHON_DIR = 'packages/fray/python';

/**
 * Which interpreter runs a Python actor: a Python environment built from a lock (the same {@link PythonEnvSpec} jobs
 * take: built once per lock hash on the machine that runs the actor), or an interpreter given by path or name.
 */
export type PythonActorEnv = PythonEnvSpec | { readonly interpreter: string };

/**
 * A Python actor: `module.className(*args)` or `module.factory(*args)` builds the instance, served by
 * `fray_actors.host_actor` in a Python process of its own. The environment must have `grpcio`.
 */
export interface PythonActorEntry {
  readonly python: {
    /** A dotted module name importable with {@link PythonActorEntry.pythonPath} (`fasttext_actor`, `pkg.scorers`). */
    readonly module: string;
    /** A class of the module (give this or `factory`). */
    readonly className?: string;
    /** A function of the module returning the instance (give this or `className`). */
    readonly factory?: string;
  };
  /** The interpreter and its packages. */
  readonly env: PythonActorEnv;
  /** Directories, relative to the workspace root, put on `PYTHONPATH` before `fray_actors`'s. @default [] */
  readonly pythonPath?: readonly string[];
}

/** What the actor process needs to start a Python actor (part of {@link ActorHostSpec}). */
export interface PythonHostSpec {
  readonly module: string;
  /** The class or factory name. */
  readonly attr: string;
  /** The interpreter: a path, or a name looked up on `PATH` (`python` inside a job with a `pythonEnv`). */
  readonly interpreter: string;
  /** Workspace-relative directories for `PYTHONPATH`. */
  readonly pythonPath: readonly string[];
}

/** Whether an entry is a Python one. */
export function isPythonEntry(entry: object): entry is PythonActorEntry {
  return 'python' in entry && typeof (entry as { python: unknown }).python === 'object';
}

/** The class or factory name of a Python entry. */
export function pythonAttrOf(entry: PythonActorEntry): string {
  return entry.python.className ?? entry.python.factory ?? '';
}

/** Checks a Python entry. @throws {FrayError} FRAY_INVALID_ARGUMENT */
export function checkPythonEntry(entry: PythonActorEntry): void {
  const bad = (what: string): never => {
    throw new FrayError('FRAY_INVALID_ARGUMENT', `invalid Python actor entry: ${what}`, { details: { module: String(entry.python?.module) } });
  };
  const { module, className, factory } = entry.python;
  if (typeof module !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(module)) bad(`"module" must be a dotted Python module name, got ${JSON.stringify(module)}`);
  if ((className === undefined) === (factory === undefined)) bad('give exactly one of "className" and "factory"');
  const attr = className ?? factory;
  if (typeof attr !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(attr)) bad(`${JSON.stringify(attr)} is not a Python identifier`);
  if (entry.env === null || typeof entry.env !== 'object') bad('"env" must be a PythonEnvSpec or { interpreter }');
  if ('interpreter' in entry.env) {
    if (typeof entry.env.interpreter !== 'string' || entry.env.interpreter === '') bad('"env.interpreter" must be a non-empty string');
  } else {
    validatePythonEnvSpec(entry.env);
  }
  for (const p of entry.pythonPath ?? []) if (typeof p !== 'string' || p === '' || p.startsWith('/')) bad(`pythonPath entry ${JSON.stringify(p)} must be workspace-relative`);
}

/**
 * The interpreter of a Python entry on this machine: an environment built from its lock (or reused), or the given one.
 * @throws {FrayError} FRAY_ACTOR_NOT_READY when the environment cannot be built (`details.errorText`)
 */
export async function resolveLocalInterpreter(entry: PythonActorEntry, name: string, cacheDir?: string, log?: (line: string) => void): Promise<string> {
  if ('interpreter' in entry.env) return entry.env.interpreter;
  const spec = entry.env;
  try {
    const env = await ensurePythonEnv({ lock: spec.lock, lockName: spec.name, pythonVersion: spec.pythonVersion, cacheDir: cacheDir ?? pythonEnvCacheDir(), ...(log ? { log } : {}) });
    return env.python;
  } catch (cause) {
    throw new FrayError('FRAY_ACTOR_NOT_READY', `actor "${name}" did not become ready: cannot build its Python environment "${spec.name}"`, {
      cause,
      details: { actor: name, lock: spec.name, errorText: cause instanceof Error ? cause.message : String(cause) },
    });
  }
}

/** The `PYTHONPATH` of a Python actor: its own directories, then `fray_actors`'s, then the inherited one. */
export function pythonPathOf(spec: PythonHostSpec, workspace: string, inherited: string | undefined): string {
  const dirs = [...spec.pythonPath.map((p) => join(workspace, p)), join(workspace, FRAY_PYTHON_DIR)];
  return [...dirs, ...(inherited === undefined || inherited === '' ? [] : [inherited])].join(':');
}

/** Environment variables of a Python actor process: its `PYTHONPATH`, and no `.pyc` files written into the workspace. */
export function pythonActorEnv(spec: PythonHostSpec, workspace: string, inherited: string | undefined): Record<string, string> {
  return { PYTHONPATH: pythonPathOf(spec, workspace, inherited), PYTHONDONTWRITEBYTECODE: '1' };
}

/** The command line of a Python actor process: `python -m fray_actors.serve '<spec>'`. */
export function pythonServeArgs(spec: PythonHostSpec, args: readonly JsonValue[], name: string, host?: string): string[] {
  return ['-u', '-m', 'fray_actors.serve', JSON.stringify({ module: spec.module, attr: spec.attr, args, name, ...(host === undefined ? {} : { host }) })];
}
