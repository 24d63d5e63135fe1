import { describe, expect, it } from 'vitest';
import { entryScriptOfCaller } from './entry-script.js';

describe('entryScriptOfCaller()', () => {
  const stack = [
    'Error: entry script probe',
    '    at entryScriptOfCaller (file:///repo/packages/executor/src/main/entry-script.ts:12:5)',
    '    at executorMain (file:///repo/packages/executor/src/main/executor-main.ts:90:3)',
    '    at file:///repo/experiments/hello_world.js:57:7',
  ].join('\n');

  it('returns argv[1] when a stack frame runs in it', () => {
    expect(entryScriptOfCaller('/repo/experiments/hello_world.js', stack)).toBe('/repo/experiments/hello_world.js');
    expect(entryScriptOfCaller('/repo/x.cjs', 'Error\n    at main (/repo/x.cjs:3:1)')).toBe('/repo/x.cjs');
  });

  it('returns null when the entry script is not a caller (test runners, REPLs) or there is none', () => {
    expect(entryScriptOfCaller('/repo/node_modules/vitest/dist/workers/forks.js', stack)).toBeNull();
    expect(entryScriptOfCaller('/repo/experiments/hello', stack)).toBeNull();
    expect(entryScriptOfCaller(undefined, stack)).toBeNull();
  });

  it('finds the calling test file in a real stack', () => {
    const self = new URL(import.meta.url).pathname;
    expect(entryScriptOfCaller(self)).toBe(self);
  });
});
