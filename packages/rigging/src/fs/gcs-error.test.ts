import { describe, expect, it } from 'vitest';
import { translateGcsError } from './gcs-filesystem.js';

describe('GCS error mapping', () => {
  it('turns missing credentials into an actionable RIGGING_PERMISSION_DENIED without the library error as cause', () => {
    const lib = new Error('Could not load the default credentials. Browse to https://cloud.google.com/docs/authentication');
    const e = translateGcsError(lib, 'gs://b/x', 'read');
    expect(e).toMatchObject({ code: 'RIGGING_PERMISSION_DENIED', details: { path: 'gs://b/x', operation: 'read' } });
    expect((e as Error).cause).toBeUndefined();
  });

  it('maps HTTP statuses to codes and keeps the cause', () => {
    const cases: Array<[number, string]> = [
      [404, 'RIGGING_NOT_FOUND'],
      [403, 'RIGGING_PERMISSION_DENIED'],
      [401, 'RIGGING_PERMISSION_DENIED'],
      [412, 'RIGGING_CONDITIONAL_WRITE_FAILED'],
      [429, 'RIGGING_UNAVAILABLE'],
      [503, 'RIGGING_UNAVAILABLE'],
    ];
    for (const [status, code] of cases) {
      const lib = Object.assign(new Error('api'), { code: status });
      const e = translateGcsError(lib, 'gs://b/x', 'read');
      expect(e).toMatchObject({ code, details: { path: 'gs://b/x' } });
      expect((e as Error).cause).toBe(lib);
    }
    expect(translateGcsError(Object.assign(new Error('reset'), { code: 'ECONNRESET' }), 'gs://b/x', 'read')).toMatchObject({
      code: 'RIGGING_UNAVAILABLE',
      retryable: true,
    });
  });
});
