import { hostname, networkInterfaces } from 'node:os';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

/** The host part of a `host:port` bind, without IPv6 brackets. */
export function bindHostOf(bind: string): string {
  return bind.slice(0, bind.lastIndexOf(':')).replace(/^\[|\]$/g, '');
}

/** True for an address only this machine can reach: `localhost`, 127.0.0.0/8, `::1`. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** True for a bind on every interface (`0.0.0.0`, `::`, empty). */
export function isWildcardHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  return h === '' || h === '0.0.0.0' || h === '::';
}

/**
 * The host names a dashboard answers to: the loopback names, the bound host (for a wildcard bind,
 * this machine's hostname and interface addresses) and any configured names. A browser sends the
 * name it resolved in `Host`, so a page on `evil.example` whose DNS was rebound to 127.0.0.1 still
 * says `evil.example` and is refused: it cannot reach a token-less local cluster.
 */
export function allowedDashboardHosts(bindHost: string, extra: readonly string[] = []): Set<string> {
  const names = new Set<string>([...LOOPBACK_NAMES, ...extra.map((n) => n.toLowerCase())]);
  if (isWildcardHost(bindHost)) {
    names.add(hostname().toLowerCase());
    for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) names.add(a.address.toLowerCase());
  } else names.add(bindHost.replace(/^\[|\]$/g, '').toLowerCase());
  return names;
}

/** The host name of a `Host` header (port and IPv6 brackets removed), lower-cased; null when absent or malformed. */
export function hostHeaderName(header: string | undefined): string | null {
  if (header === undefined || header === '') return null;
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end > 0 ? h.slice(1, end) : null;
  }
  const colon = h.indexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}
