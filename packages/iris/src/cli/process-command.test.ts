import { describe, expect, it } from 'vitest';
import { processTargetOf } from './process-command.js';

describe('processTargetOf', () => {
  it('reads --worker and Marin\'s --target /system/worker/<id>, and names the controller with neither', () => {
    expect(processTargetOf({})).toBe('');
    expect(processTargetOf({ target: '/system/controller' })).toBe('');
    expect(processTargetOf({ worker: 'w-1' })).toBe('w-1');
    expect(processTargetOf({ target: '/system/worker/w-1' })).toBe('w-1');
  });

  it('refuses both flags, an empty id and a target that is no daemon', () => {
    for (const flags of [{ worker: 'a', target: '/system/worker/a' }, { worker: '' }, { target: '/system/worker/' }, { target: '/user/job/0' }]) {
      expect(() => processTargetOf(flags)).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
    }
  });
});
