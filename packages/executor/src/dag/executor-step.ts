import { FrayError, RemoteCallable, ResourceConfig } from '@marin/fray';
import type { ResourceOptions } from '@marin/fray';
import { ExecutorError } from '../errors.js';
import { InputName } from './input-name.js';
import type { StepFn } from './types.js';

/**
 * A Fray `RemoteCallable` of any argument list: the executor passes the step's resolved config as its
 * one argument (`RemoteCallable<never>` accepts every `RemoteCallable<[T]>`).
 */
export type StepRemoteCallable = RemoteCallable<never>;

/** Constructor options of {@link ExecutorStep}. */
export interface ExecutorStepOptions<TConfig> {
  /** Step name; may contain `/` (nested directories). Must be non-empty and must not start with `/`. */
  name: string;
  /**
   * The function to run inline, a Fray `RemoteCallable` (from `remote(fn, { resources })`) to run it
   * as a Fray job, or `null` for a step that is only ever found already complete. Its parameter
   * may be annotated with the resolved type (`(cfg: { input_path: string }) => …` next to
   * `config: { input_path: data }`): `TConfig` is inferred from `config` alone.
   */
  fn: StepFn<NoInfer<TConfig>> | StepRemoteCallable | null;
  /** The config: records, `Map`s, arrays and placeholders (`versioned`, `outputPathOf`, …). */
  config: TConfig;
  /** Free-text description (never versioned). @default null */
  description?: string | null;
  /** Pin the output path (relative ones are joined to the prefix); never changes the hash. @default null */
  overrideOutputPath?: string | null;
  /**
   * Where to run the step: a Fray `ResourceConfig` (or its plain options, validated here). A non-null
   * value makes the step one Fray job with these resources, which win over a `RemoteCallable`'s.
   * Never versioned. @default null
   */
  resources?: ResourceConfig | ResourceOptions | null;
}

/**
 * One step of an experiment DAG: a name, a function and a config that may reference other steps.
 *
 * Instances are frozen, and identity is object identity: every executor map is keyed by the step
 * object, never by name or structure (Marin hashes `id(self)`).
 *
 * @example
 * const data = new ExecutorStep({ name: 'hello_world/data', fn: writeNumbers, config: {} });
 * const stats = new ExecutorStep({ name: 'hello_world/stats', fn: computeStats, config: { input_path: data } });
 */
export class ExecutorStep<TConfig = unknown> {
  /** Step name; may contain `/`. */
  readonly name: string;
  /** The function to run inline, a Fray `RemoteCallable`, or `null`. */
  readonly fn: StepFn<TConfig> | StepRemoteCallable | null;
  /** The raw config, placeholders included. */
  readonly config: TConfig;
  /** Free-text description, or `null`. */
  readonly description: string | null;
  /** Output path pin, or `null`. */
  readonly overrideOutputPath: string | null;
  /** Resource request, or `null` (then the step runs inline unless `fn` is a `RemoteCallable`). */
  readonly resources: ResourceConfig | null;

  /**
   * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT for an empty name, a name starting with `/`,
   *   an `fn` that is neither a function nor a `RemoteCallable`, a non-string `description` / `overrideOutputPath`,
   *   or invalid `resources` (an unknown TPU or GPU variant, alternatives of a different VM shape, a bad field;
   *   the Fray error is the `cause`).
   */
  constructor(options: ExecutorStepOptions<TConfig>) {
    const { name, fn, config } = options;
    if (typeof name !== 'string' || name === '' || name.startsWith('/')) {
      throw new ExecutorError(
        'EXECUTOR_INVALID_ARGUMENT',
        `invalid step name ${JSON.stringify(name)}: it must be a non-empty string that does not start with "/"`,
        { details: { name } },
      );
    }
    if (fn !== null && typeof fn !== 'function' && !RemoteCallable.is(fn)) {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `step "${name}": fn must be a function, a RemoteCallable or null`, {
        details: { name },
      });
    }
    const description = options.description ?? null;
    const overrideOutputPath = options.overrideOutputPath ?? null;
    for (const [field, v] of [['description', description], ['overrideOutputPath', overrideOutputPath]] as const) {
      if (v !== null && typeof v !== 'string') {
        throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `step "${name}": ${field} must be a string or null`, {
          details: { name, field },
        });
      }
    }
    if (overrideOutputPath === '') {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `step "${name}": overrideOutputPath must not be empty`, {
        details: { name, field: 'overrideOutputPath' },
      });
    }
    this.name = name;
    this.fn = fn;
    this.config = config;
    this.description = description;
    this.overrideOutputPath = overrideOutputPath;
    this.resources = resourcesOf(name, options.resources ?? null);
    Object.freeze(this);
  }

  /** A reference to `<this step's output>/<name>` (Marin's `step / "name"`). */
  cd(name: string): InputName {
    return new InputName(this, name);
  }

  /** A reference to this step's output directory itself. */
  asInputName(): InputName {
    return new InputName(this, null);
  }

  /** A **new** step identical to this one but with `overrideOutputPath = path`. */
  withOutputPath(path: string): ExecutorStep<TConfig> {
    return new ExecutorStep<TConfig>({
      name: this.name,
      fn: this.fn,
      config: this.config,
      description: this.description,
      overrideOutputPath: path,
      resources: this.resources,
    });
  }

  /** `ExecutorStep(name=…)`, for messages. */
  toString(): string {
    return `ExecutorStep(name=${this.name})`;
  }
}

/** Normalises a step's `resources` to a `ResourceConfig`, naming the step when they are invalid. */
function resourcesOf(name: string, resources: ResourceConfig | ResourceOptions | null): ResourceConfig | null {
  if (resources === null) return null;
  if (resources instanceof ResourceConfig) return resources;
  if (typeof resources !== 'object' || Array.isArray(resources)) {
    throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `step "${name}": resources must be a ResourceConfig (ResourceConfig.withCpu/withGpu/withTpu) or null`, {
      details: { name, field: 'resources' },
    });
  }
  try {
    // A ResourceConfig from another copy of @marin/fray (source vs. built) is rebuilt from its options.
    const toOptions = (resources as { toOptions?: unknown }).toOptions;
    const options = typeof toOptions === 'function' ? (toOptions.call(resources) as ResourceOptions) : resources;
    return new ResourceConfig(options);
  } catch (cause) {
    if (!FrayError.is(cause)) throw cause;
    throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `step "${name}": invalid resources`, {
      cause,
      details: { name, field: 'resources', ...cause.details },
    });
  }
}
