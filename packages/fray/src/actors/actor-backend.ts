import { FrayError } from '../errors.js';
import { ActorGroup } from './actor-group.js';
import type { JsonValue } from '../request/entrypoint.js';
import type { ResourceConfig } from '../resources/resource-config.js';
import type { ActorHandle } from './actor-handle.js';
import { randomHex8 } from '../request/job-name.js';
import type { PythonEnvSpec } from '../request/python-env-spec.js';
import type { ActorHostSpec } from './actor-main.js';
import { checkPythonEntry, isPythonEntry, pythonAttrOf } from './python-actor.js';
import type { PythonActorEntry } from './python-actor.js';

/** What an actor runs: an exported class (built with `new`) or factory function (called) of a module. */
export interface ActorEntry {
  /** Workspace path relative to the workspace root (`packages/x/src/scorer.ts`) or a package specifier. */
  readonly module: string;
  /** The export: a class or a (possibly async) factory returning an object whose public methods are served. */
  readonly exportName: string;
}

/** A TypeScript entry (module + export) or a Python one (module + class or factory, and an interpreter). */
export type AnyActorEntry = ActorEntry | PythonActorEntry;

/** Options of `createActor` and `createActorGroup`. */
export interface CreateActorOptions {
  /** Positional arguments of the constructor or factory (JSON). @default [] */
  args?: readonly JsonValue[];
  /** The actor's name; a group appends `-<index>`. @default the export name and 8 hex */
  name?: string;
  /** Resources of each actor (the local backend does not enforce them). @default ResourceConfig.withCpu() */
  resources?: ResourceConfig;
  /** How many times an actor whose process dies after it was ready is restarted before it is dead. @default 0 */
  maxRestarts?: number;
  /** How long an actor may take to serve after it was started or restarted. @default 60000 */
  readyTimeoutMs?: number;
}

/** Creates actors on one backend; closing it stops every actor it created. */
export interface ActorBackend extends AsyncDisposable {
  /** `local` (processes here), `iris` (Iris jobs with endpoints) or `job` (jobs of a Fray client, e.g. Ray). */
  readonly backend: 'local' | 'iris' | 'job';
  /**
   * Starts one actor and resolves once it serves.
   * @throws {FrayError} FRAY_ACTOR_NOT_READY when it exits or does not serve within `readyTimeoutMs` (`details.tail`
   *   holds its last output lines), FRAY_INVALID_ARGUMENT for bad options
   */
  createActor(entry: AnyActorEntry, options?: CreateActorOptions): Promise<ActorHandle>;
  /**
   * Starts `count` actors of one entry (each built with the same `args`) and resolves once all serve.
   * @throws {FrayError} as {@link ActorBackend.createActor}; the members already started are stopped
   */
  createActorGroup(entry: AnyActorEntry, count: number, options?: CreateActorOptions): Promise<ActorGroup>;
  /** Stops every actor this backend started. */
  close(): Promise<void>;
}

/** Checks the options shared by every backend. @throws {FrayError} FRAY_INVALID_ARGUMENT */
export function checkActorOptions(entry: AnyActorEntry, options: CreateActorOptions, count = 1): void {
  const bad = (what: string): never => {
    throw new FrayError('FRAY_INVALID_ARGUMENT', `invalid actor ${what}`, { details: { module: entryModule(entry), exportName: entryExportName(entry) } });
  };
  if (isPythonEntry(entry)) {
    checkPythonEntry(entry);
  } else {
    if (typeof entry.module !== 'string' || entry.module === '') bad('entry: "module" must be a non-empty string');
    if (typeof entry.exportName !== 'string' || entry.exportName === '') bad('entry: "exportName" must be a non-empty string');
  }
  if (!Number.isInteger(count) || count < 1) bad(`group size ${count}: must be a positive integer`);
  if (options.maxRestarts !== undefined && !(Number.isInteger(options.maxRestarts) && options.maxRestarts >= 0)) bad('maxRestarts: must be a non-negative integer');
  if (options.readyTimeoutMs !== undefined && !(Number.isFinite(options.readyTimeoutMs) && options.readyTimeoutMs > 0)) bad('readyTimeoutMs: must be positive');
  if (options.name !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(options.name)) bad(`name "${options.name}": letters, digits, ".", "_" and "-" only`);
}

