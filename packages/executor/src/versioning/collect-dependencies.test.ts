import { describe, expect, it } from 'vitest';
import { ExecutorStep } from '../dag/executor-step.js';
import { InputName } from '../dag/input-name.js';
import { mirrored } from '../dag/mirrored-value.js';
import { thisOutputPath } from '../dag/output-name.js';
import { versioned } from '../dag/versioned-value.js';
import { collectDependenciesAndVersion } from './collect-dependencies.js';

const mk = (name: string, config: unknown = {}): ExecutorStep => new ExecutorStep({ name, fn: null, config });

describe('collectDependenciesAndVersion()', () => {
  it('shares one DEP[i] counter between blocking and pseudo-dependencies', () => {
    const a = mk('a');
    const b = mk('b');
    const c = mk('c');
    const r = collectDependenciesAndVersion({ x: a, y: b.cd('f').nonblocking(), z: c.cd('g/h') });
    expect(r.configVersion).toEqual({ x: 'DEP[0]', y: 'DEP[1]/f', z: 'DEP[2]/g/h' });
    expect(r.dependencies).toEqual([a, c]);
    expect(r.pseudoDependencies).toEqual([b]);
  });

  it('gives {"": "DEP[0]/ckpt.pt"} for a blocking and a nonblocking root input, in different lists', () => {
    const parent = mk('parent');
    const blocking = collectDependenciesAndVersion(parent.cd('ckpt.pt'));
    const nonblocking = collectDependenciesAndVersion(parent.cd('ckpt.pt').nonblocking());
    expect(blocking.configVersion).toEqual({ '': 'DEP[0]/ckpt.pt' });
    expect(nonblocking.configVersion).toEqual({ '': 'DEP[0]/ckpt.pt' });
    expect(blocking.dependencies).toEqual([parent]);
    expect(blocking.pseudoDependencies).toEqual([]);
    expect(nonblocking.dependencies).toEqual([]);
    expect(nonblocking.pseudoDependencies).toEqual([parent]);
  });

  it('keeps duplicates, hashes hardcoded paths raw and ignores unversioned values', () => {
    const a = mk('a');
    const r = collectDependenciesAndVersion({
      one: a,
      two: a,
      raw: InputName.hardcoded('raw/data.jsonl'),
      plain: 'not versioned',
      n: 3,
      out: thisOutputPath('x'),
      v: versioned({ k: [1, 2] }),
    });
    expect(r.dependencies).toEqual([a, a]);
    expect(r.configVersion).toEqual({ one: 'DEP[0]', two: 'DEP[1]', raw: 'raw/data.jsonl', v: { k: [1, 2] } });
  });

  it('lets a mirrored versioned path contribute its path but not its budget', () => {
    const r = collectDependenciesAndVersion({ input_path: mirrored(versioned('some/path'), { budgetGb: 50 }) });
    expect(r.configVersion).toEqual({ input_path: 'some/path' });
  });
});
