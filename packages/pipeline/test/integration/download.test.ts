import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Executor, silentLogger } from '@marin/executor';
import type { StepContext } from '@marin/executor';
import { createMirrorFilesystem, readBytes, readText, setDefaultMirrorFilesystem } from '@marin/rigging';
import { resetMemoryFilesystem } from '@marin/rigging/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultDownload } from '../../src/steps/download/default-download.js';
import { download } from '../../src/steps/download/download.js';
import type { DownloadOptions } from '../../src/steps/download/download.js';
import { startHubServer } from '../../src/testing/hub-server.js';
import type { HubFault, HubServerHandle } from '../../src/testing/hub-server.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/hub', import.meta.url));
const DATASET = 'marin-test/tiny-dataset';
const REVISION = 'abc1234';
const DATASET_DIR = join(FIXTURES, DATASET, REVISION);
const DATASET_FILES = [
  '.gitattributes',
  'README.md',
  'data/train/part-00000.jsonl',
  'data/train/part-00001.jsonl',
  'data/validation/part-00000.jsonl',
  'docs/nested/notes.txt',
];
const NOW = new Date(Date.UTC(2025, 5, 1, 12, 30, 0, 250));
const resolvePath = (file: string): string => `/datasets/${DATASET}/resolve/${REVISION}/${file}`;

let tmp: string;
let waits: number[];

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pipeline-download-'));
  waits = [];
});

afterEach(async () => {
  resetMemoryFilesystem();
  await rm(tmp, { recursive: true, force: true });
});

/** Options that make retries instant (recording the waits) and keep the machine's env out. */
function deps(env: Record<string, string> = {}): DownloadOptions {
  return {
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 0,
    now: () => NOW,
    env,
    log: () => undefined,
  };
}

function ctxFor(outputPath: string, signal: AbortSignal = new AbortController().signal): StepContext {
  return { name: 'raw/tiny', outputPath, signal };
}

async function hub(faults: HubFault[] = [], extra: { pageSize?: number; token?: string } = {}): Promise<HubServerHandle> {
  return startHubServer({ root: FIXTURES, faults, ...extra });
}

const getsOf = (server: HubServerHandle, path: string): number => server.requests.filter((r) => r.method === 'GET' && r.path === path).length;
const resolveGets = (server: HubServerHandle): string[] => server.requests.filter((r) => r.path.includes('/resolve/')).map((r) => r.path);

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

