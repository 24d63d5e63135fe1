import { float } from '@marin/rigging';
import { ArtifactStep } from '../../src/artifact/artifact-step.js';
import type { ArtifactStepContext } from '../../src/index.js';

/** A value tagged with its Python type, so both languages build the same config from one description. */
export type Tagged =
  | { t: 'int'; v: string }
  | { t: 'float'; v: string }
  | { t: 'str'; v: string }
  | { t: 'bool'; v: boolean }
  | { t: 'null' }
  | { t: 'list' | 'tuple' | 'set'; v: Tagged[] }
  | { t: 'dict'; v: [string, Tagged][] }
  | { t: 'enum'; v: string | number }
  | { t: 'path'; v: string }
  | { t: 'dep'; v: number }
  | { t: 'ctx'; v: string };

/** One generated step: identity, deps, runtime arg keys, config, and a JSON-shaped result value. */
export interface ConfigCase {
  name: string;
  version: string;
  deps: { name: string; version: string }[];
  runtime_args: string[];
  config: Tagged;
  result: Tagged | null;
}

/** mulberry32: a small seeded PRNG, so a failing vector is reproducible from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STRING_PIECES = ['a', 'Z', 'lr', 'é', 'ß', '日本', '😀', '\u2028', '\n', '\t', '"', '\\', '/', '\u0001', '\u007f', ' ', '10', '2', '-', 'x.y', '\u00a0', '\ud83d\ude80'];
const FLOATS = ['1.0', '0.0', '-0.0', '1e-05', '0.0001', '1e-07', '1e+16', '1e+22', '123456789.0', '0.1', '-2.5', '1.7976931348623157e+308', '5e-324', '3.141592653589793', 'nan', 'inf', '-inf', '1e+300', '9007199254740993.0', '0.30000000000000004', '100.0', '2.5e-10'];
const INTS = ['0', '1', '-1', '42', '9007199254740991', '9007199254740993', '-123456789012345678901234567890', '1000000000000000000000'];
const NAMES = ['hello_world/data', 'tokenized/fineweb', 'a', 'train/llama-8b', 'eval_x'];
const FIXED = ['2026.11.25', '2026.01.01.2', '2025.12.31'];

export class VectorGenerator {
  constructor(private readonly rand: () => number) {}

  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rand() * xs.length)] as T;
  }

  int(n: number): number {
    return Math.floor(this.rand() * n);
  }

  string(): string {
    let s = '';
    const n = this.int(4);
    for (let i = 0; i < n; i++) s += this.pick(STRING_PIECES);
    return s;
  }

  float(): string {
    if (this.rand() < 0.5) return this.pick(FLOATS);
    // A random double of a random magnitude, as Python's repr text (JS gives the same shortest digits).
    const x = (this.rand() - 0.5) * 10 ** (this.int(40) - 20);
    return String(x);
  }

  scalar(): Tagged {
    switch (this.int(6)) {
      case 0: return { t: 'int', v: this.rand() < 0.7 ? String(this.int(2000) - 1000) : this.pick(INTS) };
      case 1: return { t: 'float', v: this.float() };
      case 2: return { t: 'str', v: this.string() };
      case 3: return { t: 'bool', v: this.rand() < 0.5 };
      case 4: return { t: 'null' };
      default: return { t: 'str', v: this.pick(NAMES) };
    }
  }

  /** A JSON-shaped value (what a record's `result` holds). */
  json(depth: number): Tagged {
    if (depth <= 0 || this.rand() < 0.5) return this.scalar();
    if (this.rand() < 0.5) return { t: 'list', v: Array.from({ length: this.int(4) }, () => this.json(depth - 1)) };
    return { t: 'dict', v: this.keys().map((k) => [k, this.json(depth - 1)] as [string, Tagged]) };
  }

  keys(): string[] {
    const keys = new Set<string>();
    const n = this.int(5);
    for (let i = 0; i < n; i++) keys.add(this.rand() < 0.3 ? this.string() : this.pick(['lr', 'seed', 'b', 'a', 'B', '10', '2', 'é', 'z_z', 'model']));
    return [...keys];
  }

  config(depth: number, deps: number, args: readonly string[]): Tagged {
    const r = this.rand();
    if (depth <= 0 || r < 0.3) {
      const s = this.int(10);
      if (s === 0 && deps > 0) return { t: 'dep', v: this.int(deps) };
      if (s === 1) return { t: 'ctx', v: this.pick(['output_path', 'prefix', 'region', ...args.map((a) => `arg:${a}`)]) };
      if (s === 2) return { t: 'enum', v: this.rand() < 0.5 ? this.pick(['bf16', 'fp32', 'é']) : this.int(5) };
      if (s === 3) return { t: 'path', v: this.pick(['a/b', '/abs/path.txt', 'rel', 'x/y.jsonl.gz']) };
      return this.scalar();
    }
    if (r < 0.45) return { t: 'tuple', v: Array.from({ length: this.int(4) }, () => this.config(depth - 1, deps, args)) };
    if (r < 0.55) {
      const members = [...new Set(Array.from({ length: this.int(5) }, () => (this.rand() < 0.5 ? String(this.int(100)) : this.string())))];
      const asInts = this.rand() < 0.5;
      return { t: 'set', v: asInts ? [...new Set(members.map((m) => String(m.length * 7 + (Number.parseInt(m, 10) || 0))))].map((v) => ({ t: 'int', v })) : members.map((v) => ({ t: 'str', v })) };
    }
    if (r < 0.75) return { t: 'list', v: Array.from({ length: this.int(4) }, () => this.config(depth - 1, deps, args)) };
    return { t: 'dict', v: this.keys().map((k) => [k, this.config(depth - 1, deps, args)] as [string, Tagged]) };
  }

  case(): ConfigCase {
    const mutable = this.rand() < 0.3;
    const version = mutable ? this.pick(['dev', 'alice-dev']) : this.pick(FIXED);
    const deps = Array.from({ length: this.int(3) }, (_, i) => ({ name: `${this.pick(NAMES)}_${i}`, version: mutable ? this.pick(['dev', ...FIXED]) : this.pick(FIXED) }));
    const args = this.rand() < 0.3 ? ['tpu', 'slice'] : [];
    return {
      name: this.pick(NAMES),
      version,
      deps,
      runtime_args: args,
      config: { t: 'dict', v: this.keys().map((k) => [k, this.config(3, deps.length, args)] as [string, Tagged]) },
      result: this.rand() < 0.5 ? this.json(2) : null,
    };
  }

  /** Candidate names/versions: valid CalVer and dev forms, and near misses of each rule. */
  versionString(): string {
    const pieces = [
      '2026.11.25', '2026.11.25.3', '2026.1.25', '26.11.25', '2026.11.25.', '2026.11.25.x', 'v1', 'dev', 'alice-dev', '-dev', 'dev-', 'Dev',
      'a/b', '/a', 'a/', '..', 'a..b', 'gs://x', 's3:x', 'C:\\x', '1a:b', ' a:b', '\ta:b', 'a+b.c-d:e', '2026.11.25\n', '2026.11.25\n\n', '٢٠٢٦.١١.٢٥',
      '', ':', 'a:', 'x-dev/y', 'hello_world/data', 'é:x', '2026.11.25-dev', '\u0000x:y', 'a\nb:c',
    ];
    if (this.rand() < 0.6) return this.pick(pieces);
    return this.pick(pieces) + this.pick(['', '-dev', '.1', '/x', ':y', ' ', '..']);
  }
}

