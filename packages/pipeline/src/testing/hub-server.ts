import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, readFile, readdir, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/**
 * A failure the {@link startHubServer} injects on requests for one path. `path` is the decoded
 * request path without the query, e.g. `/datasets/org/name/resolve/abc1234/data/a.jsonl` or
 * `/api/datasets/org/name/tree/abc1234`.
 */
export type HubFault = { path: string; times?: number } & (
  | {
      /** Answer with this HTTP status (and a JSON error body). */
      kind: 'status';
      status: number;
      /** Sent as `RateLimit: "api";r=0;t=<seconds>`, as the hub does on 429. */
      rateLimitResetSeconds?: number;
    }
  | {
      /** A well-formed response holding only the first `bytes` bytes of the file. */
      kind: 'truncate';
      bytes: number;
    }
  | {
      /** Announce the full length, send `afterBytes` bytes, then drop the connection. */
      kind: 'reset';
      afterBytes: number;
    }
  | {
      /** Send the headers (200) and then nothing, holding the connection open: a stalled listing or body. */
      kind: 'stall';
    }
  | {
      /** Announce the full length, then send the file (or the listing page) one byte every `intervalMs`. */
      kind: 'trickle';
      intervalMs: number;
    }
  | {
      /** Answer `302 Found` with `Location: <location>` (an absolute URL, e.g. on another server). */
      kind: 'redirect';
      location: string;
    }
);

/**
 * A hostile (or broken) hub's tree listing, served for every tree request instead of the fixture's.
 * `entries` are sent as they are, so they may hold traversal paths, reserved names, missing sizes or
 * anything else JSON can say.
 */
export interface HostileListing {
  /** Raw tree entries, paged by `pageSize`. */
  entries: readonly unknown[];
  /**
   * What the `Link: rel="next"` of the last page names: nothing (absent); `'loop'`, the first page
   * again; `'endless'`, a new cursor on every page forever (pages past the entries are empty); or
   * `{ url }`, that absolute URL (another origin, say). @default none
   */
  next?: 'loop' | 'endless' | { url: string };
  /** Body of every resolve (or other non-API) request the fixture has no file for. @default "hostile\n" */
  body?: string;
}

/** One request the hub server received. */
export interface HubRequest {
  method: string;
  /** Decoded path without the query. */
  path: string;
  /** The raw query string without `?` (`''` when none). */
  query: string;
  /** The `Authorization` header, or `null`. */
  authorization: string | null;
  /** The status the server answered. */
  status: number;
}

/** Options of {@link startHubServer}. */
export interface StartHubServerOptions {
  /** Fixture directory laid out as `<root>/<repo id>/<revision>/<files…>`, for dataset and model repos alike. */
  root: string;
  /** Failures to inject; each applies to its first `times` matching requests (every one when absent). @default [] */
  faults?: readonly HubFault[];
  /** Tree entries per listing page; smaller listings are split with `Link: <…>; rel="next"`. @default 1000 */
  pageSize?: number;
  /** When set, requests without `Authorization: Bearer <token>` get 401, as for a gated repository. @default none */
  token?: string;
  /** Play a hostile hub: this listing for every tree request, its `body` for unknown files. @default none */
  listing?: HostileListing;
}

/** A running hub stand-in; `close()` (or `await using`) stops it and waits for its connections. */
export interface HubServerHandle extends AsyncDisposable {
  /** Base URL, e.g. `http://127.0.0.1:41234`: pass it as the hub URL (`hub_url`, `HF_ENDPOINT`). */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: HubRequest[];
  close(): Promise<void>;
}

const REPO_KINDS = new Set(['datasets', 'models', 'spaces']);

interface TreeEntry {
  type: 'file' | 'directory';
  oid: string;
  size: number;
  path: string;
}

/** Writes `data` (length announced) one byte every `intervalMs`, then ends; stops if the client goes. */
function trickle(res: ServerResponse, data: Buffer, intervalMs: number): void {
  let sent = 0;
  const timer = setInterval(() => {
    if (sent >= data.length) {
      clearInterval(timer);
      res.end();
      return;
    }
    res.write(data.subarray(sent, ++sent));
  }, intervalMs);
  res.on('close', () => clearInterval(timer));
}

/** A 200 listing page, sent at once or trickled when `fault` says so. */
function sendPage(res: ServerResponse, page: unknown, headers: Record<string, string>, fault: HubFault | null): void {
  if (fault?.kind !== 'trickle') return sendJson(res, 200, page, headers);
  const data = Buffer.from(JSON.stringify(page));
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': data.length, ...headers });
  trickle(res, data, fault.intervalMs);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const data = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': data.length, ...headers });
  res.end(data);
}

function notFound(res: ServerResponse, errorCode: string, message: string): void {
  sendJson(res, 404, { error: message }, { 'x-error-code': errorCode });
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then((s) => s.isDirectory(), () => false);
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then((s) => s.isFile(), () => false);
}

