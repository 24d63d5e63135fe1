import type { RemoteCallable } from '@marin/fray';
import { pyJsonDumps, prefixJoin } from '@marin/rigging';
import { ExecutorError } from '../errors.js';
import { Artifact } from './artifact-type.js';
import type { ArtifactType } from './artifact-type.js';
import { canonicalJson, fingerprintHash } from './canonical-json.js';
import { StepContext } from './step-context.js';
import { pythonUrlScheme, validatePathSegment, validateVersion } from './version.js';

/**
 * A step body: takes the built config, returns the artifact's value (or nothing for a data artifact). Declared
 * method-style so a handle of any config type fits where `ArtifactStep` (any handle) is expected.
 */
export type ArtifactRunFn<C, T> = { run(config: C): T | void | Promise<T | void> }['run'];
/** Builds a step's config from its context (method-style, as {@link ArtifactRunFn}). */
export type BuildConfigFn<C> = { build(ctx: StepContext): C | Promise<C> }['build'];

/** Options of {@link ArtifactStep}. */
export interface ArtifactStepOptions<T extends object, C> {
  /** One path segment (a `/` inside is fine): `hello_world/data`. */
  name: string;
  /** `YYYY.MM.DD[.N]`, or the mutable `dev` / `<label>-dev`. */
  version: string;
  /** @default Artifact (a data reference) */
  artifactType?: ArtifactType<T>;
  /**
   * The body, run in-process under the step's lease; or `remote(body, { resources, … })` (Fray's `RemoteCallable`)
   * to run it as one Fray job on the current client while the runner keeps the lease, record and status.
   */
  run: ArtifactRunFn<C, T> | RemoteCallable<never>;
  /** Builds the config from the context: literals bear identity, values pulled from `ctx` do not. */
  buildConfig: BuildConfigFn<C>;
  /** The handles this step builds on (materialized first; the only ones `ctx` resolves). */
  deps?: readonly ArtifactStep[];
  /** Execution choices read through `ctx.runtimeArg(key)`; never in the fingerprint. */
  runtimeArgs?: Readonly<Record<string, unknown>>;
  /** Pin to an existing location instead of `{name}/{version}` (relative to the prefix unless absolute); writes no record. */
  overridePath?: string | null;
  /** Set by {@link ArtifactStep.adopt}: pre-existing data this `name@version` aliases. */
  adoptSource?: string | null;
  /** For an adopted artifact, the config recorded for it. */
  adoptConfig?: Record<string, unknown> | null;
  /** Hard pin: a different computed fingerprint, or a recorded build with another, is refused. */
  expectedFingerprint?: string | null;
}

/** A handle no walk with the given token has marked. */
export const WALK_UNSEEN = -1;

let walkSlots: { get(h: ArtifactStep, token: object): number; set(h: ArtifactStep, token: object, state: number): void };

/**
 * The mark a synchronous graph walk left on `handle` (the lowering's depth-first order), or {@link WALK_UNSEEN}
 * when that walk (`token`, one object per walk) has not marked it. Marks of other walks are ignored, so walks
 * never interfere as long as each reads its marks before it yields.
 */
export function walkState(handle: ArtifactStep, token: object): number {
  return walkSlots.get(handle, token);
}

/** Marks `handle` for the walk `token` (see {@link walkState}). */
export function setWalkState(handle: ArtifactStep, token: object, state: number): void {
  walkSlots.set(handle, token, state);
}

/** True for a path Marin treats as relative to the prefix (no URL scheme, no leading `/`). */
export function isRelativePath(path: string): boolean {
  return pythonUrlScheme(path) === '' && !path.startsWith('/');
}

function isThenable(x: unknown): x is PromiseLike<unknown> {
  return typeof x === 'object' && x !== null && typeof (x as { then?: unknown }).then === 'function';
}

function adoptNoop(): never {
  throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', 'adopted artifacts are registered, not computed');
}

/**
 * A lazy, content-free handle to a versioned artifact and how to build it (Marin's `ArtifactStep`). Its identity
 * is the explicit `name@version`, stored at `{prefix}/{name}/{version}` with no content hash; the recipe
 * fingerprint (the config built with placeholders for pulled values) is recorded for the drift check only.
 * Constructing one runs nothing; `runArtifacts` / `resolveArtifact` build it.
 *
 * @throws {ExecutorError} EXECUTOR_INVALID_VERSION for an invalid name or version; EXECUTOR_INVALID_ARGUMENT for a
 *   step both adopted and pinned
 */
