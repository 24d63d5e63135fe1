import { PipelineError } from '../../errors.js';
import { transferDeadlineMs } from './transfer-limits.js';
import type { TransferLimits } from './transfer-limits.js';
import type { SourceFile } from './source-file.js';

/** Where a hub repository lives and how to reach it. */
export interface HubRepo {
  /** Hub base URL without a trailing slash. */
  hubUrl: string;
  /** Marin's `hf_repo_type_prefix`: `"datasets"`, `"spaces"`, or `""` for a model repo. */
  typePrefix: string;
  /** `org/name`. */
  repoId: string;
  /** Pinned revision. */
  revision: string;
}

/** Most listing pages followed before the listing is refused as endless. */
export const HUB_LISTING_MAX_PAGES = 10_000;
/** Largest listing page accepted, in bytes (the hub's pages of 1,000 entries are about 150 KB). */
export const HUB_LISTING_MAX_PAGE_BYTES = 16 * 1024 * 1024;

/** Options of {@link listHubFiles}. */
export interface ListHubFilesOptions extends TransferLimits {
  /** The hub fetch ({@link createHubFetch}): credentials for the hub's origin, errors for non-OK answers. */
  fetch: typeof fetch;
  /** Aborts the listing; the abort reason is thrown. */
  signal: AbortSignal;
  /** @default {@link HUB_LISTING_MAX_PAGES} */
  maxPages?: number;
  /** @default {@link HUB_LISTING_MAX_PAGE_BYTES} */
  maxPageBytes?: number;
}

/**
 * The `resolve` URL of one file: `<hub>/[<prefix>/]<repo>/resolve/<revision>/<path>`, each segment
 * percent-encoded.
 */
export function hubFileUrl(repo: HubRepo, path: string): string {
  const prefix = repo.typePrefix === '' ? '' : `${repo.typePrefix}/`;
  const rel = path.split('/').map(encodeURIComponent).join('/');
  return `${repo.hubUrl}/${prefix}${repo.repoId}/resolve/${encodeURIComponent(repo.revision)}/${rel}`;
}

/** The first page of the tree API: `<hub>/api/{datasets|models|spaces}/<repo>/tree/<revision>?recursive=true`. */
export function hubTreeUrl(repo: HubRepo): string {
  const kind = repo.typePrefix === '' ? 'models' : repo.typePrefix;
  return `${repo.hubUrl}/api/${kind}/${repo.repoId}/tree/${encodeURIComponent(repo.revision)}?recursive=true&expand=false`;
}

/** The target of `Link: <…>; rel="next"`, or `null`. */
export function nextLink(header: string | null): string | null {
  if (header === null) return null;
  for (const part of header.split(/,(?=\s*<)/)) {
    const m = /^\s*<([^>]*)>(.*)$/s.exec(part);
    if (m !== null && /;\s*rel\s*=\s*"?([^";]*\s)?next(\s[^";]*)?"?\s*(;|$)/i.test(m[2] ?? '')) return m[1] ?? null;
  }
  return null;
}

function invalid(message: string, details: Record<string, unknown>): PipelineError {
  return new PipelineError('PIPELINE_HUB_LISTING_INVALID', message, { details });
}

/**
 * Every file of `repo` at its revision, through the hub's tree API, following `Link: rel="next"`
 * pages. Each page gets the read timeout (retryable) and a total deadline sized for
 * `maxPageBytes` (not retryable); a next link to another origin, a link already followed, more
 * than `maxPages` pages, an oversized page, and an entry that is not `{ type, path }` or a file
 * without a non-negative integer `size` refuse the listing. Each page's request gets its own
 * signal, so nothing accumulates on `opts.signal`.
 *
 * @throws {PipelineError} PIPELINE_HUB_LISTING_INVALID (not retryable) for a malformed or unbounded listing.
 * @throws {PipelineError} PIPELINE_HUB_UNAVAILABLE, retryable when no data came for the read timeout.
 */
