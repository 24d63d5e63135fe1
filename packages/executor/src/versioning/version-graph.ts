import { RiggingError, pyJsonDumps, pyQuote } from '@marin/rigging';
import { ExecutorStep } from '../dag/executor-step.js';
import { InputName } from '../dag/input-name.js';
import { MirroredValue } from '../dag/mirrored-value.js';
import { OutputName } from '../dag/output-name.js';
import { pathJoin } from '../dag/path-join.js';
import { VersionedValue } from '../dag/versioned-value.js';
import { ExecutorError } from '../errors.js';
import { stderrLogger } from '../logger.js';
import type { ExecutorLogger } from '../logger.js';
import { instantiateConfig, stripFloatValues } from '../resolution/instantiate-config.js';
import { makePrefixAbsolute } from '../resolution/make-prefix-absolute.js';
import { collectDependenciesAndVersion } from './collect-dependencies.js';
import type { CollectedDependencies } from './collect-dependencies.js';
import { hash6 } from './hash6.js';

/**
 * A step's version: everything that identifies its output. Keys are in Marin's insertion order;
 * `pseudo_dependencies` is present only when the step has at least one.
 */
export interface VersionObject {
  /** The step name. */
  name: string;
  /** Versioned fields, hardcoded input paths and `DEP[i]` markers, keyed by walk prefix. */
  config: Record<string, unknown>;
  /** Each blocking dependency's version, inlined, or `"<name>-<hash6>"` when it is deeper than 4. */
  dependencies: (VersionObject | string)[];
  /** Same for nonblocking dependencies. */
  pseudo_dependencies?: (VersionObject | string)[];
}

/** Options of {@link VersionGraph}. */
export interface VersionGraphOptions {
  /** Root of all outputs (`gs://bucket`, `/tmp/marin`); used as given. */
  prefix: string;
  /** Receives duplicate-step and override warnings. @default stderrLogger */
  logger?: ExecutorLogger;
}

/** Dependencies deeper than this are referenced by label instead of being inlined (Marin PR #5223). */
export const MAX_INLINE_DEPTH = 4;

function rejectPlaceholder(x: object): string | undefined {
  if (x instanceof ExecutorStep) return 'an ExecutorStep';
  if (x instanceof InputName) return 'an InputName';
  if (x instanceof OutputName) return 'an OutputName';
  if (x instanceof VersionedValue) return 'a VersionedValue';
  if (x instanceof MirroredValue) return 'a MirroredValue';
  return undefined;
}

interface Frame {
  step: ExecutorStep;
  isPseudoDep: boolean;
  collected: CollectedDependencies;
  children: [ExecutorStep, boolean][];
  next: number;
}

/**
 * Versions, hashes and output paths of a step DAG, computed exactly as Python Marin does so both can
 * share a prefix (see DESIGN.md beside this file). Every map is keyed by step object identity.
 *
 * @example
 * const graph = new VersionGraph({ prefix: '/tmp/marin' });
 * graph.computeVersion(stats, false);
 * graph.outputPaths.get(stats); // '/tmp/marin/hello_world/stats-b5daf3'
 */
export class VersionGraph {
  /** The prefix output paths are joined to. */
  readonly prefix: string;
  /** Canonical steps in post-order (dependencies first); duplicates by version are left out. */
  readonly steps: ExecutorStep[] = [];
  /** Each step's version object. */
  readonly versions = new Map<ExecutorStep, VersionObject>();
  /** Each step's version string: `json.dumps(version, sort_keys=True)`. */
  readonly versionStrs = new Map<ExecutorStep, string>();
  /** Each step's hash6 (first 6 hex chars of md5 of its version string). */
  readonly hashedVersions = new Map<ExecutorStep, string>();
  /** Each step object's output path, duplicates included. */
  readonly outputPaths = new Map<ExecutorStep, string>();
  /** Each step's resolved config (`instantiateConfig`), what its function receives. */
  readonly configs = new Map<ExecutorStep, unknown>();
  /** The same resolved config with `FloatValue`s kept, for `.executor_info` files. */
  readonly infoConfigs = new Map<ExecutorStep, unknown>();
  /** Each step's canonical blocking dependencies (pseudo-dependencies never block). */
  readonly dependencies = new Map<ExecutorStep, ExecutorStep[]>();
  /** Whether a step is reached only through pseudo-dependencies (then it is never run or awaited). */
  readonly isPseudoDep = new Map<ExecutorStep, boolean>();

