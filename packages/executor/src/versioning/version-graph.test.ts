import { StoragePath, float } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { ExecutorStep } from '../dag/executor-step.js';
import { InputName } from '../dag/input-name.js';
import { mirrored } from '../dag/mirrored-value.js';
import { thisOutputPath } from '../dag/output-name.js';
import { versioned } from '../dag/versioned-value.js';
import type { ExecutorLogger } from '../logger.js';
import { VersionGraph } from './version-graph.js';

const noop = (): void => {};
const mk = (name: string, config: unknown = {}, extra: { overrideOutputPath?: string } = {}): ExecutorStep =>
  new ExecutorStep({ name, fn: noop, config, ...extra });

function recordingLogger(): ExecutorLogger & { infos: string[]; warns: string[] } {
  const infos: string[] = [];
  const warns: string[] = [];
  return { infos, warns, info: (m) => infos.push(m), warn: (m) => warns.push(m) };
}

function graphOf(prefix = '/tmp/marin'): VersionGraph {
  return new VersionGraph({ prefix, logger: recordingLogger() });
}

function versionOf(step: ExecutorStep, prefix = '/tmp/marin'): { str: string; hash: string; path: string } {
  const g = graphOf(prefix);
  g.computeVersion(step, false);
  return { str: g.versionStrs.get(step) as string, hash: g.hashedVersions.get(step) as string, path: g.outputPaths.get(step) as string };
}

// Built exactly like the hello_world experiment: data has config {} and stats reads data's output.
function helloWorld(): { data: ExecutorStep; stats: ExecutorStep } {
  const data = mk('hello_world/data', {});
  const stats = mk('hello_world/stats', { input_path: data });
  return { data, stats };
}

describe('VersionGraph golden vectors (Python Marin)', () => {
  it('hashes hello_world/data to d50b06 and hello_world/stats to b5daf3', () => {
    const { data, stats } = helloWorld();
    const g = graphOf('/tmp/prefix');
    g.computeVersion(stats, false);
    expect(g.versionStrs.get(data)).toBe('{"config": {}, "dependencies": [], "name": "hello_world/data"}');
    expect(g.hashedVersions.get(data)).toBe('d50b06');
    expect(g.versionStrs.get(stats)).toBe(
      '{"config": {"input_path": "DEP[0]"}, "dependencies": [{"config": {}, "dependencies": [], ' +
        '"name": "hello_world/data"}], "name": "hello_world/stats"}',
    );
    expect(g.hashedVersions.get(stats)).toBe('b5daf3');
    expect(g.outputPaths.get(data)).toBe('/tmp/prefix/hello_world/data-d50b06');
    expect(g.outputPaths.get(stats)).toBe('/tmp/prefix/hello_world/stats-b5daf3');
    expect(g.label(stats)).toBe('hello_world/stats-b5daf3');
    expect(g.steps).toEqual([data, stats]);
    expect(g.dependencies.get(stats)).toEqual([data]);
    expect(g.configs.get(stats)).toEqual({ input_path: '/tmp/prefix/hello_world/data-d50b06' });
  });

  it('matches Python for floats, big ints and non-ASCII text', () => {
    const step = mk('train/é', {
      lr: versioned(3e-4),
      eps: versioned(1e-8),
      n: versioned(1e20),
      tok: versioned('llamaé😀'),
      tags: versioned(['a', null, true]),
      'nested.k': versioned({ b: 0.5, a: [1.5e-7, float(2)] }),
      unversioned: 'ignored',
    });
    const v = versionOf(step);
    expect(v.str).toBe(
      '{"config": {"eps": 1e-08, "lr": 0.0003, "n": 100000000000000000000, "nested.k": {"a": [1.5e-07, 2.0], "b": 0.5}, ' +
        '"tags": ["a", null, true], "tok": "llama\\u00e9\\ud83d\\ude00"}, "dependencies": [], "name": "train/\\u00e9"}',
    );
    expect(v.hash).toBe('0fd098');
  });

  it('gives versioned(float(1)) and versioned(1) different hashes, as Python 1.0 and 1', () => {
    expect(versionOf(mk('s', { x: versioned(float(1)) })).hash).toBe('dc0850');
    expect(versionOf(mk('s', { x: versioned(1) })).hash).toBe('01a60b');
  });

  it('records pseudo-dependencies under pseudo_dependencies only when present', () => {
    const parent = mk('parent', { lr: versioned(0.1) });
    const other = mk('other');
    const child = mk('child', { ckpt: parent.cd('ckpt.pt').nonblocking(), data: other });
    const g = graphOf();
    g.computeVersion(child, false);
    expect(g.versionStrs.get(child)).toBe(
      '{"config": {"ckpt": "DEP[0]/ckpt.pt", "data": "DEP[1]"}, "dependencies": [{"config": {}, "dependencies": [], ' +
        '"name": "other"}], "name": "child", "pseudo_dependencies": [{"config": {"lr": 0.1}, "dependencies": [], "name": "parent"}]}',
    );
    expect(g.hashedVersions.get(child)).toBe('20c0d7');
    expect(g.dependencies.get(child)).toEqual([other]);
    expect(g.isPseudoDep.get(parent)).toBe(true);
    expect(g.isPseudoDep.get(other)).toBe(false);
    expect(Object.keys(g.versions.get(other) ?? {})).toEqual(['name', 'config', 'dependencies']);
    expect(g.configs.get(child)).toEqual({ ckpt: `${g.outputPaths.get(parent)}/ckpt.pt`, data: g.outputPaths.get(other) });
  });
});