export class ArtifactStep<T extends object = Record<never, never>, C = unknown> {
  readonly name: string;
  readonly version: string;
  readonly artifactType: ArtifactType<T>;
  readonly run: ArtifactRunFn<C, T> | RemoteCallable<never>;
  readonly buildConfig: BuildConfigFn<C>;
  readonly deps: readonly ArtifactStep[];
  readonly runtimeArgs: Readonly<Record<string, unknown>>;
  readonly overridePath: string | null;
  readonly adoptSource: string | null;
  readonly adoptConfig: Record<string, unknown> | null;
  readonly expectedFingerprint: string | null;
  /** `name@version`. */
  readonly id: string;
  #payload: string | Promise<string> | undefined;
  // The lowering walk's marks, kept on the handle (a walk over 10,000 handles then needs no map): the token of the
  // walk that last marked it and its state under that walk (see walkState).
  #walkToken: object | null = null;
  #walkState = 0;

  static {
    walkSlots = {
      get: (h, token) => (h.#walkToken === token ? h.#walkState : WALK_UNSEEN),
      set: (h, token, state) => {
        h.#walkToken = token;
        h.#walkState = state;
      },
    };
  }

  constructor(opts: ArtifactStepOptions<T, C>) {
    validatePathSegment('name', opts.name);
    validateVersion(opts.version);
    this.name = opts.name;
    this.version = opts.version;
    this.artifactType = opts.artifactType ?? (Artifact as ArtifactType<T>);
    this.run = opts.run;
    this.buildConfig = opts.buildConfig;
    this.deps = opts.deps ?? [];
    this.runtimeArgs = opts.runtimeArgs ?? {};
    this.overridePath = opts.overridePath ?? null;
    this.adoptSource = opts.adoptSource ?? null;
    this.adoptConfig = opts.adoptConfig ?? null;
    this.expectedFingerprint = opts.expectedFingerprint ?? null;
    // Built once: lowering, plans, records and experiment files name every step and dep by it.
    this.id = `${this.name}@${this.version}`;
    if (this.adoptSource !== null && this.overridePath !== null) {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `${this.name}@${this.version}: an artifact cannot be both adopted and pinned`, {
        details: { step: this.id },
      });
    }
  }

  /**
   * Registers pre-existing data at `source` as a managed `name@version` (Marin's `ArtifactStep.adopt`): consumers
   * resolve to `source`; running it writes a provenance record at `{prefix}/{name}/{version}`.
   */
  static adopt<T extends object = Record<never, never>>(
    name: string,
    version: string,
    source: string,
    opts: { kind?: ArtifactType<T>; config?: Record<string, unknown> | null } = {},
  ): ArtifactStep<T, null> {
    return new ArtifactStep<T, null>({
      name,
      version,
      artifactType: opts.kind ?? (Artifact as ArtifactType<T>),
      run: adoptNoop,
      buildConfig: () => null,
      adoptSource: source,
      adoptConfig: opts.config ?? null,
    });
  }

  /**
   * The canonical config bytes the fingerprint hashes: the config built against the fingerprint context, or for an
   * adopted artifact `{"adopt_source": …, "config": …}`. Computed once per handle.
   * @throws {ExecutorError} EXECUTOR_UNCANONICAL_CONFIG when the config has no canonical form
   */
  fingerprintPayload(): Promise<string> {
    try {
      return Promise.resolve(this.fingerprintPayloadNow());
    } catch (e) {
      return Promise.reject(e as Error);
    }
  }

  /**
   * {@link fingerprintPayload} without a promise when `buildConfig` is synchronous (the lowering of a large graph
   * then runs without a microtask per step); a promise when it is async. Computed once per handle.
   * @throws {ExecutorError} EXECUTOR_UNCANONICAL_CONFIG when the config has no canonical form (thrown, or rejected
   *   for an async `buildConfig`)
   */
  fingerprintPayloadNow(): string | Promise<string> {
    if (this.#payload === undefined) {
      const payload = this.#computePayload();
      this.#payload = payload;
      // Cache the settled text so later calls are synchronous too.
      if (typeof payload !== 'string') void payload.then((text) => (this.#payload = text), () => undefined);
    }
    return this.#payload;
  }

  #computePayload(): string | Promise<string> {
    if (this.adoptSource !== null) {
      return pyJsonDumps({ adopt_source: this.adoptSource, config: this.adoptConfig }, { sortKeys: true });
    }
    const config = this.buildConfig(StepContext.forFingerprint(this.runtimeArgs, this.deps));
    return isThenable(config) ? Promise.resolve(config).then(canonicalJson) : canonicalJson(config);
  }

  /** The recipe fingerprint: 8 hex digits of md5 over the payload. Independent of prefix and region. */
  async fingerprint(): Promise<string> {
    return fingerprintHash(await this.fingerprintPayload());
  }

  /** Where the artifact lives: its adopt source, else its pin, else `{prefix}/{name}/{version}`. */
  path(prefix: string): string {
    const location = this.adoptSource ?? this.overridePath;
    if (location !== null) return isRelativePath(location) ? prefixJoin(prefix, location) : location;
    return prefixJoin(prefix, `${this.name}/${this.version}`);
  }
}