function entryModule(entry: AnyActorEntry): string {
  return isPythonEntry(entry) ? entry.python.module : entry.module;
}

/** The export (TS) or class/factory (Python) name of an entry; default actor names start with it. */
function entryExportName(entry: AnyActorEntry): string {
  return isPythonEntry(entry) ? pythonAttrOf(entry) : entry.exportName;
}

/**
 * What a cluster backend submits for one actor: the `runActorHost` spec and, for a Python entry with a lock, the
 * job's `pythonEnv` (the job then finds `python` on its `PATH`).
 */
export function actorJobSpecOf(entry: AnyActorEntry, name: string, options: CreateActorOptions, irisEndpoint: boolean): { spec: ActorHostSpec; pythonEnv?: PythonEnvSpec } {
  const args = [...(options.args ?? [])];
  const endpoint = irisEndpoint ? { irisEndpoint: true } : {};
  if (!isPythonEntry(entry)) return { spec: { module: entry.module, exportName: entry.exportName, args, name, ...endpoint } };
  const attr = pythonAttrOf(entry);
  const byLock = !('interpreter' in entry.env);
  const python = { module: entry.python.module, attr, interpreter: 'interpreter' in entry.env ? entry.env.interpreter : 'python', pythonPath: [...(entry.pythonPath ?? [])] };
  return { spec: { module: entry.python.module, exportName: attr, args, name, ...endpoint, python }, ...(byLock ? { pythonEnv: entry.env as PythonEnvSpec } : {}) };
}

/**
 * Starts `count` members with `startOne(index)`; all or nothing: when one fails, the started ones are closed and
 * the first failure is thrown.
 */
export async function startActorGroup(count: number, startOne: (index: number) => Promise<ActorHandle>): Promise<ActorGroup> {
  const started = await Promise.allSettled(Array.from({ length: count }, (_, i) => startOne(i)));
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed !== undefined) {
    await Promise.all(started.map((r) => (r.status === 'fulfilled' ? r.value.close() : undefined)));
    throw failed.reason;
  }
  return new ActorGroup(started.map((r) => (r as PromiseFulfilledResult<ActorHandle>).value));
}

/** What a backend supplies to {@link actorBackendOf}: how to start one named actor, and how to stop everything. */
export interface ActorBackendParts {
  readonly backend: ActorBackend['backend'];
  /** Job names are lower case on cluster backends; local process names keep the export's case. */
  readonly lowerCaseNames: boolean;
  startOne(entry: AnyActorEntry, name: string, options: CreateActorOptions): Promise<ActorHandle>;
  close(): Promise<void>;
}

/** The part every backend shares: option checks, default names (`<export>-<8 hex>`, members `-<index>`) and groups. */
export function actorBackendOf(parts: ActorBackendParts): ActorBackend {
  const baseName = (entry: AnyActorEntry, options: CreateActorOptions): string => {
    const base = entryExportName(entry).replace(/_/g, '-');
    return options.name ?? `${parts.lowerCaseNames ? base.toLowerCase() : base}-${randomHex8()}`;
  };
  return {
    backend: parts.backend,
    async createActor(entry, options = {}) {
      checkActorOptions(entry, options);
      return parts.startOne(entry, baseName(entry, options), options);
    },
    async createActorGroup(entry, count, options = {}) {
      checkActorOptions(entry, options, count);
      const base = baseName(entry, options);
      return startActorGroup(count, (i) => parts.startOne(entry, `${base}-${i}`, options));
    },
    close: () => parts.close(),
    async [Symbol.asyncDispose]() {
      await parts.close();
    },
  };
}
