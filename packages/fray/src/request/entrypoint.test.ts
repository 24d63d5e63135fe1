import { describe, expect, it } from 'vitest';
import { Entrypoint } from './entrypoint.js';

describe('Entrypoint', () => {
  it('builds frozen binary, module and callable entrypoints', () => {
    const bin = Entrypoint.fromBinary('node', ['-e', '1']);
    expect(bin).toEqual({ kind: 'binary', command: 'node', args: ['-e', '1'] });
    expect(Object.isFrozen(bin)).toBe(true);
    const mod = Entrypoint.fromModule({ module: 'experiments/x.ts', exportName: 'run', args: { n: 1 } });
    expect(mod).toEqual({ kind: 'module', module: 'experiments/x.ts', exportName: 'run', args: { n: 1 } });
    const fn = () => 1;
    const call = Entrypoint.fromCallable(fn, { reentry: bin });
    expect(call).toMatchObject({ kind: 'callable', fn, reentry: bin });
    expect(Entrypoint.fromCallable(fn)).not.toHaveProperty('reentry');
  });

  it('rejects bad input with FRAY_INVALID_ARGUMENT', () => {
    const bad = expect.objectContaining({ code: 'FRAY_INVALID_ARGUMENT' });
    expect(() => Entrypoint.fromBinary('')).toThrow(bad);
    expect(() => Entrypoint.fromBinary('node', [1 as unknown as string])).toThrow(bad);
    expect(() => Entrypoint.fromModule({ module: '', exportName: 'x' })).toThrow(bad);
    expect(() => Entrypoint.fromModule({ module: 'm', exportName: 'x', args: { d: new Date() as unknown as string } })).toThrow(bad);
    expect(() => Entrypoint.fromModule({ module: 'm', exportName: 'x', args: Number.NaN })).toThrow(bad);
    expect(() => Entrypoint.fromCallable('x' as unknown as () => unknown)).toThrow(bad);
  });
});
