import { describe, expect, it } from 'vitest';
import { actorCallSignal, runWithCallSignal } from './call-signal.js';

describe('actorCallSignal()', () => {
  it('is the signal of the call being served, across awaits, and a never-aborting one outside a call', async () => {
    expect(actorCallSignal().aborted).toBe(false);
    const ac = new AbortController();
    const seen = await runWithCallSignal(ac.signal, async () => {
      await new Promise((r) => setTimeout(r, 5));
      const inside = actorCallSignal();
      ac.abort();
      return inside;
    });
    expect(seen).toBe(ac.signal);
    expect(seen.aborted).toBe(true);
    expect(actorCallSignal()).not.toBe(ac.signal);
    expect(actorCallSignal().aborted).toBe(false);
  });
});
