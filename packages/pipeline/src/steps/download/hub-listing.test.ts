import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { hubTreeUrl, listHubFiles, nextLink } from './hub-listing.js';

const repo = { hubUrl: 'http://hub.test', typePrefix: 'datasets', repoId: 'org/ds', revision: 'refs/pr/1' };
const limits = { readTimeoutMs: 5_000, minBytesPerSecond: 1024 * 1024 };

/** A fetch answering each listing page from `pages` (keyed by URL) without any network. */
function pagesFetch(pages: Record<string, { body: unknown; link?: string }>): typeof fetch {
  return async (input) => {
    const page = pages[String(input)];
    if (page === undefined) return new Response('missing', { status: 404 });
    return new Response(JSON.stringify(page.body), { headers: page.link === undefined ? {} : { link: page.link } });
  };
}

describe('nextLink()', () => {
  it.each([
    ['<https://h/a?cursor=2>; rel="next"', 'https://h/a?cursor=2'],
    ['<https://h/p>; rel="prev", <https://h/n>; rel=next', 'https://h/n'],
    ['<https://h/n>; rel="last next"', 'https://h/n'],
    ['<https://h/p>; rel="prev"', null],
    [null, null],
  ])('reads %j as %j', (header, url) => {
    expect(nextLink(header)).toBe(url);
  });
});

describe('listHubFiles()', () => {
  it('encodes the revision in the tree URL and follows same-origin pages', async () => {
    const first = hubTreeUrl(repo);
    expect(first).toBe('http://hub.test/api/datasets/org/ds/tree/refs%2Fpr%2F1?recursive=true&expand=false');
    const fetchPages = pagesFetch({
      [first]: { body: [{ type: 'directory', path: 'd', size: 0 }, { type: 'file', path: 'd/a', size: 3 }], link: '</api/datasets/org/ds/tree/x?cursor=2>; rel="next"' },
      'http://hub.test/api/datasets/org/ds/tree/x?cursor=2': { body: [{ type: 'file', path: 'b', size: 0 }] },
    });
    const signal = new AbortController().signal;
    const files = await listHubFiles(repo, { fetch: fetchPages, signal, ...limits });
    expect(files.map((f) => [f.path, f.size])).toEqual([
      ['d/a', 3],
      ['b', 0],
    ]);
    expect(files[0]?.url).toBe('http://hub.test/datasets/org/ds/resolve/refs%2Fpr%2F1/d/a');
  });

  it('leaves no abort listener on its signal after many pages', async () => {
    const pages: Record<string, { body: unknown; link?: string }> = {};
    let url = hubTreeUrl(repo);
    for (let i = 0; i < 50; i++) {
      const next = `http://hub.test/page/${i + 1}`;
      pages[url] = { body: [{ type: 'file', path: `f${i}`, size: 1 }], ...(i < 49 ? { link: `<${next}>; rel="next"` } : {}) };
      url = next;
    }
    const signal = new AbortController().signal;
    const before = getEventListeners(signal, 'abort').length;
    expect(await listHubFiles(repo, { fetch: pagesFetch(pages), signal, ...limits })).toHaveLength(50);
    expect(getEventListeners(signal, 'abort')).toHaveLength(before);
  });

  it('refuses a page larger than the byte cap', async () => {
    const fetchPages = pagesFetch({ [hubTreeUrl(repo)]: { body: [{ type: 'file', path: 'x'.repeat(200), size: 1 }] } });
    await expect(listHubFiles(repo, { fetch: fetchPages, signal: new AbortController().signal, ...limits, maxPageBytes: 100 })).rejects.toMatchObject({
      code: 'PIPELINE_HUB_LISTING_INVALID',
      details: { maxPageBytes: 100 },
    });
  });

  it('throws the abort reason when its signal aborts', async () => {
    const ac = new AbortController();
    const reason = new Error('stop');
    ac.abort(reason);
    // Like fetch: rejects once its signal aborts (at once if it already has), answers nothing before.
    const never: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => {
        if (init?.signal?.aborted === true) reject(new Error('aborted'));
        init?.signal?.addEventListener('abort', () => reject(new Error('aborted')));
      });
    await expect(listHubFiles(repo, { fetch: never, signal: ac.signal, ...limits })).rejects.toBe(reason);
  });
});
