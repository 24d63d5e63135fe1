import { describe, expect, it } from 'vitest';
import { exitStatusOf } from './exit-status.js';

describe('exitStatusOf()', () => {
  it('reports exit 0 without a message', () => {
    expect(exitStatusOf(0, null)).toEqual({ exitCode: 0, signal: null, message: '' });
  });

  it('keeps a non-zero exit code', () => {
    expect(exitStatusOf(3, null)).toMatchObject({ exitCode: 3, signal: null });
  });

  it('maps SIGKILL to 137 and SIGTERM to 143 and names the signal', () => {
    expect(exitStatusOf(null, 'SIGKILL')).toEqual({ exitCode: 137, signal: 'SIGKILL', message: 'Exit code 137: killed by SIGKILL' });
    expect(exitStatusOf(null, 'SIGTERM')).toMatchObject({ exitCode: 143, signal: 'SIGTERM' });
  });
});