// Not git's blob id (that would hash every byte of every file per listing); stable and unique enough.
function fakeOid(revision: string, path: string, size: number): string {
  return createHash('sha1').update(`${revision}\0${path}\0${size}`).digest('hex');
}

async function treeEntries(dir: string, prefix: string, recursive: boolean, revision: string): Promise<TreeEntry[]> {
  const out: TreeEntry[] = [];
  const names = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const d of names) {
    const path = prefix === '' ? d.name : `${prefix}/${d.name}`;
    if (d.isDirectory()) {
      out.push({ type: 'directory', oid: fakeOid(revision, path, 0), size: 0, path });
      if (recursive) out.push(...(await treeEntries(join(dir, d.name), path, true, revision)));
    } else if (d.isFile()) {
      const size = (await stat(join(dir, d.name))).size;
      out.push({ type: 'file', oid: fakeOid(revision, path, size), size, path });
    }
  }
  return out;
}

/**
 * Starts a stand-in for the Hugging Face hub on `127.0.0.1` (a free port) that serves fixture
 * repositories: the tree API `GET /api/{datasets|models|spaces}/<repo>/tree/<revision>[/<path>]`
 * (`recursive`, paged with `cursor` and `Link: <…>; rel="next"`) and file downloads
 * `GET /[datasets/|spaces/]<repo>/resolve/<revision>/<path>`. Unknown repositories, revisions and
 * files get 404 with the hub's `X-Error-Code`. `faults` inject 401/403/404/429/5xx answers,
 * truncated, stalled and trickling bodies, redirects and dropped connections on chosen paths;
 * `listing` plays a hostile hub whose tree listing says whatever the test wants.
 *
 * @example
 * await using hub = await startHubServer({ root: 'test/fixtures/hub', pageSize: 2 });
 * await download({ hf_dataset_id: 'org/name', revision: 'abc1234', hub_url: hub.url }, ctx);
 */
