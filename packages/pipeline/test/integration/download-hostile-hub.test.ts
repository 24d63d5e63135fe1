import { mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Executor, ExecutorStep, THIS_OUTPUT_PATH, readStatus, silentLogger, versioned } from '@marin/executor';
import type { StepContext } from '@marin/executor';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { download } from '../../src/steps/download/download.js';
import type { DownloadOptions } from '../../src/steps/download/download.js';
import { startHubServer } from '../../src/testing/hub-server.js';
import type { HostileListing, HubFault, HubServerHandle } from '../../src/testing/hub-server.js';

// A hub is a remote party: whoever controls it (or the network path to it) chooses the listing and
// every byte of every body. None of that may write outside the output, touch the executor's
// bookkeeping, see HF_TOKEN on another origin, or keep the step waiting forever; each case ends in
// one coded error whose message is a single line.

const FIXTURES = fileURLToPath(new URL('../fixtures/hub', import.meta.url));
const DATASET = 'marin-test/tiny-dataset';
const REVISION = 'abc1234';
const DATASET_DIR = join(FIXTURES, DATASET, REVISION);
const TREE = `/api/datasets/${DATASET}/tree/${REVISION}`;
const TOKEN = 'hf_secret_fixture_token';
const BODY = 'hostile\n';
const resolvePath = (file: string): string => `/datasets/${DATASET}/resolve/${REVISION}/${file}`;

let tmp: string;
let out: string;
let waits: number[];

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pipeline-hostile-'));
  // Deep enough that `../../x` from the output still lands inside `tmp`, where the test can see it.
  out = join(tmp, 'a', 'b', 'out');
  waits = [];
});

afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

function deps(extra: Partial<DownloadOptions> = {}): DownloadOptions {
  return {
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 0,
    env: { HF_TOKEN: TOKEN },
    log: () => undefined,
    ...extra,
  };
}

const ctxFor = (outputPath: string): StepContext => ({ name: 'raw/hostile', outputPath, signal: new AbortController().signal });
const cfg = (server: HubServerHandle, extra: Record<string, unknown> = {}) => ({ hf_dataset_id: DATASET, revision: REVISION, hub_url: server.url, ...extra });
const fileEntry = (path: string, size: number = Buffer.byteLength(BODY)) => ({ type: 'file', oid: '0'.repeat(40), size, path });
const readme = async () => fileEntry('README.md', (await stat(join(DATASET_DIR, 'README.md'))).size);

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

/** The rejection of `p`, checked to be a coded error with a one-line message. */
async function failure(p: Promise<unknown>): Promise<Error & { code: string; details: Record<string, unknown>; retryable: boolean }> {
  const err = await p.then(
    () => {
      throw new Error('expected the download to fail');
    },
    (e: unknown) => e as Error & { code: string; details: Record<string, unknown>; retryable: boolean },
  );
  expect(typeof err.code).toBe('string');
  expect(err.message).not.toContain('\n');
  return err;
}

async function hostileHub(listing: HostileListing, extra: { faults?: HubFault[]; pageSize?: number } = {}): Promise<HubServerHandle> {
  return startHubServer({ root: FIXTURES, listing, ...extra });
}

