import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultSleep } from './sleep.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('defaultSleep()', () => {
  it('resolves after the delay on the global timers (fake timers reach it)', async () => {
    vi.useFakeTimers();
    let done = false;
    const p = defaultSleep(1_000).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await p;
    expect(done).toBe(true);
  });

  it('rejects with ABORT_ERR carrying the reason, at once or when the signal aborts', async () => {
    const reason = new Error('stop');
    await expect(defaultSleep(10, AbortSignal.abort(reason))).rejects.toMatchObject({ name: 'AbortError', code: 'ABORT_ERR', cause: reason });
    const ac = new AbortController();
    const p = defaultSleep(60_000, ac.signal);
    ac.abort(reason);
    await expect(p).rejects.toMatchObject({ code: 'ABORT_ERR', cause: reason });
  });
});