class VectorEnumValue {
  constructor(readonly value: unknown) {}
}

/** Builds the TypeScript value of a tagged config against a context (the Python driver's `decode`). */
export function decodeTagged(node: Tagged, ctx: ArtifactStepContext | null, deps: readonly ArtifactStep[], dictAsMap = false): unknown {
  switch (node.t) {
    case 'int': {
      const n = Number(node.v);
      return Number.isSafeInteger(n) ? n : BigInt(node.v);
    }
    case 'float': {
      const x = node.v === 'nan' ? NaN : node.v === 'inf' ? Infinity : node.v === '-inf' ? -Infinity : Number(node.v);
      // An integral float must be a FloatValue; a non-integral one is a plain number (both forms are exercised).
      return Number.isInteger(x) || !Number.isFinite(x) || Object.is(x, -0) ? float(x) : x;
    }
    case 'str':
    case 'bool':
      return node.v;
    case 'null':
      return null;
    case 'list':
    case 'tuple':
      return node.v.map((x) => decodeTagged(x, ctx, deps, dictAsMap));
    case 'set':
      return new Set(node.v.map((x) => decodeTagged(x, ctx, deps, dictAsMap)));
    case 'dict': {
      // A record's result keeps insertion order only as a Map (a plain object lists integer-like keys first).
      if (dictAsMap) return new Map(node.v.map(([k, x]) => [k, decodeTagged(x, ctx, deps, dictAsMap)]));
      const out: Record<string, unknown> = {};
      for (const [k, x] of node.v) out[k] = decodeTagged(x, ctx, deps, dictAsMap);
      return out;
    }
    case 'enum':
      // A TypeScript enum member is its value.
      return new VectorEnumValue(node.v).value;
    case 'path':
      return node.v;
    case 'dep':
      return (ctx as ArtifactStepContext).artifactPath(deps[node.v] as ArtifactStep);
    case 'ctx': {
      const c = ctx as ArtifactStepContext;
      if (node.v === 'output_path') return c.outputPath;
      if (node.v === 'prefix') return c.prefix;
      if (node.v === 'region') return c.region;
      return c.runtimeArg(node.v.slice('arg:'.length));
    }
  }
}

/** The TypeScript handle of a generated case. */
export function caseHandle(c: ConfigCase): ArtifactStep<Record<never, never>, unknown> {
  const deps = c.deps.map((d) => new ArtifactStep({ name: d.name, version: d.version, run: () => undefined, buildConfig: () => null }));
  return new ArtifactStep({
    name: c.name,
    version: c.version,
    run: () => undefined,
    buildConfig: (ctx) => decodeTagged(c.config, ctx, deps),
    deps,
    runtimeArgs: Object.fromEntries(c.runtime_args.map((k) => [k, `real-${k}`])),
  });
}
