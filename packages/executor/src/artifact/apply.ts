import { Artifact } from './artifact-type.js';
import type { ArtifactType } from './artifact-type.js';
import { ArtifactStep } from './artifact-step.js';
import { resolveVersion } from './build-context.js';
import type { StepContext } from './step-context.js';

/** The `OUT` sentinel of {@link apply}: resolves to the step's `ctx.outputPath` (`<output_path>` in the fingerprint). */
export const OUT: unique symbol = Symbol.for('@marin/executor/OUT');

/** Options of {@link apply}, beside the function's inputs. */
export interface ApplyOptions<T extends object> {
  version?: string;
  artifactType?: ArtifactType<T>;
  /** Reference existing data instead of `{name}/{version}` (the step's `overridePath`). */
  pin?: string;
}

const OPTION_KEYS = new Set(['version', 'artifactType', 'pin']);

function collectDeps(inputs: Record<string, unknown>): ArtifactStep[] {
  const deps: ArtifactStep[] = [];
  const walk = (v: unknown): void => {
    if (v instanceof ArtifactStep) {
      if (!deps.includes(v)) deps.push(v);
    } else if (Array.isArray(v)) {
      v.forEach(walk);
    } else if (typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype) {
      Object.values(v).forEach(walk);
    }
  };
  Object.values(inputs).forEach(walk);
  return deps;
}

function resolveInput(v: unknown, ctx: StepContext): unknown {
  if (v instanceof ArtifactStep) return ctx.artifactPath(v);
  if (v === OUT) return ctx.outputPath;
  if (Array.isArray(v)) return v.map((x) => resolveInput(x, ctx));
  if (typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = resolveInput(x, ctx);
    return out;
  }
  return v;
}

/**
 * A one-step builder that calls `fn(inputs)` (Marin's `apply`): every `ArtifactStep` among the inputs (nested in
 * arrays and plain objects too) becomes a dep and resolves to its path (its `name@version` bears identity),
 * `OUT` resolves to the output path, anything else is a literal that bears identity. `version` falls back to the
 * ambient {@link withVersions} policy. The config (and fingerprint) is the inputs object.
 */
export function apply<T extends object = Record<never, never>, I extends Record<string, unknown> = Record<string, unknown>>(
  name: string,
  fn: (inputs: Record<string, unknown>) => T | void | Promise<T | void>,
  options: ApplyOptions<T> & I,
): ArtifactStep<T, Record<string, unknown>> {
  const inputs: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(options)) if (!OPTION_KEYS.has(k)) inputs[k] = v;
  const version = resolveVersion(name, options.version);
  return new ArtifactStep<T, Record<string, unknown>>({
    name,
    version,
    artifactType: options.artifactType ?? (Artifact as ArtifactType<T>),
    run: (config) => fn(config),
    buildConfig: (ctx) => {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(inputs)) out[k] = resolveInput(v, ctx);
      return out;
    },
    deps: collectDeps(inputs),
    overridePath: options.pin ?? null,
  });
}
