import { StoragePath, float } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { ExecutorStep } from '../dag/executor-step.js';
import { InputName } from '../dag/input-name.js';
import { mirrored } from '../dag/mirrored-value.js';
import { thisOutputPath } from '../dag/output-name.js';
import { versioned } from '../dag/versioned-value.js';
import { instantiateConfig, stripFloatValues } from './instantiate-config.js';

const mk = (name: string, config: unknown = {}): ExecutorStep => new ExecutorStep({ name, fn: null, config });
const dep = mk('tok');
const outputPaths = new Map([[dep, '/p/tok-abc123']]);
const base = { outputPath: '/p/me-123456', outputPaths, prefix: '/p' };

describe('instantiateConfig()', () => {
  it('resolves inputs, OutputName, hardcoded paths, VersionedValue and FloatValue', () => {
    const cfg = {
      step: dep,
      sub: dep.cd('tokens.bin'),
      nb: dep.cd('x').nonblocking(),
      out: thisOutputPath(),
      outSub: thisOutputPath('ckpt'),
      raw: InputName.hardcoded('raw/data'),
      abs: InputName.hardcoded('/mnt/data'),
      url: InputName.hardcoded('gs://other/data'),
      v: versioned({ lr: float(1), xs: [float(2.5)] }),
      f: float(3),
      plain: 'keep',
      n: null,
      u: undefined,
    };
    expect(instantiateConfig(cfg, base)).toEqual({
      step: '/p/tok-abc123',
      sub: '/p/tok-abc123/tokens.bin',
      nb: '/p/tok-abc123/x',
      out: '/p/me-123456',
      outSub: '/p/me-123456/ckpt',
      raw: '/p/raw/data',
      abs: '/mnt/data',
      url: 'gs://other/data',
      v: { lr: 1, xs: [2.5] },
      f: 3,
      plain: 'keep',
      n: null,
      u: undefined,
    });
  });

  it('treats a StoragePath as a leaf in configs and hashes it as its string form', () => {
    const p = StoragePath.parse('gs://b/data');
    const out = instantiateConfig({ p, v: versioned(p) }, base) as Record<string, unknown>;
    expect(out['p']).toBe(p);
    expect(out['v']).toBe(p);
  });

  it('keeps FloatValue markers with keepFloats', () => {
    expect(instantiateConfig({ v: versioned(float(1)), f: float(2) }, { ...base, keepFloats: true })).toEqual({
      v: float(1),
      f: float(2),
    });
  });

  it('does not search a VersionedValue for placeholders', () => {
    const out = instantiateConfig({ v: versioned({ ref: thisOutputPath() }) }, base) as { v: { ref: unknown } };
    expect(out.v.ref).toEqual(thisOutputPath());
  });

  it('rebuilds arrays, Maps and records (same prototype, frozen if frozen) and leaves Sets alone', () => {
    class TrainConfig {
      constructor(
        readonly input: unknown,
        readonly steps: number,
      ) {}
    }
    const set = new Set([dep]);
    const frozen = Object.freeze(new TrainConfig(dep, 10));
    const out = instantiateConfig({ list: [dep], map: new Map([['k', dep]]), cls: frozen, set }, base) as Record<string, unknown>;
    expect(out['list']).toEqual(['/p/tok-abc123']);
    expect(out['map']).toEqual(new Map([['k', '/p/tok-abc123']]));
    expect(out['cls']).toBeInstanceOf(TrainConfig);
    expect(out['cls']).toMatchObject({ input: '/p/tok-abc123', steps: 10 });
    expect(Object.isFrozen(out['cls'])).toBe(true);
    expect(out['set']).toBe(set);
  });

  it('passes class instances without placeholders through as they are (private fields keep working)', () => {
    class Budget {
      readonly #gb: number;
      constructor(gb: number) {
        this.#gb = gb;
      }
      bytes(): number {
        return this.#gb * 1e9;
      }
    }
    class WithRef {
      constructor(readonly path: unknown) {}
    }
    const budget = new Budget(2);
    const out = instantiateConfig({ budget, ref: new WithRef(dep) }, base) as { budget: Budget; ref: WithRef };
    expect(out.budget).toBe(budget);
    expect(out.budget.bytes()).toBe(2e9);
    expect(out.ref).toBeInstanceOf(WithRef);
    expect(out.ref.path).toBe('/p/tok-abc123');
  });

  it('throws EXECUTOR_MATERIALIZE_FAILED for an OutputName without an output path', () => {
    expect(() => instantiateConfig({ o: thisOutputPath() }, { ...base, outputPath: null })).toThrow(
      expect.objectContaining({ code: 'EXECUTOR_MATERIALIZE_FAILED' }),
    );
  });

  it('throws for a step without a computed output path', () => {
    expect(() => instantiateConfig({ s: mk('unknown') }, base)).toThrow(
      expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT', details: { step: 'unknown' } }),
    );
  });
});

