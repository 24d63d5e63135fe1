import { describe, expect, it } from 'vitest';
import { ExecutorStep } from './executor-step.js';
import { InputName } from './input-name.js';
import { OutputName, THIS_OUTPUT_PATH, thisOutputPath } from './output-name.js';
import { pathJoin } from './path-join.js';

const step = new ExecutorStep({ name: 'a', fn: null, config: {} });

describe('InputName', () => {
  it('cd() joins POSIX-style and keeps the step and blocking flag', () => {
    const n = new InputName(step, 'ckpt', false).cd('model.pt');
    expect(n).toMatchObject({ step, name: 'ckpt/model.pt', blockOnStep: false });
    expect(new InputName(step, null).cd('x').name).toBe('x');
    expect(new InputName(step, '').cd('x').name).toBe('x');
    expect(new InputName(step, 'dir/').cd('x').name).toBe('dir/x');
    expect(new InputName(step, 'dir').cd('/abs').name).toBe('/abs');
  });

  it('hardcoded() has no step; nonblocking() returns a copy', () => {
    expect(InputName.hardcoded('raw/x')).toMatchObject({ step: null, name: 'raw/x', blockOnStep: true });
    const nb = step.cd('x').nonblocking();
    expect(nb).toMatchObject({ step, name: 'x', blockOnStep: false });
    expect(Object.isFrozen(nb)).toBe(true);
  });

  it('rejects a non-string name and an empty hardcoded path', () => {
    expect(() => new InputName(step, 5 as unknown as string)).toThrow(expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT' }));
    expect(() => InputName.hardcoded('')).toThrow(expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT' }));
  });
});

describe('OutputName', () => {
  it('thisOutputPath() and THIS_OUTPUT_PATH', () => {
    expect(thisOutputPath()).toEqual(new OutputName(null));
    expect(thisOutputPath('x').name).toBe('x');
    expect(THIS_OUTPUT_PATH.name).toBeNull();
    expect(Object.isFrozen(THIS_OUTPUT_PATH)).toBe(true);
  });
});

describe('pathJoin()', () => {
  it('follows os.path.join', () => {
    expect(pathJoin('gs://b', 'x')).toBe('gs://b/x');
    expect(pathJoin('/tmp/', 'x')).toBe('/tmp/x');
    expect(pathJoin('', 'x')).toBe('x');
    expect(pathJoin('/tmp', '/etc')).toBe('/etc');
  });
});