  readonly #logger: ExecutorLogger;
  readonly #byVersionStr = new Map<string, ExecutorStep>();
  readonly #depth = new Map<ExecutorStep, number>();
  readonly #inProgress = new Set<ExecutorStep>();

  /** @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT for an empty or non-string prefix. */
  constructor(opts: VersionGraphOptions) {
    if (typeof opts.prefix !== 'string' || opts.prefix === '') {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', 'prefix must be a non-empty string', {
        details: { prefix: opts.prefix },
      });
    }
    this.prefix = opts.prefix;
    this.#logger = opts.logger ?? stderrLogger;
  }

  /**
   * Computes the version, hash, output path and resolved config of `step` and, first, of every step
   * it depends on. Memoised by identity: a second call only upgrades a pseudo-only step to a normal
   * one (and, unlike Marin, its transitive blocking dependencies too).
   *
   * @throws {ExecutorError} EXECUTOR_INVALID_ARGUMENT for a config that cannot be versioned (a
   *   function, `Set`, placeholder or cycle inside a versioned value; bad `Map` keys; a cyclic config);
   *   EXECUTOR_CYCLE when the step graph itself has a cycle.
   */
  computeVersion(step: ExecutorStep, isPseudoDep: boolean): void {
    if (!(step instanceof ExecutorStep)) {
      throw new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `computeVersion() needs an ExecutorStep, got ${String(step)}`, {});
    }
    const stack: Frame[] = [];
    const enter = (s: ExecutorStep, pseudo: boolean): void => {
      if (this.versions.has(s)) {
        if (!pseudo) this.#markBlocking(s);
        return;
      }
      if (this.#inProgress.has(s)) {
        throw new ExecutorError('EXECUTOR_CYCLE', `Cycle detected in step graph involving ${s.name}`, {
          details: { step: s.name },
        });
      }
      this.#inProgress.add(s);
      const collected = collectDependenciesAndVersion(s.config);
      const children: [ExecutorStep, boolean][] = [
        ...collected.dependencies.map((d): [ExecutorStep, boolean] => [d, pseudo]),
        ...collected.pseudoDependencies.map((d): [ExecutorStep, boolean] => [d, true]),
      ];
      stack.push({ step: s, isPseudoDep: pseudo, collected, children, next: 0 });
    };
    try {
      enter(step, isPseudoDep);
      // Iterative post-order, so a long chain cannot overflow the call stack.
      while (stack.length > 0) {
        const frame = stack[stack.length - 1] as Frame;
        const child = frame.children[frame.next];
        if (child !== undefined) {
          frame.next++;
          enter(child[0], child[1]);
          continue;
        }
        stack.pop();
        this.#finish(frame);
        this.#inProgress.delete(frame.step);
      }
    } finally {
      this.#inProgress.clear();
    }
  }

  /** The first step seen with the same version string as `step`. */
  canonicalize(step: ExecutorStep): ExecutorStep {
    const str = this.versionStrs.get(step);
    const canonical = str === undefined ? undefined : this.#byVersionStr.get(str);
    if (canonical === undefined) throw this.#unknown(step);
    return canonical;
  }

  /** `"<name>-<hash6>"`, for logs, job names and errors. */
  label(step: ExecutorStep): string {
    const h = this.hashedVersions.get(step);
    if (h === undefined) throw this.#unknown(step);
    return `${step.name}-${h}`;
  }

  #unknown(step: ExecutorStep): ExecutorError {
    return new ExecutorError('EXECUTOR_INVALID_ARGUMENT', `step "${step.name}" has no computed version`, {
      details: { step: step.name },
    });
  }

  /** Depth over canonical blocking dependencies: 0 for a source step. */
  #depthOf(step: ExecutorStep): number {
    const cached = this.#depth.get(step);
    if (cached !== undefined) return cached;
    let d = 0;
    for (const dep of this.dependencies.get(step) ?? []) d = Math.max(d, this.#depthOf(dep) + 1);
    this.#depth.set(step, d);
    return d;
  }

  #depVersion(dep: ExecutorStep): [VersionObject | string, string] {
    if (this.#depthOf(dep) <= MAX_INLINE_DEPTH) {
      // Splice the memoised string instead of re-serializing the inlined version.
      return [this.versions.get(dep) as VersionObject, this.versionStrs.get(dep) as string];
    }
    const label = this.label(dep);
    return [label, pyQuote(label)];
  }

  #serializeConfig(step: ExecutorStep, configVersion: Record<string, unknown>): string {
    try {
      return pyJsonDumps(configVersion, { sortKeys: true, strict: true, reject: rejectPlaceholder });
    } catch (e) {
      if (!RiggingError.hasCode(e, 'RIGGING_INVALID_ARGUMENT')) throw e;
      const path = String(e.details['path'] ?? '');
      const segments = (e.details['segments'] as unknown[] | undefined) ?? [];
      throw new ExecutorError(
        'EXECUTOR_INVALID_ARGUMENT',
        `step "${step.name}": cannot version ${String(e.details['kind'])} in versioned field "${String(segments[0] ?? '')}" (at "${path}")`,
        { cause: e, details: { step: step.name, key: segments[0], path } },
      );
    }
  }

  #finish(frame: Frame): void {
    const { step, isPseudoDep, collected } = frame;
    const deps = collected.dependencies.map((d) => this.#depVersion(d));
    const pseudo = collected.pseudoDependencies.map((d) => this.#depVersion(d));
    const version: VersionObject = {
      name: step.name,
      config: collected.configVersion,
      dependencies: deps.map((d) => d[0]),
    };
    // sort_keys order: config, dependencies, name, pseudo_dependencies.
    let versionStr =
      `{"config": ${this.#serializeConfig(step, collected.configVersion)}, ` +
      `"dependencies": [${deps.map((d) => d[1]).join(', ')}], "name": ${pyQuote(step.name)}`;
    if (pseudo.length > 0) {
      version.pseudo_dependencies = pseudo.map((d) => d[0]);
      versionStr += `, "pseudo_dependencies": [${pseudo.map((d) => d[1]).join(', ')}]`;
    }
    versionStr += '}';
    const hashed = hash6(versionStr);
    let outputPath = pathJoin(this.prefix, `${step.name}-${hashed}`);
    if (step.overrideOutputPath !== null) {
      const override = makePrefixAbsolute(this.prefix, step.overrideOutputPath);
      if (override !== outputPath) {
        this.#logger.warn(`Output path ${outputPath} doesn't match given override ${override}, using the latter.`);
      }
      outputPath = override;
    }
    const infoConfig = instantiateConfig(step.config, {
      outputPath,
      outputPaths: this.outputPaths,
      prefix: this.prefix,
      keepFloats: true,
    });
    // Shares everything with infoConfig except the containers on the way to a FloatValue.
    const config = stripFloatValues(infoConfig);

    let canonical = this.#byVersionStr.get(versionStr);
    if (canonical === undefined) {
      canonical = step;
      this.steps.push(step);
      this.#byVersionStr.set(versionStr, step);
    } else {
      this.#logger.warn(
        `Multiple \`ExecutorStep\`s (named ${step.name}) have the same version; try to instantiate only once.`,
      );
    }
    this.dependencies.set(step, collected.dependencies.map((d) => this.canonicalize(d)));
    this.configs.set(step, config);
    this.infoConfigs.set(step, infoConfig);
    this.versions.set(step, version);
    this.versionStrs.set(step, versionStr);
    this.hashedVersions.set(step, hashed);
    this.outputPaths.set(step, outputPath);
    this.isPseudoDep.set(step, isPseudoDep);
    // A blocking duplicate makes its (possibly pseudo-only) canonical step needed too.
    if (!isPseudoDep && canonical !== step) this.#markBlocking(canonical);
  }

  /**
   * Marks `step` needed: it and its transitive canonical blocking dependencies stop being pseudo-only.
   * Marin upgrades only the step itself, which can leave a needed ancestor unscheduled.
   */
  #markBlocking(step: ExecutorStep): void {
    const todo = [step];
    for (let s = todo.pop(); s !== undefined; s = todo.pop()) {
      for (const t of [s, this.canonicalize(s)]) {
        if (this.isPseudoDep.get(t) !== true) continue;
        this.#logger.info(`Step ${t.name} was previously marked as skippable, but is not anymore.`);
        this.isPseudoDep.set(t, false);
        todo.push(...(this.dependencies.get(t) ?? []));
      }
    }
  }
}
