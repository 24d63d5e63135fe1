import { describe, expect, it } from 'vitest';
import { checkExposure } from './exposure.js';

function check(o: { bind?: string; dashboardBind?: string | null; authToken?: string; insecure?: boolean }): string[] {
  const warnings: string[] = [];
  checkExposure({ bind: o.bind ?? '127.0.0.1:0', dashboardBind: o.dashboardBind ?? '127.0.0.1:0', authToken: o.authToken, insecure: o.insecure ?? false, warn: (m) => warnings.push(m) });
  return warnings;
}

describe('checkExposure', () => {
  it('lets loopback binds through without a token', () => {
    for (const bind of ['127.0.0.1:10000', 'localhost:0', '[::1]:0', '127.0.0.2:80']) expect(check({ bind, dashboardBind: bind })).toEqual([]);
  });

  it('refuses a controller or a dashboard on another address without a token, naming it and the ways out', () => {
    for (const o of [{ bind: '0.0.0.0:10000' }, { dashboardBind: '0.0.0.0:8080' }, { bind: '[::]:1' }, { bind: '10.1.2.3:10000' }]) {
      expect(() => check(o)).toThrow(expect.objectContaining({ code: 'IRIS_FAILED_PRECONDITION', message: expect.stringContaining('--insecure') }));
    }
    expect(() => check({ bind: '0.0.0.0:10000' })).toThrow(/0\.0\.0\.0:10000/);
  });

  it('serves with a token, or with --insecure and one warning line', () => {
    expect(check({ bind: '0.0.0.0:10000', dashboardBind: '0.0.0.0:8080', authToken: 's3cret' })).toEqual([]);
    const warnings = check({ bind: '0.0.0.0:10000', insecure: true });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).not.toContain('\n');
  });
});
