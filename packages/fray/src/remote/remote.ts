import { currentClient } from '../backends/current-client.js';
import { FrayError } from '../errors.js';
import { Entrypoint } from '../request/entrypoint.js';
import type { JsonValue, ModuleEntrypoint } from '../request/entrypoint.js';
import { createEnvironment } from '../request/environment.js';
import { randomHex8, sanitizeJobName } from '../request/job-name.js';
import { ResourceConfig } from '../resources/resource-config.js';

/** The portable form of a remote function: a module and the name of its export. */
export interface RemoteEntry {
  /** Workspace-relative path (`experiments/x/steps.ts`) or package specifier. */
  readonly module: string;
  readonly exportName: string;
}

/** Options of {@link remote}. */
export interface RemoteOptions {
  /** Job name prefix. @default fn.name */
  name?: string;
  /** Per-task resources. @default ResourceConfig.withCpu() */
  resources?: ResourceConfig;
  /** Job environment variables (on top of `createEnvironment`'s forwarded ones). @default {} */
  envVars?: Record<string, string>;
  /** Dependency groups; omitted = derived from the device, `[]` = none. */
  dependencyGroups?: string[];
  /** Where remote backends find the function for direct `call()`s (its arguments travel as JSON). */
  entry?: RemoteEntry;
}

const REMOTE_BRAND = Symbol.for('@marin/fray/RemoteCallable');

/**
 * A function plus where it should run (Marin's `RemoteFunction`). Frozen. The executor runs a step whose `fn` is a
 * `RemoteCallable` as one Fray job; `call()` runs it directly as a job on the current client.
 */
export class RemoteCallable<A extends unknown[]> {
  /** The wrapped function. */
  readonly fn: (...args: A) => unknown;
  /** Per-task resources of its jobs. */
  readonly resources: ResourceConfig;
  /** Environment variables of its jobs. */
  readonly envVars: Readonly<Record<string, string>>;
  /** Explicit dependency groups, or `null` to derive them from the device. */
  readonly dependencyGroups: readonly string[] | null;
  /** Job name prefix, or `null` to use `fn.name`. */
  readonly name: string | null;
  /** Portable form for direct calls on remote backends, or `null`. */
  readonly entry: RemoteEntry | null;
  readonly [REMOTE_BRAND] = true;

  /** Brand check that also recognises instances from another copy of this module (source vs. built). */
  static is(value: unknown): value is RemoteCallable<never> {
    return typeof value === 'object' && value !== null && REMOTE_BRAND in value;
  }

  /** @throws {FrayError} FRAY_INVALID_ARGUMENT for a non-function or bad options */
  constructor(fn: (...args: A) => unknown, options: RemoteOptions = {}) {
    if (typeof fn !== 'function') throw new FrayError('FRAY_INVALID_ARGUMENT', 'remote() needs a function');
    const resources = options.resources ?? ResourceConfig.withCpu();
    if (!(resources instanceof ResourceConfig)) throw new FrayError('FRAY_INVALID_ARGUMENT', 'remote() resources must be a ResourceConfig');
    const envVars = options.envVars ?? {};
    if (typeof envVars !== 'object' || Object.values(envVars).some((v) => typeof v !== 'string')) {
      throw new FrayError('FRAY_INVALID_ARGUMENT', 'remote() envVars must map names to strings');
    }
    const groups = options.dependencyGroups;
    if (groups !== undefined && (!Array.isArray(groups) || groups.some((g) => typeof g !== 'string' || g === ''))) {
      throw new FrayError('FRAY_INVALID_ARGUMENT', 'remote() dependencyGroups must be a list of group names');
    }
    const entry = options.entry;
    if (entry !== undefined && (typeof entry.module !== 'string' || entry.module === '' || typeof entry.exportName !== 'string' || entry.exportName === '')) {
      throw new FrayError('FRAY_INVALID_ARGUMENT', 'remote() entry needs a module and an exportName');
    }
    this.fn = fn;
    this.resources = resources;
    this.envVars = Object.freeze({ ...envVars });
    this.dependencyGroups = groups === undefined ? null : Object.freeze([...groups]);
    this.name = options.name ?? null;
    this.entry = entry === undefined ? null : Object.freeze({ module: entry.module, exportName: entry.exportName });
    Object.freeze(this);
  }

  /** The job name prefix: `name`, else the function's name. */
  get label(): string {
    return this.name ?? this.fn.name;
  }

  /**
   * Runs `fn(...args)` as one job on `currentClient()` and waits for it (Marin's `__call__`). Resolves to
   * `undefined`: results are not transported, outputs travel through files.
   *
   * @throws {JobFailed} FRAY_JOB_FAILED when the job fails or is stopped
   * @throws {FrayError} FRAY_ENTRYPOINT_NOT_PORTABLE on a remote backend without `entry` (or with non-JSON arguments)
   */
  async call(...args: A): Promise<void> {
    const environment = createEnvironment(
      this.dependencyGroups === null ? { envVars: { ...this.envVars } } : { envVars: { ...this.envVars }, dependencyGroups: [...this.dependencyGroups] },
    );
    const job = await currentClient().submit({
      name: sanitizeJobName(`${this.label}-${randomHex8()}`),
      entrypoint: Entrypoint.fromCallable(() => this.fn(...args), reentryOf(this.entry, args)),
      resources: this.resources,
      environment,
    });
    await job.wait({ raiseOnFailure: true });
  }
}

function reentryOf(entry: RemoteEntry | null, args: unknown[]): { reentry?: ModuleEntrypoint } {
  if (entry === null) return {};
  try {
    return { reentry: Entrypoint.fromModule({ ...entry, args: args as JsonValue, spreadArgs: true }) };
  } catch (e) {
    // Arguments that are not JSON can still run in-process; remote backends then refuse the callable as not portable.
    if (FrayError.hasCode(e, 'FRAY_INVALID_ARGUMENT')) return {};
    throw e;
  }
}

/**
 * Wraps `fn` with the resources and environment its jobs need (Marin's `@remote`). The executor runs steps whose
 * `fn` is the result as Fray jobs; `rc.call(...args)` submits one job directly.
 *
 * @example
 * const tokenize = remote(tokenizeFn, { resources: ResourceConfig.withCpu({ cpu: 8 }), entry: { module: 'experiments/steps.ts', exportName: 'tokenizeFn' } });
 * await tokenize.call(config);
 * @throws {FrayError} FRAY_INVALID_ARGUMENT for a non-function or bad options
 */
export function remote<A extends unknown[]>(fn: (...args: A) => unknown, options: RemoteOptions = {}): RemoteCallable<A> {
  return new RemoteCallable(fn, options);
}
