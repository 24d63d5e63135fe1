import { describe, expect, it } from 'vitest';
import { readyLineOf } from './served-model.js';

describe('readyLineOf()', () => {
  it('finds the last well-formed ready line among other output', () => {
    const lines = ['loading', 'FRAY_ACTOR_READY {"address": "127.0.0.1:1", "pid": 5}', '[job] FRAY_ACTOR_READY {"address":"127.0.0.1:2","pid":6}', 'serving'];
    expect(readyLineOf(lines)).toEqual({ address: '127.0.0.1:2', pid: 6 });
  });

  it('ignores malformed ready lines and returns null without one', () => {
    expect(readyLineOf(['FRAY_ACTOR_READY {not json', 'FRAY_ACTOR_READY {"address": 1, "pid": 2}'])).toBeNull();
    expect(readyLineOf([])).toBeNull();
  });
});
