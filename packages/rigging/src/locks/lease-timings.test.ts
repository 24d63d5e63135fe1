import { describe, expect, it } from 'vitest';
import { leaseTimings } from './lease-timings.js';

describe('leaseTimings()', () => {
  it('defaults to 30/90/5 and accepts fractional values', () => {
    expect(leaseTimings({})).toEqual({ heartbeatS: 30, timeoutS: 90, pollS: 5 });
    expect(leaseTimings({ MARIN_LEASE_HEARTBEAT_S: '0.2', MARIN_LEASE_TIMEOUT_S: '0.6', MARIN_LEASE_POLL_S: '0.05' })).toEqual({
      heartbeatS: 0.2,
      timeoutS: 0.6,
      pollS: 0.05,
    });
  });

  it('reads the environment on every call', () => {
    const before = process.env['MARIN_LEASE_POLL_S'];
    try {
      process.env['MARIN_LEASE_POLL_S'] = '2';
      expect(leaseTimings().pollS).toBe(2);
      process.env['MARIN_LEASE_POLL_S'] = '3';
      expect(leaseTimings().pollS).toBe(3);
    } finally {
      if (before === undefined) delete process.env['MARIN_LEASE_POLL_S'];
      else process.env['MARIN_LEASE_POLL_S'] = before;
    }
  });

  it('rejects non-positive values and a heartbeat not below the timeout', () => {
    expect(() => leaseTimings({ MARIN_LEASE_TIMEOUT_S: '0' })).toThrow(
      expect.objectContaining({ code: 'RIGGING_INVALID_ARGUMENT', details: expect.objectContaining({ path: 'MARIN_LEASE_TIMEOUT_S' }) }),
    );
    expect(() => leaseTimings({ MARIN_LEASE_POLL_S: 'soon' })).toThrow(expect.objectContaining({ code: 'RIGGING_INVALID_ARGUMENT' }));
    expect(() => leaseTimings({ MARIN_LEASE_HEARTBEAT_S: '90', MARIN_LEASE_TIMEOUT_S: '90' })).toThrow(
      expect.objectContaining({ code: 'RIGGING_INVALID_ARGUMENT', details: expect.objectContaining({ path: 'MARIN_LEASE_HEARTBEAT_S' }) }),
    );
  });
});