describe('a hostile hub listing', () => {
  it.each([
    ['../../escaped.txt', 'a ".." segment'],
    ['data/../../../escaped.txt', 'a ".." segment inside'],
    ['/tmp/abs-escaped.txt', 'an absolute path'],
    ['data\\..\\..\\escaped.txt', 'backslashes'],
    ['data/a\u0000b.txt', 'a NUL'],
    ['data//b.txt', 'an empty segment'],
    ['data/', 'a trailing slash'],
    ['./README.md', 'a "." segment'],
  ])('refuses %j (%s) before fetching or writing anything', async (path) => {
    await using server = await hostileHub({ entries: [await readme(), fileEntry(path)] });
    const err = await failure(download(cfg(server), ctxFor(out), deps()));
    expect(err).toMatchObject({ code: 'PIPELINE_UNSAFE_PATH', retryable: false, details: { path } });
    expect(err.message).toContain(JSON.stringify(path));
    expect(await filesUnder(tmp)).toEqual([]);
    expect(server.requests.filter((r) => !r.path.startsWith('/api/'))).toEqual([]);
  });

  it.each([
    '.metrics/success-part-00000-of-00002.jsonl',
    '.executor_status',
    '.executor_status.lock',
    '.executor_info',
    '.executor_info/nested.json',
    '.Executor_Status',
    '.artifact.json',
    'provenance.json',
    'test_write_access',
  ])('refuses the bookkeeping name %j before writing anything', async (path) => {
    await using server = await hostileHub({ entries: [await readme(), fileEntry(path)] });
    const err = await failure(download(cfg(server), ctxFor(out), deps()));
    expect(err).toMatchObject({ code: 'PIPELINE_UNSAFE_PATH', details: { path } });
    expect(await filesUnder(tmp)).toEqual([]);
  });

  it('refuses a path listed twice, and a file listed where another is a directory', async () => {
    for (const entries of [
      [await readme(), await readme()],
      [fileEntry('data'), fileEntry('data/x.txt')],
    ]) {
      await using server = await hostileHub({ entries });
      const err = await failure(download(cfg(server), ctxFor(out), deps()));
      expect(err.code).toBe('PIPELINE_UNSAFE_PATH');
      expect(await filesUnder(tmp)).toEqual([]);
    }
  });

  it('cannot replace the status or the lease of an executor step: the step fails and its status is the executor\'s own', async () => {
    const forged = 'SUCCESS';
    await using server = await hostileHub({ entries: [await readme(), fileEntry('.executor_status', forged.length), fileEntry('.executor_status.lock', forged.length)], body: forged });
    const step = new ExecutorStep({
      name: 'raw/hostile',
      fn: (config: Record<string, unknown>, ctx: StepContext) => download(config, ctx, deps()),
      config: { hf_dataset_id: versioned(DATASET), revision: versioned(REVISION), hub_url: server.url, gcs_output_path: THIS_OUTPUT_PATH },
    });
    const executor = new Executor({ prefix: join(tmp, 'prefix'), logger: silentLogger, progressStream: { write: () => true } });
    const err = await failure(executor.run([step]));
    expect(JSON.stringify(err.details)).not.toContain(TOKEN);
    const [stepDir] = await readdir(join(tmp, 'prefix', 'raw'));
    const stepOut = join(tmp, 'prefix', 'raw', stepDir ?? '');
    expect(await readStatus(stepOut)).toBe('FAILED');
    const lease = await readFile(join(stepOut, '.executor_status.lock'), 'utf8').catch(() => null);
    expect(lease).not.toBe(forged);
    expect((await filesUnder(stepOut)).filter((f) => !f.startsWith('.executor_'))).toEqual([]);
    expect(server.requests.filter((r) => r.path.includes('/resolve/'))).toEqual([]);
  });
});