describe('VersionGraph depth rule', () => {
  it('inlines dependencies of depth <= 4 and references deeper ones as "<name>-<hash6>"', () => {
    const chain = [mk('chain/s0', { i: versioned(0) })];
    for (let k = 1; k < 8; k++) chain.push(mk(`chain/s${k}`, { prev: chain[k - 1], i: versioned(k) }));
    const g = graphOf();
    g.computeVersion(chain[7] as ExecutorStep, false);
    // Hashes computed by Marin's algorithm in Python.
    expect(chain.map((s) => g.hashedVersions.get(s))).toEqual([
      '14613c', '4ecbe0', 'f459d6', '097c15', 'a24899', '81b23a', '641a4f', '39b386',
    ]);
    const deps = (k: number): unknown => g.versions.get(chain[k] as ExecutorStep)?.dependencies[0];
    expect(deps(5)).toBe(g.versions.get(chain[4] as ExecutorStep));
    expect(deps(6)).toBe('chain/s5-81b23a');
    expect(g.versionStrs.get(chain[6] as ExecutorStep)).toBe(
      '{"config": {"i": 6, "prev": "DEP[0]"}, "dependencies": ["chain/s5-81b23a"], "name": "chain/s6"}',
    );
    expect(g.steps).toEqual(chain);
  });

  it('gives the same DAG identical versions and hashes under two prefixes; only paths differ', () => {
    const build = (): ExecutorStep[] => {
      const chain = [mk('c0', { x: versioned(1) })];
      for (let k = 1; k < 7; k++) chain.push(mk(`c${k}`, { prev: chain[k - 1] }));
      return chain;
    };
    const a = build();
    const b = build();
    const ga = graphOf('gs://marin-us-central1');
    const gb = graphOf('gs://marin-eu-west4');
    ga.computeVersion(a[6] as ExecutorStep, false);
    gb.computeVersion(b[6] as ExecutorStep, false);
    for (let k = 0; k < 7; k++) {
      expect(gb.versionStrs.get(b[k] as ExecutorStep)).toBe(ga.versionStrs.get(a[k] as ExecutorStep));
      expect(gb.hashedVersions.get(b[k] as ExecutorStep)).toBe(ga.hashedVersions.get(a[k] as ExecutorStep));
    }
    expect(ga.outputPaths.get(a[6] as ExecutorStep)).toMatch(/^gs:\/\/marin-us-central1\/c6-[0-9a-f]{6}$/);
    expect(gb.outputPaths.get(b[6] as ExecutorStep)).toMatch(/^gs:\/\/marin-eu-west4\/c6-[0-9a-f]{6}$/);
  });

  it('handles a 5,000-step chain without overflowing the stack', () => {
    let last = mk('long/0');
    for (let k = 1; k < 5000; k++) last = mk(`long/${k}`, { prev: last });
    const g = graphOf();
    g.computeVersion(last, false);
    expect(g.steps).toHaveLength(5000);
  });
});

