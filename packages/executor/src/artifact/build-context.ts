import { AsyncLocalStorage } from 'node:async_hooks';
import { ExecutorError } from '../errors.js';
import { validateVersion } from './version.js';

/**
 * Resolves an artifact name to a version (Marin's `VersionCodex`): one `default` plus exact-name `overrides`,
 * all validated at construction. `unusedOverrides()` names overrides no builder asked for (a likely typo).
 * @throws {ExecutorError} EXECUTOR_INVALID_VERSION for an invalid default or override (`details.override` names it)
 */
export class VersionCodex {
  readonly default: string;
  readonly overrides: ReadonlyMap<string, string>;
  readonly #used = new Set<string>();

  constructor(defaultVersion: string, overrides: Readonly<Record<string, string>> | ReadonlyMap<string, string> = {}) {
    validateVersion(defaultVersion);
    const map = overrides instanceof Map ? new Map(overrides) : new Map(Object.entries(overrides));
    for (const [name, version] of map) {
      try {
        validateVersion(version);
      } catch (e) {
        throw new ExecutorError('EXECUTOR_INVALID_VERSION', `override "${name}": ${(e as Error).message}`, { cause: e, details: { override: name, value: version } });
      }
    }
    this.default = defaultVersion;
    this.overrides = map;
  }

  /** The version of `name`: its override when set, else the default. */
  versionFor(name: string): string {
    const v = this.overrides.get(name);
    if (v === undefined) return this.default;
    this.#used.add(name);
    return v;
  }

  /** Override names never consulted since construction. */
  unusedOverrides(): string[] {
    return [...this.overrides.keys()].filter((n) => !this.#used.has(n));
  }
}

const active = new AsyncLocalStorage<VersionCodex>();

/** Runs `build` with `codex` as the ambient version policy (Marin's `build_context`); nests and restores. */
export function withVersions<R>(codex: VersionCodex, build: () => R): R {
  return active.run(codex, build);
}

/** The ambient codex, or `null` outside {@link withVersions}. */
export function currentVersions(): VersionCodex | null {
  return active.getStore() ?? null;
}

/**
 * The version of artifact `name`: `version` when given, else the ambient codex's choice.
 * @throws {ExecutorError} EXECUTOR_INVALID_VERSION with no version and no ambient codex (a deferred version never defaults)
 */
export function resolveVersion(name: string, version?: string | null): string {
  if (version !== undefined && version !== null) return version;
  const codex = currentVersions();
  if (codex === null) {
    throw new ExecutorError('EXECUTOR_INVALID_VERSION', `${name}: no version given and no active version policy; pass version, or build inside withVersions(new VersionCodex(default))`, {
      details: { name },
    });
  }
  return codex.versionFor(name);
}
