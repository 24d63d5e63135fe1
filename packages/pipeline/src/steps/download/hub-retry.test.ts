import { RiggingError } from '@marin/rigging';
import { describe, expect, it } from 'vitest';
import { PipelineError } from '../../errors.js';
import { retryHubCall } from './hub-retry.js';
import type { HubRetryOptions } from './hub-retry.js';

function harness(overrides: Partial<HubRetryOptions> = {}): { waits: number[]; opts: HubRetryOptions } {
  const waits: number[] = [];
  const opts: HubRetryOptions = {
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 0,
    signal: new AbortController().signal,
    log: () => undefined,
    operation: 'http://hub/x',
    ...overrides,
  };
  return { waits, opts };
}

const unavailable = (details: Record<string, unknown> = {}): PipelineError =>
  new PipelineError('PIPELINE_HUB_UNAVAILABLE', 'HTTP 503', { retryable: true, details });

describe('retryHubCall()', () => {
  it('retries retryable failures on the hub schedule, then returns', async () => {
    const { waits, opts } = harness();
    let calls = 0;
    const value = await retryHubCall(async () => {
      if (++calls < 4) throw unavailable();
      return 'ok';
    }, opts);
    expect(value).toBe('ok');
    expect(waits).toEqual([5_000, 10_000, 20_000]);
  });

  it('waits at least the rate-limit reset plus 10 s after a 429', async () => {
    const { waits, opts } = harness();
    let calls = 0;
    await retryHubCall(async () => {
      if (++calls === 1) throw unavailable({ rateLimitResetSeconds: 45 });
    }, opts);
    expect(waits).toEqual([55_000]);
  });

  it('treats a foreign error (network failure) as retryable PIPELINE_HUB_UNAVAILABLE', async () => {
    const { waits, opts } = harness({ maxAttempts: 2 });
    const err = await retryHubCall(async () => {
      throw new TypeError('fetch failed');
    }, opts).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'PIPELINE_HUB_UNAVAILABLE', retryable: true, cause: expect.any(TypeError) });
    expect(waits).toHaveLength(1);
  });

  it('gives up after 20 attempts with the last error', async () => {
    const { waits, opts } = harness();
    let calls = 0;
    const err = await retryHubCall(async () => {
      calls++;
      throw unavailable({ status: 500 });
    }, opts).catch((e: unknown) => e);
    expect(calls).toBe(20);
    expect(waits).toHaveLength(19);
    expect(Math.max(...waits)).toBe(900_000);
    expect(err).toMatchObject({ code: 'PIPELINE_HUB_UNAVAILABLE', details: { status: 500 } });
  });

  it.each([
    ['PIPELINE_HUB_UNAUTHORIZED', new PipelineError('PIPELINE_HUB_UNAUTHORIZED', '401')],
    ['PIPELINE_HUB_NOT_FOUND', new PipelineError('PIPELINE_HUB_NOT_FOUND', '404')],
    ['PIPELINE_SIZE_MISMATCH', new PipelineError('PIPELINE_SIZE_MISMATCH', 'short')],
    ['RIGGING_PERMISSION_DENIED', new RiggingError('RIGGING_PERMISSION_DENIED', 'denied')],
  ])('fails at once on %s', async (code, error) => {
    const { waits, opts } = harness();
    let calls = 0;
    await expect(
      retryHubCall(async () => {
        calls++;
        throw error;
      }, opts),
    ).rejects.toMatchObject({ code });
    expect(calls).toBe(1);
    expect(waits).toEqual([]);
  });

  it('stops with the abort reason once the signal is aborted', async () => {
    const ac = new AbortController();
    const reason = new Error('lease lost');
    const { opts } = harness({ signal: ac.signal });
    await expect(
      retryHubCall(async () => {
        ac.abort(reason);
        throw unavailable();
      }, opts),
    ).rejects.toBe(reason);
  });
});