describe('download() from the hub', () => {
  it('copies every file byte for byte, preserving relative paths, and writes one metrics part per file', async () => {
    await using server = await hub([], { pageSize: 2 });
    const out = join(tmp, 'out');
    const result = await download({ hf_dataset_id: DATASET, revision: REVISION, hub_url: server.url }, ctxFor(out), deps());

    expect(result).toMatchObject({ outputPath: out, files: 6, copiedFiles: 6, skippedFiles: 0 });
    for (const f of DATASET_FILES) expect(await readFile(join(out, f))).toEqual(await readFile(join(DATASET_DIR, f)));
    const parts = DATASET_FILES.map((_, i) => `.metrics/success-part-${String(i).padStart(5, '0')}-of-00006.jsonl`);
    expect(await filesUnder(out)).toEqual([...DATASET_FILES, ...parts, 'provenance.json'].sort());
    expect(JSON.parse(await readFile(join(out, parts[3] ?? ''), 'utf8'))).toEqual({
      path: 'data/train/part-00001.jsonl',
      bytes: (await stat(join(DATASET_DIR, 'data/train/part-00001.jsonl'))).size,
    });
    // 6 files + 5 directories at 2 entries per page: the listing followed its Link headers.
    expect(server.requests.filter((r) => r.path === `/api/datasets/${DATASET}/tree/${REVISION}`)).toHaveLength(6);
  });

  it('writes files under <out>/<revision> with append_sha_to_path', async () => {
    await using server = await hub();
    const out = join(tmp, 'out');
    await download({ hf_dataset_id: DATASET, revision: REVISION, hub_url: server.url, append_sha_to_path: true }, ctxFor(out), deps());
    expect(await readFile(join(out, REVISION, 'README.md'))).toEqual(await readFile(join(DATASET_DIR, 'README.md')));
    expect((await filesUnder(out)).every((f) => f.startsWith(`${REVISION}/`))).toBe(true);
  });

  it('copies only the files matching hf_urls_glob, and fetches nothing else', async () => {
    await using server = await hub();
    const out = join(tmp, 'out');
    const result = await download(
      { hf_dataset_id: DATASET, revision: REVISION, hub_url: server.url, hf_urls_glob: ['data/train/*.jsonl', '**/notes.txt'] },
      ctxFor(out),
      deps(),
    );
    expect(result.files).toBe(3);
    expect((await filesUnder(out)).filter((f) => !f.startsWith('.metrics/'))).toEqual([
      'data/train/part-00000.jsonl',
      'data/train/part-00001.jsonl',
      'docs/nested/notes.txt',
      'provenance.json',
    ]);
    expect(resolveGets(server)).toHaveLength(3);
  });

  it('downloads a model repository through the models API and prefix-less resolve URLs', async () => {
    await using server = await hub();
    const out = join(tmp, 'model');
    await download({ hf_dataset_id: 'marin-test/tiny-model', revision: 'def5678', hf_repo_type_prefix: '', hub_url: server.url }, ctxFor(out), deps());
    expect(await readText(join(out, 'config.json'))).toBe(await readFile(join(FIXTURES, 'marin-test/tiny-model/def5678/config.json'), 'utf8'));
    expect(server.requests.map((r) => r.path).sort()).toEqual([
      '/api/models/marin-test/tiny-model/tree/def5678',
      '/marin-test/tiny-model/resolve/def5678/README.md',
      '/marin-test/tiny-model/resolve/def5678/config.json',
    ]);
  });

  it('fails with PIPELINE_INPUT_NOT_FOUND naming the dataset and revision when nothing matches', async () => {
    await using server = await hub();
    const out = join(tmp, 'out');
    await expect(
      download({ hf_dataset_id: DATASET, revision: REVISION, hub_url: server.url, hf_urls_glob: ['*.parquet'] }, ctxFor(out), deps()),
    ).rejects.toMatchObject({ code: 'PIPELINE_INPUT_NOT_FOUND', details: { dataset: DATASET, revision: REVISION } });
    expect(await filesUnder(out)).toEqual([]);
  });

  it.each([401, 403])('fails at once with PIPELINE_HUB_UNAUTHORIZED on HTTP %i', async (status) => {
    const path = resolvePath('README.md');
    await using server = await hub([{ path, kind: 'status', status }]);
    const out = join(tmp, 'out');
    await expect(
      download({ hf_dataset_id: DATASET, revision: REVISION, hub_url: server.url, max_parallelism: 1 }, ctxFor(out), deps()),
    ).rejects.toMatchObject({ code: 'PIPELINE_HUB_UNAUTHORIZED', retryable: false, details: { status, dataset: DATASET } });
    expect(getsOf(server, path)).toBe(1);
    expect(waits).toEqual([]);
  });

  it('sends HF_TOKEN as a bearer token, and reports a gated repository without it as PIPELINE_HUB_UNAUTHORIZED', async () => {
    await using server = await hub([], { token: 'hf_fixture' });
    const cfg = { hf_dataset_id: DATASET, revision: REVISION, hub_url: server.url };
    await expect(download(cfg, ctxFor(join(tmp, 'a')), deps())).rejects.toMatchObject({ code: 'PIPELINE_HUB_UNAUTHORIZED' });
    expect(server.requests).toHaveLength(1);
    server.requests.length = 0;
    await download(cfg, ctxFor(join(tmp, 'b')), deps({ HF_TOKEN: 'hf_fixture' }));
    expect(server.requests.length).toBeGreaterThan(1);
    expect(server.requests.every((r) => r.authorization === 'Bearer hf_fixture' && r.status === 200)).toBe(true);
  });

  it('fails at once with PIPELINE_HUB_NOT_FOUND for an unknown revision or a missing file', async () => {
    await using server = await hub([{ path: resolvePath('README.md'), kind: 'status', status: 404 }]);
    await expect(
      download({ hf_dataset_id: DATASET, revision: 'fffffff', hub_url: server.url }, ctxFor(join(tmp, 'a')), deps()),
    ).rejects.toMatchObject({ code: 'PIPELINE_HUB_NOT_FOUND', details: { status: 404, revision: 'fffffff' } });
    await expect(
      download({ hf_dataset_id: DATASET, revision: REVISION, hub_url: server.url }, ctxFor(join(tmp, 'b')), deps()),
    ).rejects.toMatchObject({ code: 'PIPELINE_HUB_NOT_FOUND' });
    expect(getsOf(server, resolvePath('README.md'))).toBe(1);
    expect(waits).toEqual([]);
  });

  it('waits at least the RateLimit reset plus 10 s after HTTP 429, on files and on the listing', async () => {
    await using server = await hub([
      { path: `/api/datasets/${DATASET}/tree/${REVISION}`, kind: 'status', status: 429, rateLimitResetSeconds: 60, times: 1 },
      { path: resolvePath('README.md'), kind: 'status', status: 429, rateLimitResetSeconds: 30, times: 1 },
    ]);
    const out = join(tmp, 'out');
    await download({ hf_dataset_id: DATASET, revision: REVISION, hub_url: server.url }, ctxFor(out), deps());
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeGreaterThanOrEqual(70_000);
    expect(waits[1]).toBeGreaterThanOrEqual(40_000);
    expect(await readFile(join(out, 'README.md'))).toEqual(await readFile(join(DATASET_DIR, 'README.md')));
  });

  it('retries HTTP 500 with growing waits and then succeeds', async () => {
    const path = resolvePath('data/train/part-00000.jsonl');
    await using server = await hub([{ path, kind: 'status', status: 500, times: 2 }]);
    const out = join(tmp, 'out');
    await download({ hf_dataset_id: DATASET, revision: REVISION, hub_url: server.url }, ctxFor(out), deps());
    expect(getsOf(server, path)).toBe(3);
    expect(waits).toEqual([5_000, 10_000]);
    expect(await readFile(join(out, 'data/train/part-00000.jsonl'))).toEqual(await readFile(join(DATASET_DIR, 'data/train/part-00000.jsonl')));
  });

  it('retries a connection dropped mid-body', async () => {
    const path = resolvePath('README.md');
    await using server = await hub([{ path, kind: 'reset', afterBytes: 5, times: 1 }]);
    const out = join(tmp, 'out');
    await download({ hf_dataset_id: DATASET, revision: REVISION, hub_url: server.url }, ctxFor(out), deps());
    expect(getsOf(server, path)).toBe(2);
    expect(waits).toEqual([5_000]);
    expect(await readFile(join(out, 'README.md'))).toEqual(await readFile(join(DATASET_DIR, 'README.md')));
  });

  it('gives up with PIPELINE_HUB_UNAVAILABLE after 20 attempts', async () => {
    const path = resolvePath('README.md');
    await using server = await hub([{ path, kind: 'status', status: 503 }]);
    await expect(
      download({ hf_dataset_id: DATASET, revision: REVISION, hub_url: server.url }, ctxFor(join(tmp, 'out')), deps()),
    ).rejects.toMatchObject({ code: 'PIPELINE_HUB_UNAVAILABLE', details: { status: 503 } });
    expect(getsOf(server, path)).toBe(20);
    expect(waits).toHaveLength(19);
  });

  it('fails a short body with PIPELINE_SIZE_MISMATCH and leaves no partial or temp file', async () => {
    const file = 'data/train/part-00000.jsonl';
    await using server = await hub([{ path: resolvePath(file), kind: 'truncate', bytes: 10 }]);
    const out = join(tmp, 'out');
    await expect(
      download({ hf_dataset_id: DATASET, revision: REVISION, hub_url: server.url }, ctxFor(out), deps()),
    ).rejects.toMatchObject({ code: 'PIPELINE_SIZE_MISMATCH', details: { path: file, actualBytes: 10 } });
    const left = await filesUnder(out);
    expect(left).not.toContain(file);
    expect(left.filter((f) => f.includes('.tmp.'))).toEqual([]);
    expect(left).not.toContain('.metrics/success-part-00002-of-00006.jsonl');
    expect(left).not.toContain('provenance.json');
  });

  it('skips files whose metrics part exists on a rerun', async () => {
    await using server = await hub();
    const out = join(tmp, 'out');
    const cfg = { hf_dataset_id: DATASET, revision: REVISION, hub_url: server.url };
    await download(cfg, ctxFor(out), deps());
    expect(resolveGets(server)).toHaveLength(6);

    server.requests.length = 0;
    const again = await download(cfg, ctxFor(out), deps());
    expect(again).toMatchObject({ copiedFiles: 0, skippedFiles: 6 });
    expect(resolveGets(server)).toEqual([]);

    // A crash after the copy of one file but before its metrics part: only that file is fetched again.
    await rm(join(out, '.metrics/success-part-00004-of-00006.jsonl'));
    const resumed = await download(cfg, ctxFor(out), deps());
    expect(resumed).toMatchObject({ copiedFiles: 1, skippedFiles: 5 });
    expect(resolveGets(server)).toEqual([resolvePath('data/validation/part-00000.jsonl')]);
  });

  it('writes provenance.json with the four fields, sorted keys and indent 4', async () => {
    await using server = await hub();
    const out = join(tmp, 'out');
    await download({ hf_dataset_id: DATASET, revision: REVISION, hub_url: server.url, hf_urls_glob: ['*.md', 'docs/**'] }, ctxFor(out), deps());
    const text = await readFile(join(out, 'provenance.json'), 'utf8');
    const links = [`${server.url}${resolvePath('README.md')}`, `${server.url}${resolvePath('docs/nested/notes.txt')}`];
    expect(JSON.parse(text)).toEqual({ access_time: '2025-06-01T12:30:00.250000+00:00', dataset: DATASET, links, version: REVISION });
    expect(text).toBe(
      `{\n    "access_time": "2025-06-01T12:30:00.250000+00:00",\n    "dataset": "${DATASET}",\n    "links": [\n` +
        `        "${links[0]}",\n        "${links[1]}"\n    ],\n    "version": "${REVISION}"\n}`,
    );
  });

  it('stops before copying when the step is aborted', async () => {
    await using server = await hub();
    const ac = new AbortController();
    const reason = new Error('lease lost');
    ac.abort(reason);
    await expect(
      download({ hf_dataset_id: DATASET, revision: REVISION, hub_url: server.url }, ctxFor(join(tmp, 'out'), ac.signal), deps()),
    ).rejects.toBe(reason);
    expect(resolveGets(server)).toEqual([]);
  });
});