describe('instantiateConfig() mirror:// rewriting', () => {
  it('rewrites mirrored strings and versioned paths without doubling mirror://', () => {
    const out = instantiateConfig(
      {
        a: mirrored(versioned('documents/data')),
        b: mirrored('raw/x'),
        c: mirrored('mirror://already/there'),
        d: mirrored(versioned('mirror://v')),
      },
      base,
    );
    expect(out).toEqual({ a: 'mirror://documents/data', b: 'mirror://raw/x', c: 'mirror://already/there', d: 'mirror://v' });
  });

  it('uses the prefix-relative path for mirrored inputs', () => {
    const out = instantiateConfig(
      {
        hard: mirrored(InputName.hardcoded('documents/raw')),
        absInside: mirrored(InputName.hardcoded('/p/documents/abs')),
        stepSub: mirrored(dep.cd('tokens.bin')),
        step: mirrored(dep),
      },
      base,
    );
    expect(out).toEqual({
      hard: 'mirror://documents/raw',
      absInside: 'mirror://documents/abs',
      stepSub: 'mirror://tok-abc123/tokens.bin',
      step: 'mirror://tok-abc123',
    });
  });

  it.each([
    ['a hardcoded path outside the prefix', mirrored(InputName.hardcoded('/elsewhere/x'))],
    ['a URL outside the prefix', mirrored(InputName.hardcoded('gs://other/x'))],
    ['a path that climbs out with ..', mirrored(InputName.hardcoded('../x'))],
    ['a step input that climbs out with ..', mirrored(dep.cd('../../etc'))],
  ])('rejects %s', (_what, value) => {
    expect(() => instantiateConfig({ value }, base)).toThrow(expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT' }));
  });

  it('rejects a mirrored step input whose output was pinned outside the prefix', () => {
    const pinned = mk('pinned');
    expect(() =>
      instantiateConfig({ m: mirrored(pinned) }, { ...base, outputPaths: new Map([[pinned, 'gs://elsewhere/pinned']]) }),
    ).toThrow(expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT' }));
  });
});

describe('stripFloatValues()', () => {
  it('copies only the containers on the way to a FloatValue', () => {
    class Opts {
      constructor(
        readonly lr: unknown,
        readonly tags: string[],
      ) {}
    }
    const untouched = { a: [1, 2], b: 'x' };
    const tags = ['t'];
    const input = { untouched, opts: Object.freeze(new Opts(float(1), tags)), list: [float(2), 3], map: new Map([['k', float(4)]]) };
    const out = stripFloatValues(input) as Record<string, unknown>;
    expect(out).not.toBe(input);
    expect(out['untouched']).toBe(untouched);
    expect(out['opts']).toBeInstanceOf(Opts);
    expect(out['opts']).toMatchObject({ lr: 1 });
    expect((out['opts'] as Opts).tags).toBe(tags);
    expect(Object.isFrozen(out['opts'])).toBe(true);
    expect(out['list']).toEqual([2, 3]);
    expect(out['map']).toEqual(new Map([['k', 4]]));
    expect(stripFloatValues(untouched)).toBe(untouched);
    expect((input.list[0] as unknown)).toEqual(float(2));
  });

  it('leaves placeholders alone and rejects a cycle', () => {
    const ref = thisOutputPath();
    expect(stripFloatValues({ ref })).toEqual({ ref });
    const c: Record<string, unknown> = { f: float(1) };
    c['c'] = c;
    expect(() => stripFloatValues(c)).toThrow(expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT' }));
  });
});
