import { remote } from '@marin/fray';
import { describe, expect, it } from 'vitest';
import { ExecutorStep } from './executor-step.js';
import { InputName } from './input-name.js';
import { getExecutorStep, outputPathOf } from './step-reference.js';

const noop = (): void => {};

describe('ExecutorStep', () => {
  it('is frozen and keeps its options', () => {
    const step = new ExecutorStep({ name: 'a/b', fn: noop, config: { x: 1 }, description: 'd' });
    expect(Object.isFrozen(step)).toBe(true);
    expect(step).toMatchObject({ name: 'a/b', description: 'd', overrideOutputPath: null, resources: null });
    expect(step.config).toEqual({ x: 1 });
  });

  it('has object identity: structurally equal steps are different map keys', () => {
    const a = new ExecutorStep({ name: 'a', fn: null, config: {} });
    const b = new ExecutorStep({ name: 'a', fn: null, config: {} });
    const m = new Map([[a, 1]]);
    expect(m.has(b)).toBe(false);
  });

  it('builds InputNames with cd() and asInputName()', () => {
    const step = new ExecutorStep({ name: 'a', fn: null, config: {} });
    expect(step.cd('x')).toMatchObject({ step, name: 'x', blockOnStep: true });
    expect(step.asInputName()).toMatchObject({ step, name: null });
    expect(step.cd('x')).toBeInstanceOf(InputName);
  });

  it('withOutputPath() returns a new step with the override', () => {
    const step = new ExecutorStep({ name: 'a', fn: noop, config: { k: 1 }, resources: { cpu: 1 } });
    const pinned = step.withOutputPath('pinned/a');
    expect(pinned).not.toBe(step);
    expect(pinned).toMatchObject({ name: 'a', fn: noop, overrideOutputPath: 'pinned/a', resources: { cpu: 1 } });
    expect(pinned.config).toBe(step.config);
    expect(step.overrideOutputPath).toBeNull();
  });

  it('keeps a priority band in the step resources, which Fray sends to Iris', () => {
    const step = new ExecutorStep({ name: 'a', fn: noop, config: {}, resources: { cpu: 1, priority: 'BATCH' } });
    expect(step.resources?.priority).toBe('BATCH');
  });

  it.each([[''], ['/abs'], [3 as unknown as string]])('rejects the name %j', (name) => {
    expect(() => new ExecutorStep({ name, fn: null, config: {} })).toThrow(
      expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT' }),
    );
  });

  it('accepts a Fray RemoteCallable as fn', () => {
    const tokenize = remote((config: { n: number }) => config.n);
    const step = new ExecutorStep({ name: 'tok', fn: tokenize, config: { n: 1 } });
    expect(step.fn).toBe(tokenize);
  });

  it('rejects a non-function fn and a non-string override', () => {
    expect(() => new ExecutorStep({ name: 'a', fn: 'x' as unknown as null, config: {} })).toThrow(
      expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT' }),
    );
    expect(() => new ExecutorStep({ name: 'a', fn: null, config: {}, overrideOutputPath: 5 as unknown as string })).toThrow(
      expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT' }),
    );
  });
});

describe('outputPathOf() and getExecutorStep()', () => {
  const step = new ExecutorStep({ name: 'a', fn: null, config: {} });

  it('outputPathOf builds a blocking InputName', () => {
    expect(outputPathOf(step)).toMatchObject({ step, name: null, blockOnStep: true });
    expect(outputPathOf(step, 'f.txt')).toMatchObject({ step, name: 'f.txt' });
  });

  it('getExecutorStep returns the step behind a step or an InputName', () => {
    expect(getExecutorStep(step)).toBe(step);
    expect(getExecutorStep(step.cd('x'))).toBe(step);
  });

  it('getExecutorStep rejects hardcoded paths and other values', () => {
    expect(() => getExecutorStep(InputName.hardcoded('raw/data'))).toThrow(
      expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT', details: { name: 'raw/data' } }),
    );
    expect(() => getExecutorStep('a' as unknown as ExecutorStep)).toThrow(
      expect.objectContaining({ code: 'EXECUTOR_INVALID_ARGUMENT', details: { type: 'string' } }),
    );
  });
});