describe('download() outputs and sources', () => {
  it('mirrors to memory:// as to a local directory', async () => {
    await using server = await hub();
    await download({ hf_dataset_id: DATASET, revision: REVISION, hub_url: server.url }, ctxFor('memory://raw/tiny-abc123'), deps());
    expect(await readBytes('memory://raw/tiny-abc123/docs/nested/notes.txt')).toEqual(await readFile(join(DATASET_DIR, 'docs/nested/notes.txt')));
    expect(JSON.parse(await readText('memory://raw/tiny-abc123/provenance.json'))).toMatchObject({ dataset: DATASET, version: REVISION });
  });

  it('mirrors to mirror:// (the local prefix of the mirror filesystem)', async () => {
    await using server = await hub();
    setDefaultMirrorFilesystem(createMirrorFilesystem({ localPrefix: join(tmp, 'prefix'), remotePrefixes: [], log: () => undefined }));
    try {
      await download({ hf_dataset_id: DATASET, revision: REVISION, hub_url: server.url }, ctxFor('mirror://raw/tiny'), deps());
      expect(await readFile(join(tmp, 'prefix/raw/tiny/README.md'))).toEqual(await readFile(join(DATASET_DIR, 'README.md')));
    } finally {
      setDefaultMirrorFilesystem(undefined);
    }
  });

  it('copies a local source_url_override directory without touching the hub', async () => {
    const out = join(tmp, 'out');
    const noNetwork: typeof fetch = () => Promise.reject(new Error('the hub must not be contacted'));
    const result = await download(
      { hf_dataset_id: DATASET, source_url_override: DATASET_DIR, hf_urls_glob: ['data/**'] },
      ctxFor(out),
      { ...deps(), fetch: noNetwork },
    );
    expect(result).toMatchObject({ files: 3, copiedFiles: 3 });
    for (const f of DATASET_FILES.filter((p) => p.startsWith('data/'))) {
      expect(await readFile(join(out, f))).toEqual(await readFile(join(DATASET_DIR, f)));
    }
    const provenance = JSON.parse(await readFile(join(out, 'provenance.json'), 'utf8')) as { links: string[]; version: unknown };
    expect(provenance.version).toBeNull();
    expect(provenance.links).toEqual(DATASET_FILES.filter((p) => p.startsWith('data/')).map((p) => join(DATASET_DIR, p)));
  });

  it('reports a missing source_url_override as PIPELINE_INPUT_NOT_FOUND', async () => {
    await expect(
      download({ hf_dataset_id: DATASET, source_url_override: join(tmp, 'nowhere') }, ctxFor(join(tmp, 'out')), deps()),
    ).rejects.toMatchObject({ code: 'PIPELINE_INPUT_NOT_FOUND' });
  });

  it('fails with PIPELINE_OUTPUT_NOT_WRITABLE naming the output before contacting the hub', async () => {
    await using server = await hub();
    await writeFile(join(tmp, 'a-file'), 'not a directory');
    const out = join(tmp, 'a-file', 'out');
    await expect(
      download({ hf_dataset_id: DATASET, revision: REVISION, hub_url: server.url }, ctxFor(out), deps()),
    ).rejects.toMatchObject({ code: 'PIPELINE_OUTPUT_NOT_WRITABLE', details: { path: out } });
    expect(server.requests).toEqual([]);
  });

  it('runs as an executor step built by defaultDownload', async () => {
    const step = defaultDownload('raw/tiny', DATASET, { sourceUrlOverride: DATASET_DIR, hfUrlsGlob: ['*.md'] });
    const executor = new Executor({ prefix: join(tmp, 'prefix'), logger: silentLogger, progressStream: { write: () => true } });
    const paths = await executor.run([step]);
    const out = paths.get(step) ?? '';
    expect(out).toMatch(/\/raw\/tiny-[0-9a-f]{6}$/);
    expect(await readFile(join(out, 'README.md'))).toEqual(await readFile(join(DATASET_DIR, 'README.md')));
    expect(JSON.parse(await readFile(join(out, 'provenance.json'), 'utf8'))).toMatchObject({ dataset: DATASET });
  });
});
