import { describe, expect, it } from 'vitest';
import { ExecutorStep } from './executor-step.js';
import { InputName } from './input-name.js';
import { mirrored } from './mirrored-value.js';
import { outputPathOf } from './step-reference.js';
import { thisOutputPath } from './output-name.js';
import { upstreamSteps } from './upstream-steps.js';
import { versioned } from './versioned-value.js';
import { InputNameEvent, VersionedEvent, walkConfig } from './walk-config.js';

const mk = (name: string, config: unknown = {}): ExecutorStep => new ExecutorStep({ name, fn: null, config });

function summary(obj: unknown): [string, string, unknown][] {
  return [...walkConfig(obj)].map((e) =>
    e instanceof VersionedEvent
      ? ['v', e.prefix, e.value]
      : ['i', e.prefix, `${e.inputName.step?.name ?? '-'}:${e.inputName.name ?? ''}`],
  );
}

describe('walkConfig()', () => {
  it.each([[null], [undefined], [0], [''], ['abc'], [3.14], [true], [[]], [{}], [new Set()], [thisOutputPath()]])(
    'yields nothing for %j',
    (x) => {
      expect([...walkConfig(x)]).toEqual([]);
    },
  );

  it('formats keys as a.b, xs.[0], [0] and "" for a root InputName', () => {
    const a = mk('a');
    expect(summary({ a: versioned(1), b: { c: versioned(2) }, xs: [versioned(3), versioned(4)] })).toEqual([
      ['v', 'a', 1],
      ['v', 'b.c', 2],
      ['v', 'xs.[0]', 3],
      ['v', 'xs.[1]', 4],
    ]);
    expect(summary([versioned(1), versioned(2)])).toEqual([
      ['v', '[0]', 1],
      ['v', '[1]', 2],
    ]);
    expect(summary(a.cd('x'))).toEqual([['i', '', 'a:x']]);
    expect(summary({ 'dotted.key': versioned(1) })).toEqual([['v', 'dotted.key', 1]]);
  });

  it('reports a bare step as outputPathOf(step) and does not walk its config', () => {
    const inner = mk('inner');
    const a = mk('a', { dep: inner, v: versioned(9) });
    const events = [...walkConfig({ s: a })];
    expect(events).toHaveLength(1);
    const e = events[0] as InputNameEvent;
    expect(e).toBeInstanceOf(InputNameEvent);
    expect(e.inputName).toEqual(outputPathOf(a));
  });

  it('treats VersionedValue as a leaf (even versioned(null)) and MirroredValue as transparent', () => {
    const a = mk('a');
    expect(summary({ v: versioned({ deep: a }), n: versioned(null), m: mirrored(versioned('p')), k: mirrored(a.cd('f')) })).toEqual([
      ['v', 'v', { deep: a }],
      ['v', 'n', null],
      ['v', 'm', 'p'],
      ['i', 'k', 'a:f'],
    ]);
  });

  it('walks depth-first in insertion order, Maps and Sets included, the same way every time', () => {
    const cfg = {
      z: { deep: versioned(1) },
      a: versioned(2),
      m: new Map<string, unknown>([['10', versioned(3)], ['2', versioned(4)]]),
      s: new Set([versioned(5)]),
    };
    const expected = [
      ['v', 'z.deep', 1],
      ['v', 'a', 2],
      ['v', 'm.10', 3],
      ['v', 'm.2', 4],
      ['v', 's.[0]', 5],
    ];
    expect(summary(cfg)).toEqual(expected);
    expect(summary(cfg)).toEqual(expected);
  });

  it('ignores symbol keys of records', () => {
    expect(summary({ [Symbol('s')]: versioned(1), a: versioned(2) })).toEqual([['v', 'a', 2]]);
  });

  it.each([
    ['a number', new Map<unknown, unknown>([[1, versioned(1)]])],
    ['a symbol', new Map<unknown, unknown>([[Symbol('k'), versioned(1)]])],
  ])('rejects a Map with %s key', (_name, m) => {
    expect(() => [...walkConfig({ m })]).toThrow(
      expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT', details: expect.objectContaining({ path: 'm' }) }),
    );
  });

  it('rejects a cyclic config naming the key path, but accepts shared sub-objects', () => {
    const shared = { v: versioned(1) };
    expect(summary({ a: shared, b: shared })).toEqual([
      ['v', 'a.v', 1],
      ['v', 'b.v', 1],
    ]);
    const cyclic: Record<string, unknown> = { x: [] };
    (cyclic['x'] as unknown[]).push({ back: cyclic });
    expect(() => [...walkConfig(cyclic)]).toThrow(
      expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT', details: expect.objectContaining({ path: 'x.[0].back' }) }),
    );
  });
});

describe('upstreamSteps()', () => {
  it('finds steps in records, Maps, arrays and Sets once each, in discovery order', () => {
    const a = mk('a');
    const b = mk('b');
    const c = mk('c');
    const d = mk('d');
    const cfg = { x: [b, a.cd('f')], m: new Map([['k', c]]), s: new Set([d]), again: a };
    expect(upstreamSteps(cfg)).toEqual([b, a, c, d]);
    expect(upstreamSteps(cfg)[1]).toBe(a);
  });

  it('includes nonblocking inputs, excludes hardcoded ones, skips VersionedValue, sees through MirroredValue', () => {
    const a = mk('a');
    const b = mk('b');
    const c = mk('c');
    const cfg = {
      nb: a.cd('x').nonblocking(),
      hard: InputName.hardcoded('raw/data'),
      v: versioned({ hidden: 1 }),
      m: mirrored(b.cd('y')),
      nested: mk('parent', { deep: c }),
    };
    expect(upstreamSteps(cfg).map((s) => s.name)).toEqual(['a', 'b', 'parent']);
  });
});