describe('VersionGraph sensitivity', () => {
  const downstream = (opts: { n?: number; sub?: string; upstream?: number; plain?: string }): string => {
    const up = mk('up', { k: versioned(opts.upstream ?? 1) });
    const down = mk('down', { input: up.cd(opts.sub ?? 'part'), n: versioned(opts.n ?? 1), plain: opts.plain ?? 'a' });
    return versionOf(down).path;
  };

  it('changes the output path for a versioned field, an input sub-name or an upstream field, not for an unversioned one', () => {
    const base = downstream({});
    expect(downstream({ n: 2 })).not.toBe(base);
    expect(downstream({ sub: 'other' })).not.toBe(base);
    expect(downstream({ upstream: 2 })).not.toBe(base);
    expect(downstream({ plain: 'b' })).toBe(base);
  });

  it("changes the child's version string with its pseudo-parent's name or versioned field", () => {
    const child = (parentName: string, lr: number): string =>
      versionOf(mk('child', { ckpt: mk(parentName, { lr: versioned(lr) }).cd('ckpt').nonblocking() })).str;
    const base = child('parent', 0.1);
    expect(child('parent2', 0.1)).not.toBe(base);
    expect(child('parent', 0.2)).not.toBe(base);
  });

  it('hashes a mirrored versioned path but not its budget', () => {
    const v = (path: string, budgetGb: number): { str: string; hash: string } =>
      versionOf(mk('m', { input_path: mirrored(versioned(path), { budgetGb }) }));
    expect(v('some/path', 50).str).toBe('{"config": {"input_path": "some/path"}, "dependencies": [], "name": "m"}');
    expect(v('some/path', 50).hash).toBe(v('some/path', 10).hash);
    expect(v('data/v1', 10).hash).not.toBe(v('data/v2', 10).hash);
  });

  it('hashes a versioned StoragePath like its string form', () => {
    expect(versionOf(mk('sp', { p: versioned(StoragePath.parse('gs://b//x/')) })).str).toBe(
      versionOf(mk('sp', { p: versioned('gs://b/x') })).str,
    );
  });

  it('hashes a hardcoded input by its raw relative path', () => {
    const v = versionOf(mk('h', { raw: InputName.hardcoded('raw/data') }), 'gs://b');
    expect(v.str).toBe('{"config": {"raw": "raw/data"}, "dependencies": [], "name": "h"}');
  });
});

