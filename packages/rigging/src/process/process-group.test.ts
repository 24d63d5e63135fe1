import { describe, expect, it } from 'vitest';
import { isProcessGroupAlive, signalProcessGroup, terminateProcessGroup } from './process-group.js';

/** A group stand-in: records signals and dies after the one it obeys. */
function fakeGroup(diesOn: NodeJS.Signals | null) {
  const sent: NodeJS.Signals[] = [];
  let alive = true;
  const waits: number[] = [];
  let t = 0;
  return {
    sent,
    waits,
    options: {
      signal: (_pgid: number, sig: NodeJS.Signals) => {
        if (!alive) return false;
        sent.push(sig);
        if (sig === diesOn || sig === 'SIGKILL') alive = false;
        return true;
      },
      isGone: () => !alive,
      sleep: async (ms: number) => {
        waits.push(ms);
        t += ms;
      },
      now: () => t,
    },
  };
}

describe('terminateProcessGroup()', () => {
  it('stops at SIGTERM when the group obeys it', async () => {
    const g = fakeGroup('SIGTERM');
    expect(await terminateProcessGroup(123, { graceMs: 1_000, ...g.options })).toBe(false);
    expect(g.sent).toEqual(['SIGTERM']);
  });

  it('sends SIGKILL after graceMs when SIGTERM is ignored', async () => {
    const g = fakeGroup(null);
    expect(await terminateProcessGroup(123, { graceMs: 120, pollMs: 50, ...g.options })).toBe(true);
    expect(g.sent).toEqual(['SIGTERM', 'SIGKILL']);
    expect(g.waits).toEqual([50, 50, 20]);
  });

  it('does nothing for a group that is already gone', async () => {
    const g = fakeGroup(null);
    g.options.signal(123, 'SIGKILL');
    g.sent.length = 0;
    expect(await terminateProcessGroup(123, { graceMs: 100, ...g.options })).toBe(false);
    expect(g.sent).toEqual([]);
  });
});

describe('signalProcessGroup() and isProcessGroupAlive()', () => {
  // A pid far above Linux's default pid_max (4194304) names no group.
  const NO_SUCH_GROUP = 2 ** 30;

  it('report a missing group as gone instead of throwing', () => {
    expect(signalProcessGroup(NO_SUCH_GROUP, 'SIGTERM')).toBe(false);
    expect(isProcessGroupAlive(NO_SUCH_GROUP)).toBe(false);
  });
});
