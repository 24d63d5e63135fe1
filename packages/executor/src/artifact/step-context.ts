import { ExecutorError } from '../errors.js';
import type { ArtifactStep } from './artifact-step.js';
import type { LoadedArtifact } from './artifact-type.js';
import { loadArtifact } from './artifact-type.js';

/** The placeholders a fingerprint sees for values pulled from the context (Marin's `for_fingerprint`). */
export const FINGERPRINT_PLACEHOLDERS = Object.freeze({ outputPath: '<output_path>', prefix: '<prefix>', region: '<region>' });

/** The runtime args of a fingerprint context for a step that declares none (shared: planning builds thousands). */
const NO_RUNTIME_ARGS: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/** A dep's reference at fingerprint time: `name@version`. */
function depIdentity(dep: ArtifactStep): string {
  return dep.id;
}

function isIterable(x: object): x is Iterable<string> {
  return typeof (x as Partial<Iterable<string>>)[Symbol.iterator] === 'function';
}

interface StepContextInit {
  outputPath: string;
  prefix: string;
  region: string | null;
  isFingerprint: boolean;
  depRef: (dep: ArtifactStep) => string;
  runtimeArgs: Readonly<Record<string, unknown>>;
  deps: readonly ArtifactStep[];
}

/**
 * What a step's `buildConfig` resolves against, and the line between identity and execution: literals written in
 * `buildConfig` bear identity; values pulled from here (`outputPath`, `artifactPath(dep)`, `resolved(dep)`,
 * `prefix`, `region`, `runtimeArg(key)`) never do, because the fingerprint is computed with placeholders in
 * their place (`<output_path>`, `name@version` of a dep, `<prefix>`, `<region>`, `<key>`).
 */
export class StepContext {
  readonly outputPath: string;
  readonly prefix: string;
  readonly region: string | null;
  /** True only while the fingerprint is computed (no records exist yet; `resolved` refuses). */
  readonly isFingerprint: boolean;
  readonly #depRef: (dep: ArtifactStep) => string;
  readonly #runtimeArgs: Readonly<Record<string, unknown>>;
  readonly #deps: readonly ArtifactStep[];
  #loaded: Map<ArtifactStep, Promise<LoadedArtifact<object>>> | undefined;

  private constructor(init: StepContextInit) {
    this.outputPath = init.outputPath;
    this.prefix = init.prefix;
    this.region = init.region;
    this.isFingerprint = init.isFingerprint;
    this.#depRef = init.depRef;
    this.#runtimeArgs = init.runtimeArgs;
    this.#deps = init.deps;
  }

  /** The live context of a run: real paths, prefix, region and runtime args. */
  static forRun(opts: { outputPath: string; prefix: string; region?: string | null; runtimeArgs?: Readonly<Record<string, unknown>>; deps?: readonly ArtifactStep[] }): StepContext {
    return new StepContext({
      outputPath: opts.outputPath,
      prefix: opts.prefix,
      region: opts.region ?? null,
      isFingerprint: false,
      depRef: (d) => d.path(opts.prefix),
      runtimeArgs: opts.runtimeArgs ?? {},
      deps: opts.deps ?? [],
    });
  }

  /**
   * The fingerprint context: placeholders for everything pulled, `name@version` for each dep's path. The runtime
   * args are their keys, or a step's `runtimeArgs` record (whose keys are taken).
   */
  static forFingerprint(runtimeArgKeys: Iterable<string> | Readonly<Record<string, unknown>> = [], deps: readonly ArtifactStep[] = []): StepContext {
    let runtimeArgs: Record<string, unknown> = NO_RUNTIME_ARGS;
    if (isIterable(runtimeArgKeys)) {
      for (const k of runtimeArgKeys) {
        if (runtimeArgs === NO_RUNTIME_ARGS) runtimeArgs = {};
        runtimeArgs[k] = `<${k}>`;
      }
    } else {
      for (const k in runtimeArgKeys) {
        if (!Object.hasOwn(runtimeArgKeys, k)) continue;
        if (runtimeArgs === NO_RUNTIME_ARGS) runtimeArgs = {};
        runtimeArgs[k] = `<${k}>`;
      }
    }
    return new StepContext({
      outputPath: FINGERPRINT_PLACEHOLDERS.outputPath,
      prefix: FINGERPRINT_PLACEHOLDERS.prefix,
      region: FINGERPRINT_PLACEHOLDERS.region,
      isFingerprint: true,
      depRef: depIdentity,
      runtimeArgs,
      deps,
    });
  }

  /**
   * The resolved output path of a declared dependency (`name@version` at fingerprint time).
   * @throws {ExecutorError} EXECUTOR_UNDECLARED_DEPENDENCY for a handle not in the step's `deps`
   */
  artifactPath(dep: ArtifactStep): string {
    this.#requireDeclared(dep);
    return this.#depRef(dep);
  }

  /**
   * The loaded, typed artifact of a declared dependency (its record read once per context).
   * @throws {ExecutorError} EXECUTOR_UNDECLARED_DEPENDENCY for an undeclared handle; EXECUTOR_INVALID_ARGUMENT at
   *   fingerprint time (branch on `isFingerprint`)
   */
  resolved<T extends object>(dep: ArtifactStep<T>): Promise<LoadedArtifact<T>> {
    if (this.isFingerprint) {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', 'ctx.resolved is unavailable at fingerprint time; branch on ctx.isFingerprint');
    }
    this.#requireDeclared(dep as ArtifactStep);
    this.#loaded ??= new Map();
    let loaded = this.#loaded.get(dep as ArtifactStep);
    if (loaded === undefined) {
      loaded = loadArtifact(dep.artifactType as never, this.#depRef(dep as ArtifactStep)) as Promise<LoadedArtifact<object>>;
      this.#loaded.set(dep as ArtifactStep, loaded);
    }
    return loaded as Promise<LoadedArtifact<T>>;
  }

  /**
   * A step-declared runtime arg: its value at run time, `<key>` at fingerprint time.
   * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT for a key not in the step's `runtimeArgs`
   */
  runtimeArg(key: string): unknown {
    if (!Object.hasOwn(this.#runtimeArgs, key)) {
      throw new ExecutorError(
        'EXECUTOR_INVALID_ARGUMENT',
        `runtime arg "${key}" is not declared in the step's runtimeArgs [${Object.keys(this.#runtimeArgs).sort().join(', ')}]`,
        { details: { key } },
      );
    }
    return this.#runtimeArgs[key];
  }

  #requireDeclared(dep: ArtifactStep): void {
    if (!this.#deps.includes(dep)) {
      throw new ExecutorError(
        'EXECUTOR_UNDECLARED_DEPENDENCY',
        `${dep.name}@${dep.version} is not a declared dependency of this step; add it to deps so the runner materializes it before this step runs`,
        { details: { dep: `${dep.name}@${dep.version}` } },
      );
    }
  }
}