describe('VersionGraph dedupe and overrides', () => {
  it('runs two structurally identical a→b graphs once', () => {
    const a1 = mk('a', { x: versioned(1) });
    const b1 = mk('b', { in: a1 });
    const a2 = mk('a', { x: versioned(1) });
    const b2 = mk('b', { in: a2 });
    const logger = recordingLogger();
    const g = new VersionGraph({ prefix: '/p', logger });
    g.computeVersion(b1, false);
    g.computeVersion(b2, false);
    expect(g.steps).toEqual([a1, b1]);
    expect(g.canonicalize(b2)).toBe(b1);
    expect(g.canonicalize(a2)).toBe(a1);
    expect(g.dependencies.get(b2)).toEqual([a1]);
    expect(g.outputPaths.size).toBe(4);
    expect(g.outputPaths.get(b2)).toBe(g.outputPaths.get(b1));
    expect(logger.warns).toHaveLength(2);
  });

  it('memoises by identity: a second computeVersion changes nothing', () => {
    const { stats } = helloWorld();
    const g = graphOf();
    g.computeVersion(stats, false);
    g.computeVersion(stats, false);
    expect(g.steps).toHaveLength(2);
  });

  it('uses an override path without changing the version or hash, and warns', () => {
    const plain = mk('s', { x: versioned(1) });
    const logger = recordingLogger();
    const cases: [string, string][] = [
      ['pinned/s', '/p/pinned/s'],
      ['/abs/s', '/abs/s'],
      ['gs://other/s', 'gs://other/s'],
    ];
    const base = versionOf(plain, '/p');
    for (const [override, expected] of cases) {
      const step = plain.withOutputPath(override);
      const g = new VersionGraph({ prefix: '/p', logger });
      const child = mk('child', { in: step });
      g.computeVersion(child, false);
      expect(g.outputPaths.get(step)).toBe(expected);
      expect(g.hashedVersions.get(step)).toBe(base.hash);
      expect(g.versionStrs.get(step)).toBe(base.str);
      expect(g.configs.get(child)).toEqual({ in: expected });
      expect(g.versionStrs.get(child)).toBe(versionOf(mk('child', { in: plain }), '/p').str);
    }
    expect(logger.warns).toHaveLength(3);
  });

  it('does not warn when the override equals the computed path', () => {
    const { data } = helloWorld();
    const logger = recordingLogger();
    const g = new VersionGraph({ prefix: '/p', logger });
    g.computeVersion(data.withOutputPath('hello_world/data-d50b06'), false);
    expect(logger.warns).toEqual([]);
  });
});

describe('VersionGraph pseudo-only steps', () => {
  it('upgrades a pseudo-only step and its blocking ancestors when a blocking reference appears', () => {
    const root = mk('root');
    const parent = mk('parent', { in: root });
    const child = mk('child', { ckpt: parent.cd('ckpt').nonblocking() });
    const logger = recordingLogger();
    const g = new VersionGraph({ prefix: '/p', logger });
    g.computeVersion(child, false);
    expect(g.isPseudoDep.get(parent)).toBe(true);
    expect(g.isPseudoDep.get(root)).toBe(true);
    expect(g.isPseudoDep.get(child)).toBe(false);
    g.computeVersion(mk('user', { p: parent }), false);
    expect(g.isPseudoDep.get(parent)).toBe(false);
    expect(g.isPseudoDep.get(root)).toBe(false);
    expect(logger.infos).toHaveLength(2);
  });

  it('upgrades a pseudo-only canonical step when a blocking duplicate of it appears', () => {
    const parentA = mk('parent', { x: versioned(1) });
    const parentB = mk('parent', { x: versioned(1) });
    const g = graphOf();
    g.computeVersion(mk('child', { c: parentA.cd('x').nonblocking() }), false);
    expect(g.isPseudoDep.get(parentA)).toBe(true);
    g.computeVersion(parentB, false);
    expect(g.canonicalize(parentB)).toBe(parentA);
    expect(g.isPseudoDep.get(parentA)).toBe(false);
  });

  it('keeps FloatValues in infoConfigs and resolves OutputName in configs', () => {
    const s = mk('s', { n: versioned(float(1)), f: float(2), out: thisOutputPath('x') });
    const g = graphOf('/p');
    g.computeVersion(s, false);
    const path = g.outputPaths.get(s) as string;
    expect(g.configs.get(s)).toEqual({ n: 1, f: 2, out: `${path}/x` });
    expect(g.infoConfigs.get(s)).toEqual({ n: float(1), f: float(2), out: `${path}/x` });
  });
});
