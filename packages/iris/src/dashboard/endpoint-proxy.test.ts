import { describe, expect, it } from 'vitest';
import { endpointOrigin, parseProxyPath, rewriteLocation } from './endpoint-proxy.js';

describe('parseProxyPath', () => {
  it('splits plain segments and keeps the query', () => {
    expect(parseProxyPath('/proxy/alice/pool/actor/v1/score?q=1')).toEqual({
      segments: ['alice', 'pool', 'actor', 'v1', 'score'],
      rawSegments: ['alice', 'pool', 'actor', 'v1', 'score'],
      query: '?q=1',
    });
  });

  it('reads one encoded segment as the whole endpoint name', () => {
    const p = parseProxyPath('/proxy/%2Falice%2Fpool.v2%2Factor/x%20y');
    expect(p.exactName).toBe('/alice/pool.v2/actor');
    expect(p.rawSegments).toEqual(['%2Falice%2Fpool.v2%2Factor', 'x%20y']);
  });

  it.each([
    ['/proxy/', 'empty name'],
    ['/proxy//alice/x', 'empty first segment'],
    ['/proxy/alice/pool/actor/../x', 'dot-dot'],
    ['/proxy/alice/pool/actor/./x', 'dot'],
    ['/proxy/alice/pool/actor/%2E%2E/x', 'encoded dot-dot'],
    ['/proxy/alice/pool/actor/a%2Fb', 'encoded slash after the name'],
    ['/proxy/alice/pool/actor/a%5Cb', 'backslash'],
    ['/proxy/alice/pool/actor/a%0Ab', 'control character'],
    ['/proxy/%E0%A4%A', 'broken percent-encoding'],
    ['/proxy/%2Falice%2F%2E%2E%2Fx/y', 'dot-dot inside an encoded name'],
    ['/proxy/%2Falice%2F%2Fx/y', 'empty segment inside an encoded name'],
    ['/proxy/alice%2Fpool/y', 'encoded name without its leading slash'],
  ])('refuses %s (%s) as IRIS_INVALID_ARGUMENT', (path) => {
    expect(() => parseProxyPath(path)).toThrow(expect.objectContaining({ code: 'IRIS_INVALID_ARGUMENT' }));
  });
});

describe('rewriteLocation', () => {
  const backend = { host: '10.0.0.5', port: 8080 };
  it('keeps absolute paths and the backend\u2019s own URLs inside the proxy', () => {
    expect(rewriteLocation('/login?next=/', backend, '/proxy/a/b/c')).toBe('/proxy/a/b/c/login?next=/');
    expect(rewriteLocation('http://10.0.0.5:8080/x#y', backend, '/proxy/a/b/c')).toBe('/proxy/a/b/c/x#y');
  });
  it('leaves relative, protocol-relative and foreign URLs alone', () => {
    expect(rewriteLocation('next', backend, '/p')).toBe('next');
    expect(rewriteLocation('//elsewhere/x', backend, '/p')).toBe('//elsewhere/x');
    expect(rewriteLocation('https://example.com/x', backend, '/p')).toBe('https://example.com/x');
  });
});

describe('endpointOrigin', () => {
  it('reads host:port, [v6]:port and http URLs, and refuses other schemes', () => {
    expect(endpointOrigin('10.0.0.5:8080')).toEqual({ host: '10.0.0.5', port: 8080 });
    expect(endpointOrigin('[::1]:9000')).toEqual({ host: '::1', port: 9000 });
    expect(endpointOrigin('http://h:1')).toEqual({ host: 'h', port: 1 });
    expect(() => endpointOrigin('https://h:1')).toThrow(expect.objectContaining({ code: 'IRIS_ENDPOINT_UNREACHABLE' }));
  });
});
