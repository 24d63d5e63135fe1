import { useEffect, useState } from 'preact/hooks';

/** The current hash route: `#/jobs?state=RUNNING` → `{ page: 'jobs', params }`. */
export interface Route {
  readonly page: string;
  readonly params: URLSearchParams;
}

function current(): Route {
  const hash = location.hash.replace(/^#\/?/, '');
  const q = hash.indexOf('?');
  const page = (q < 0 ? hash : hash.slice(0, q)) || 'jobs';
  return { page, params: new URLSearchParams(q < 0 ? '' : hash.slice(q + 1)) };
}

/** The route, re-rendered on every hash change. */
export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const onChange = () => setRoute(current());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/** Navigates to `page` with these parameters (empty ones dropped). */
export function navigate(page: string, params: Record<string, string | number | undefined>): void {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const qs = q.toString();
  location.hash = `#/${page}${qs === '' ? '' : `?${qs}`}`;
}

/** Reloads data every `intervalMs` while the page is visible. */
export function usePoll(load: () => void, intervalMs: number, deps: readonly unknown[]): void {
  useEffect(() => {
    load();
    const t = setInterval(() => {
      if (document.visibilityState === 'visible') load();
    }, intervalMs);
    return () => clearInterval(t);
  }, deps);
}