describe('a hostile hub listing: pagination, sizes and origins', () => {
  it('never sends HF_TOKEN to another origin a Link names, and refuses that link', async () => {
    await using foreign = await startHubServer({ root: FIXTURES });
    await using server = await hostileHub({ entries: [await readme()], next: { url: `${foreign.url}${TREE}?recursive=true&cursor=1` } });
    const err = await failure(download(cfg(server), ctxFor(out), deps()));
    expect(err).toMatchObject({ code: 'PIPELINE_HUB_LISTING_INVALID', retryable: false });
    expect(err.message).toContain(foreign.url);
    expect(foreign.requests).toEqual([]);
    expect(server.requests.every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(await filesUnder(tmp)).toEqual([]);
  });

  it('follows a redirect of a file body to another origin without the token (the hub origin still gets it)', async () => {
    await using foreign = await startHubServer({ root: FIXTURES });
    const path = resolvePath('README.md');
    await using server = await startHubServer({ root: FIXTURES, faults: [{ path, kind: 'redirect', location: `${foreign.url}${path}` }] });
    await download(cfg(server, { hf_urls_glob: ['README.md'] }), ctxFor(out), deps());
    expect(await readFile(join(out, 'README.md'))).toEqual(await readFile(join(DATASET_DIR, 'README.md')));
    expect(foreign.requests.map((r) => [r.path, r.authorization])).toEqual([[path, null]]);
    expect(server.requests.every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('refuses a listing whose Link loops back to a page already read', async () => {
    const entries = [await readme(), fileEntry('b.txt'), fileEntry('c.txt')];
    await using server = await hostileHub({ entries, next: 'loop' }, { pageSize: 1 });
    const err = await failure(download(cfg(server), ctxFor(out), deps()));
    expect(err).toMatchObject({ code: 'PIPELINE_HUB_LISTING_INVALID', retryable: false });
    expect(server.requests.filter((r) => r.path === TREE)).toHaveLength(3);
    expect(await filesUnder(tmp)).toEqual([]);
  });

  it('stops an endless listing at the page cap, and leaks no abort listener on the way', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => void warnings.push(w);
    process.on('warning', onWarning);
    try {
      await using server = await hostileHub({ entries: [await readme()], next: 'endless' });
      const err = await failure(download(cfg(server), ctxFor(out), deps({ maxListingPages: 40 })));
      expect(err).toMatchObject({ code: 'PIPELINE_HUB_LISTING_INVALID', details: { maxPages: 40 } });
      expect(server.requests.filter((r) => r.path === TREE)).toHaveLength(40);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    // One listener per page left on a long-lived signal shows up as Node's MaxListenersExceededWarning.
    expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
    expect(await filesUnder(tmp)).toEqual([]);
  });

  it('leaks no abort listener over a long honest listing either', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => void warnings.push(w);
    process.on('warning', onWarning);
    try {
      // 6 files and 5 directories, one entry a page: 11 pages.
      await using server = await startHubServer({ root: FIXTURES, pageSize: 1 });
      await download(cfg(server), ctxFor(out), deps());
      expect(server.requests.filter((r) => r.path === TREE)).toHaveLength(11);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
  });

  it.each([
    ['no size', { type: 'file', path: 'README.md' }],
    ['a string size', { type: 'file', path: 'README.md', size: '57' }],
    ['a negative size', { type: 'file', path: 'README.md', size: -1 }],
    ['no path', { type: 'file', size: 3 }],
    ['an unknown type', { type: 'symlink', path: 'README.md', size: 3 }],
  ])('refuses an entry with %s as PIPELINE_HUB_LISTING_INVALID', async (_what, entry) => {
    await using server = await hostileHub({ entries: [entry] });
    const err = await failure(download(cfg(server), ctxFor(out), deps()));
    expect(err).toMatchObject({ code: 'PIPELINE_HUB_LISTING_INVALID', retryable: false });
    expect(err.message).not.toContain('undefined');
    expect(await filesUnder(tmp)).toEqual([]);
  });

  it('refuses a listing page that is not a JSON array', async () => {
    await using server = await hostileHub({ entries: [] });
    // An object where the array should be: served by a fault-free hub whose listing is replaced.
    const notArray: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      return String(input).includes('/api/') ? new Response('{"error":"nope"}', { status: 200, headers: res.headers }) : res;
    };
    const err = await failure(download(cfg(server), ctxFor(out), deps({ fetch: notArray })));
    expect(err.code).toBe('PIPELINE_HUB_LISTING_INVALID');
  });
});

describe('a hostile hub: slow answers', () => {
  it('retries a listing that stalls after its headers, once the read timeout passes', async () => {
    await using server = await startHubServer({ root: FIXTURES, faults: [{ path: TREE, kind: 'stall', times: 1 }] });
    const result = await download(cfg(server, { read_timeout_seconds: 0.5 }), ctxFor(out), deps());
    expect(result.copiedFiles).toBe(6);
    expect(server.requests.filter((r) => r.path === TREE)).toHaveLength(2);
    expect(waits).toHaveLength(1);
  });

  it('cuts off a body trickling at one byte per interval at its total deadline, without retrying', async () => {
    const path = resolvePath('README.md');
    await using server = await startHubServer({ root: FIXTURES, faults: [{ path, kind: 'trickle', intervalMs: 100 }] });
    // README.md is 57 bytes: 5.7 s at this pace, never 1 s without data; the deadline is 2 × 1 s + 57 B at 1 MiB/s.
    const err = await failure(
      download(cfg(server, { read_timeout_seconds: 1, min_speed_kib_per_second: 1024, hf_urls_glob: ['README.md'] }), ctxFor(out), deps()),
    );
    expect(err).toMatchObject({ code: 'PIPELINE_HUB_UNAVAILABLE', retryable: false, details: { path: 'README.md', deadlineMs: 2_001 } });
    expect(server.requests.filter((r) => r.path === path)).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(await filesUnder(tmp)).toEqual([]);
  }, 20_000);

  it('cuts off a listing page trickling at one byte per interval at its total deadline, without retrying', async () => {
    await using server = await startHubServer({ root: FIXTURES, faults: [{ path: TREE, kind: 'trickle', intervalMs: 100 }] });
    // The page is over 1 KB: minutes at this pace. Its deadline is 2 × 1 s + its 16 MiB cap at 16 GiB/s.
    const err = await failure(download(cfg(server, { read_timeout_seconds: 1, min_speed_kib_per_second: 16 * 1024 * 1024 }), ctxFor(out), deps()));
    expect(err).toMatchObject({ code: 'PIPELINE_HUB_UNAVAILABLE', retryable: false, details: { deadlineMs: 2_001 } });
    expect(server.requests.filter((r) => r.path === TREE)).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(await filesUnder(tmp)).toEqual([]);
  }, 20_000);
});

describe('source_url_override and symlinks', () => {
  async function sourceWith(links: Record<string, string>): Promise<string> {
    const src = join(tmp, 'src');
    await mkdir(join(src, 'data'), { recursive: true });
    await writeFile(join(src, 'README.md'), 'inside\n');
    await writeFile(join(src, 'data', 'a.txt'), 'a\n');
    for (const [name, target] of Object.entries(links)) await symlink(target, join(src, name));
    return src;
  }

  it.each([
    ['a file symlink pointing out', 'leak.txt', () => join(tmp, 'secret.txt')],
    ['a directory symlink pointing out', 'leakdir', () => join(tmp, 'secretdir')],
    ['a dangling symlink', 'dangling', () => join(tmp, 'nowhere')],
    ['a symlink cycle', 'data/loop', () => '..'],
  ])('refuses %s with PIPELINE_UNSAFE_PATH and copies nothing', async (_what, name, target) => {
    await writeFile(join(tmp, 'secret.txt'), 'secret\n');
    await mkdir(join(tmp, 'secretdir'));
    await writeFile(join(tmp, 'secretdir', 'x.txt'), 'secret\n');
    const src = await sourceWith({ [name]: target() });
    const err = await failure(download({ hf_dataset_id: DATASET, source_url_override: src }, ctxFor(out), deps()));
    expect(err).toMatchObject({ code: 'PIPELINE_UNSAFE_PATH' });
    expect(String(err.details['path'])).toContain(name.split('/').pop());
    expect(await filesUnder(out)).toEqual([]);
  });

  it('follows a symlink that stays inside the directory, as a copy of its target', async () => {
    const src = await sourceWith({ 'alias.md': 'README.md' });
    const result = await download({ hf_dataset_id: DATASET, source_url_override: src }, ctxFor(out), deps());
    expect(result.copiedFiles).toBe(3);
    expect(await readFile(join(out, 'alias.md'), 'utf8')).toBe('inside\n');
  });

  it('refuses an override directory holding a bookkeeping name', async () => {
    const src = await sourceWith({});
    await writeFile(join(src, '.executor_status'), 'SUCCESS');
    const err = await failure(download({ hf_dataset_id: DATASET, source_url_override: src }, ctxFor(out), deps()));
    expect(err).toMatchObject({ code: 'PIPELINE_UNSAFE_PATH', details: { path: '.executor_status' } });
    expect(await filesUnder(out)).toEqual([]);
  });
});

describe('completion markers', () => {
  it('copies a file again when its metrics part does not describe it or the file on disk changed', async () => {
    await using server = await startHubServer({ root: FIXTURES });
    const config = cfg(server);
    await download(config, ctxFor(out), deps());
    // Part 1 is README.md's (listing order: .gitattributes, README.md, …).
    await writeFile(join(out, '.metrics/success-part-00001-of-00006.jsonl'), '{"path": "elsewhere.txt", "bytes": 1}\n');
    await writeFile(join(out, 'data/train/part-00000.jsonl'), 'tampered');
    server.requests.length = 0;
    const again = await download(config, ctxFor(out), deps());
    expect(again).toMatchObject({ copiedFiles: 2, skippedFiles: 4 });
    expect(server.requests.filter((r) => r.path.includes('/resolve/')).map((r) => r.path).sort()).toEqual(
      [resolvePath('README.md'), resolvePath('data/train/part-00000.jsonl')].sort(),
    );
    expect(await readFile(join(out, 'data/train/part-00000.jsonl'))).toEqual(await readFile(join(DATASET_DIR, 'data/train/part-00000.jsonl')));
  });
});