export async function listHubFiles(repo: HubRepo, opts: ListHubFilesOptions): Promise<SourceFile[]> {
  const maxPages = opts.maxPages ?? HUB_LISTING_MAX_PAGES;
  const maxPageBytes = opts.maxPageBytes ?? HUB_LISTING_MAX_PAGE_BYTES;
  const origin = new URL(repo.hubUrl).origin;
  const out: SourceFile[] = [];
  const seen = new Set<string>();
  let url: string | null = hubTreeUrl(repo);
  while (url !== null) {
    seen.add(url);
    if (seen.size > maxPages) {
      throw invalid(`the listing of "${repo.repoId}" has more than ${maxPages} pages; refusing to follow it further`, { url, maxPages });
    }
    const page = await readPage(url, { ...opts, maxPageBytes });
    let entries: unknown;
    try {
      entries = JSON.parse(page.text);
    } catch (err) {
      throw invalid(`a listing page of "${repo.repoId}" is not JSON (${(err as Error).message})`, { url });
    }
    if (!Array.isArray(entries)) throw invalid(`a listing page of "${repo.repoId}" is not a JSON array`, { url });
    for (const entry of entries) {
      const file = fileOf(entry, url);
      if (file !== null) out.push({ path: file.path, size: file.size, url: hubFileUrl(repo, file.path) });
    }
    const next = nextLink(page.link);
    if (next === null) break;
    let resolved: URL;
    try {
      resolved = new URL(next, url);
    } catch {
      throw invalid(`a listing page of "${repo.repoId}" links to ${JSON.stringify(next)}, which is not a URL`, { url, next });
    }
    if (resolved.origin !== origin) {
      throw invalid(`the listing of "${repo.repoId}" links to another origin (${resolved.origin}); only ${origin} is followed`, { url, next: resolved.href });
    }
    if (seen.has(resolved.href)) {
      throw invalid(`the listing of "${repo.repoId}" loops: ${resolved.href} was already read`, { url, next: resolved.href });
    }
    url = resolved.href;
  }
  return out;
}

/** A file entry as `{ path, size }`, `null` for a directory, or a listing error. */
function fileOf(entry: unknown, url: string): { path: string; size: number } | null {
  if (typeof entry !== 'object' || entry === null) throw invalid('a listing entry is not an object', { url, entry });
  const { type, path, size } = entry as { type?: unknown; path?: unknown; size?: unknown };
  if (typeof path !== 'string') throw invalid('a listing entry has no string "path"', { url, entry });
  if (type === 'directory') return null;
  if (type !== 'file') throw invalid(`listing entry ${JSON.stringify(path)} has type ${JSON.stringify(type)}, not "file" or "directory"`, { url, path });
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
    const said = size === undefined ? 'no size' : `size ${JSON.stringify(size)}, not a byte count`;
    throw invalid(`listing entry ${JSON.stringify(path)} has ${said}; the hub lists a size for every file`, { url, path, size: size ?? null });
  }
  return { path, size };
}

/** Fetches one page under the read timeout, the page deadline and the byte cap. */
async function readPage(url: string, opts: ListHubFilesOptions & { maxPageBytes: number }): Promise<{ text: string; link: string | null }> {
  const page = new AbortController();
  const onAbort = (): void => page.abort(opts.signal.reason);
  opts.signal.addEventListener('abort', onAbort, { once: true });
  if (opts.signal.aborted) onAbort();
  const idle = new PipelineError('PIPELINE_HUB_UNAVAILABLE', `no data from listing page "${url}" for ${opts.readTimeoutMs} ms`, {
    retryable: true,
    details: { url, readTimeoutMs: opts.readTimeoutMs },
  });
  const deadlineMs = transferDeadlineMs(opts.maxPageBytes, opts);
  const late = new PipelineError('PIPELINE_HUB_UNAVAILABLE', `listing page "${url}" took longer than ${deadlineMs} ms; the hub is too slow`, {
    retryable: false,
    details: { url, deadlineMs },
  });
  let idleTimer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => page.abort(idle), opts.readTimeoutMs);
  };
  const deadline = setTimeout(() => page.abort(late), deadlineMs);
  arm();
  try {
    const res = await opts.fetch(url, { headers: { accept: 'application/json' }, signal: page.signal });
    const chunks: Uint8Array[] = [];
    let bytes = 0;
    if (res.body !== null) {
      const reader = res.body.getReader();
      try {
        for (;;) {
          arm();
          const { done, value } = await reader.read();
          if (done) break;
          bytes += value.byteLength;
          if (bytes > opts.maxPageBytes) {
            throw invalid(`listing page "${url}" is larger than ${opts.maxPageBytes} bytes`, { url, maxPageBytes: opts.maxPageBytes });
          }
          chunks.push(value);
        }
      } finally {
        await reader.cancel().catch(() => undefined);
      }
    }
    return { text: Buffer.concat(chunks).toString('utf8'), link: res.headers.get('link') };
  } catch (err) {
    if (page.signal.aborted) throw page.signal.reason;
    throw err;
  } finally {
    clearTimeout(idleTimer);
    clearTimeout(deadline);
    opts.signal.removeEventListener('abort', onAbort);
  }
}