export async function startHubServer(opts: StartHubServerOptions): Promise<HubServerHandle> {
  const pageSize = opts.pageSize ?? 1000;
  const remaining = (opts.faults ?? []).map((f) => ({ fault: f, left: f.times ?? Number.POSITIVE_INFINITY }));
  const requests: HubRequest[] = [];
  let baseUrl = '';

  const takeFault = (path: string): HubFault | null => {
    const hit = remaining.find((r) => r.fault.path === path && r.left > 0);
    if (hit === undefined) return null;
    hit.left--;
    return hit.fault;
  };

  const serveHostileTree = (res: ServerResponse, listing: HostileListing, query: URLSearchParams, pathname: string, fault: HubFault | null): void => {
    const cursor = Number(query.get('cursor') ?? '0') || 0;
    const page = listing.entries.slice(cursor, cursor + pageSize);
    const more = cursor + pageSize < listing.entries.length;
    const next = new URLSearchParams(query);
    let link: string | null = null;
    if (more || listing.next === 'endless') {
      next.set('cursor', String(cursor + pageSize));
      link = `${baseUrl}${pathname}?${next.toString()}`;
    } else if (listing.next === 'loop') {
      next.delete('cursor');
      link = `${baseUrl}${pathname}?${next.toString()}`;
    } else if (listing.next !== undefined) {
      link = listing.next.url;
    }
    sendPage(res, page, link === null ? {} : { link: `<${link}>; rel="next"` }, fault);
  };

  const serveHostileBody = (req: IncomingMessage, res: ServerResponse, listing: HostileListing): void => {
    const body = Buffer.from(listing.body ?? 'hostile\n');
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  };

  const serveTree = async (
    res: ServerResponse,
    kind: string,
    rest: string,
    query: URLSearchParams,
    pathname: string,
    fault: HubFault | null,
  ): Promise<void> => {
    if (opts.listing !== undefined) return serveHostileTree(res, opts.listing, query, pathname, fault);
    const at = rest.indexOf('/tree/');
    if (at < 0) return notFound(res, 'EntryNotFound', 'unknown api path');
    const repoId = rest.slice(0, at);
    const [revision = '', ...sub] = rest.slice(at + '/tree/'.length).split('/');
    const repoDir = join(opts.root, repoId);
    if (!(await isDirectory(repoDir))) return notFound(res, 'RepoNotFound', `${kind} repository not found`);
    const revDir = join(repoDir, revision);
    if (!(await isDirectory(revDir))) return notFound(res, 'RevisionNotFound', `invalid rev id: ${revision}`);
    const subPath = sub.join('/');
    const listDir = join(revDir, subPath);
    if (!(await isDirectory(listDir))) return notFound(res, 'EntryNotFound', `${subPath} does not exist on "${revision}"`);
    const entries = await treeEntries(listDir, subPath, query.get('recursive') === 'true', revision);
    const cursor = Number(query.get('cursor') ?? '0') || 0;
    const page = entries.slice(cursor, cursor + pageSize);
    const headers: Record<string, string> = {};
    if (cursor + pageSize < entries.length) {
      const next = new URLSearchParams(query);
      next.set('cursor', String(cursor + pageSize));
      headers['link'] = `<${baseUrl}${pathname}?${next.toString()}>; rel="next"`;
    }
    sendPage(res, page, headers, fault);
  };

  const serveFile = async (req: IncomingMessage, res: ServerResponse, repoAndRest: string, fault: HubFault | null): Promise<void> => {
    const listing = opts.listing;
    const missing = (errorCode: string, message: string): void =>
      listing !== undefined ? serveHostileBody(req, res, listing) : notFound(res, errorCode, message);
    const at = repoAndRest.indexOf('/resolve/');
    if (at < 0) return missing('EntryNotFound', 'unknown path');
    const repoId = repoAndRest.slice(0, at);
    const [revision = '', ...sub] = repoAndRest.slice(at + '/resolve/'.length).split('/');
    const repoDir = join(opts.root, repoId);
    if (!(await isDirectory(repoDir))) return missing('RepoNotFound', 'repository not found');
    if (!(await isDirectory(join(repoDir, revision)))) return missing('RevisionNotFound', `invalid rev id: ${revision}`);
    const file = join(repoDir, revision, ...sub);
    if (!(await isFile(file))) return missing('EntryNotFound', `${sub.join('/')} does not exist on "${revision}"`);
    const size = (await stat(file)).size;
    const headers = { 'content-type': 'application/octet-stream', etag: `"${fakeOid(revision, sub.join('/'), size)}"` };
    if (fault?.kind === 'truncate') {
      const fh = await open(file, 'r');
      const buf = Buffer.alloc(Math.min(fault.bytes, size));
      await fh.read(buf, 0, buf.length, 0).finally(() => fh.close());
      res.writeHead(200, { ...headers, 'content-length': buf.length });
      res.end(req.method === 'HEAD' ? undefined : buf);
      return;
    }
    res.writeHead(200, { ...headers, 'content-length': size });
    if (req.method === 'HEAD') return void res.end();
    if (fault?.kind === 'reset') {
      const fh = await open(file, 'r');
      const buf = Buffer.alloc(Math.min(fault.afterBytes, size));
      await fh.read(buf, 0, buf.length, 0).finally(() => fh.close());
      res.write(buf, () => res.socket?.destroy());
      return;
    }
    if (fault?.kind === 'trickle') return trickle(res, await readFile(file), fault.intervalMs);
    createReadStream(file).pipe(res);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const parsed = new URL(req.url ?? '/', baseUrl);
    const path = decodeURIComponent(parsed.pathname);
    const record: HubRequest = {
      method: req.method ?? 'GET',
      path,
      query: parsed.search.replace(/^\?/, ''),
      authorization: req.headers.authorization ?? null,
      status: 0,
    };
    requests.push(record);
    res.on('finish', () => (record.status = res.statusCode));
    res.on('close', () => (record.status ||= res.statusCode));
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { error: 'method not allowed' });
    if (opts.token !== undefined && req.headers.authorization !== `Bearer ${opts.token}`) {
      return sendJson(res, 401, { error: 'Invalid credentials in Authorization header' }, { 'x-error-code': 'GatedRepo' });
    }
    const fault = takeFault(path);
    if (fault?.kind === 'status') {
      const headers: Record<string, string> = {};
      if (fault.rateLimitResetSeconds !== undefined) {
        headers['ratelimit'] = `"api";r=0;t=${fault.rateLimitResetSeconds}`;
        headers['ratelimit-policy'] = '"fixed window";"api";q=500;w=300';
      }
      return sendJson(res, fault.status, { error: `injected HTTP ${fault.status}` }, headers);
    }
    if (fault?.kind === 'redirect') {
      res.writeHead(302, { location: fault.location, 'content-length': 0 });
      return void res.end();
    }
    if (fault?.kind === 'stall') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      return; // never ends; close() drops the connection
    }
    const segments = path.split('/').filter((s) => s !== '');
    if (segments[0] === 'api' && REPO_KINDS.has(segments[1] ?? '')) {
      return serveTree(res, segments[1] ?? '', segments.slice(2).join('/'), parsed.searchParams, parsed.pathname, fault);
    }
    const typed = segments[0] === 'datasets' || segments[0] === 'spaces';
    return serveFile(req, res, segments.slice(typed ? 1 : 0).join('/'), fault);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: String(err) });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  let closed: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closed ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closed;
  };
  return { url: baseUrl, requests, close, [Symbol.asyncDispose]: close };
}
