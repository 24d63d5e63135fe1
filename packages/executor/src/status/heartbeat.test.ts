import { setTimeout as sleep } from 'node:timers/promises';
import { RiggingError } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { startHeartbeat } from './heartbeat.js';

function collect(): { warns: string[]; logger: { info(m: string): void; warn(m: string): void } } {
  const warns: string[] = [];
  return { warns, logger: { info: () => {}, warn: (m) => void warns.push(m) } };
}

async function until(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}

describe('startHeartbeat()', () => {
  it('refreshes periodically until stopped', async () => {
    let refreshes = 0;
    const log = collect();
    const hb = startHeartbeat({
      lease: { refresh: async () => void refreshes++ },
      heartbeatMs: 20,
      timeoutMs: 5000,
      onLost: () => {
        throw new Error('must not be lost');
      },
      logger: log.logger,
      label: 'a-123456',
    });
    await until(() => refreshes >= 3);
    await hb.stop();
    const after = refreshes;
    await sleep(100);
    expect(refreshes).toBe(after);
    expect(hb.lost).toBe(false);
  });

  it('declares the lease lost at once when a refresh reports RIGGING_LEASE_LOST', async () => {
    const lost = new RiggingError('RIGGING_LEASE_LOST', 'held by someone else');
    let cause: unknown = null;
    const hb = startHeartbeat({
      lease: { refresh: () => Promise.reject(lost) },
      heartbeatMs: 20,
      timeoutMs: 60_000,
      onLost: (c) => void (cause = c),
      logger: collect().logger,
      label: 'a-123456',
    });
    await until(() => hb.lost);
    expect(cause).toBe(lost);
    await hb.stop();
  });

  it('retries transient refresh errors and declares loss only after the timeout without success', async () => {
    const log = collect();
    let lostAt = 0;
    const started = Date.now();
    const hb = startHeartbeat({
      lease: { refresh: () => Promise.reject(new Error('503 from storage')) },
      heartbeatMs: 20,
      timeoutMs: 300,
      onLost: () => void (lostAt = Date.now()),
      logger: log.logger,
      label: 'a-123456',
    });
    await until(() => hb.lost);
    expect(lostAt - started).toBeGreaterThanOrEqual(300);
    expect(log.warns.length).toBeGreaterThan(0);
    await hb.stop();
  });

  it('keeps the lease when transient errors are followed by a successful refresh', async () => {
    let calls = 0;
    const hb = startHeartbeat({
      lease: {
        refresh: async () => {
          calls++;
          if (calls <= 2) throw new Error('transient');
        },
      },
      heartbeatMs: 20,
      timeoutMs: 5000,
      onLost: () => {},
      logger: collect().logger,
      label: 'a-123456',
    });
    await until(() => calls >= 5);
    expect(hb.lost).toBe(false);
    await hb.stop();
  });
});
