import { describe, expect, it } from 'vitest';
import { hubResponseError } from './hub-response-error.js';

const target = { repoId: 'org/ds', revision: 'abc1234' };
const errorFor = (status: number, headers: Record<string, string> = {}) =>
  hubResponseError(new Response(null, { status, headers }), 'http://hub/datasets/org/ds/resolve/abc1234/a', target);

describe('hubResponseError()', () => {
  it.each([
    [401, 'PIPELINE_HUB_UNAUTHORIZED', false],
    [403, 'PIPELINE_HUB_UNAUTHORIZED', false],
    [404, 'PIPELINE_HUB_NOT_FOUND', false],
    [408, 'PIPELINE_HUB_UNAVAILABLE', true],
    [429, 'PIPELINE_HUB_UNAVAILABLE', true],
    [500, 'PIPELINE_HUB_UNAVAILABLE', true],
    [503, 'PIPELINE_HUB_UNAVAILABLE', true],
    [400, 'PIPELINE_HUB_UNAVAILABLE', false],
  ])('maps HTTP %i to %s (retryable: %s)', (status, code, retryable) => {
    expect(errorFor(status)).toMatchObject({ code, retryable, details: { status, dataset: 'org/ds', revision: 'abc1234' } });
  });

  it('carries the RateLimit reset of a 429', () => {
    expect(errorFor(429, { RateLimit: '"api";r=0;t=17' }).details).toMatchObject({ rateLimitResetSeconds: 17 });
    expect(errorFor(429).details).toMatchObject({ rateLimitResetSeconds: null });
  });
});
