import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { setTimeout as sleepMs } from 'node:timers/promises';
import { compareCodePoints, createReadStream, mapLimit, prefixJoin } from '@marin/rigging';
import type { StepContext } from '@marin/executor';
import { PipelineError } from '../../errors.js';
import { hubUrlOf, parseDownloadConfig } from './download-config.js';
import type { DownloadConfig } from './download-config.js';
import { filterByGlobs } from './glob-filter.js';
import { createHubFetch } from './hub-fetch.js';
import { HUB_LISTING_MAX_PAGES, listHubFiles } from './hub-listing.js';
import type { HubRepo } from './hub-listing.js';
import { retryHubCall } from './hub-retry.js';
import type { HubRetryOptions } from './hub-retry.js';
import { isCompleted, metricsPartPath, writeMetricsPart } from './metrics-part.js';
import { mirrorFile } from './mirror-file.js';
import { listOverrideFiles } from './override-listing.js';
import { writeProvenance } from './provenance.js';
import { assertSafeListing } from './repo-path.js';
import type { SourceFile } from './source-file.js';
import type { TransferLimits } from './transfer-limits.js';
import { assertWritable } from '../writable-check.js';

/** Injection points of {@link download}; production code passes none. */
export interface DownloadOptions {
  /** HTTP client for the hub. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Waits between retries; must reject when `signal` aborts. @default node:timers/promises setTimeout */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Uniform randoms in `[0, 1)` for retry jitter. @default Math.random */
  random?: () => number;
  /** Clock for `provenance.json`'s `access_time`. @default () => new Date() */
  now?: () => Date;
  /** Where `HF_TOKEN` and `HF_ENDPOINT` are read. @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** Receives one line per retry. @default console.warn */
  log?: (line: string) => void;
  /** Most tree-listing pages followed. @default 10,000 (`HUB_LISTING_MAX_PAGES`) */
  maxListingPages?: number;
}

/** What {@link download} did. */
export interface DownloadResult {
  /** Directory the files were mirrored into. */
  outputPath: string;
  /** Files selected by the listing and globs. */
  files: number;
  /** Files copied by this run. */
  copiedFiles: number;
  /** Files skipped because an earlier run completed them. */
  skippedFiles: number;
  /** Bytes copied by this run. */
  copiedBytes: number;
}


/**
 * The download step: mirrors a Hugging Face repository at a pinned revision, unchanged, into the
 * step's output (Marin's `download_hf`). Checks the output is writable, lists the repository through
 * the hub's tree API (or walks `source_url_override`), refuses the whole listing if any path could
 * land outside the output or on bookkeeping ({@link assertSafeListing}), keeps the files matching
 * `hf_urls_glob`, and copies each one (at most `max_parallelism` at once) through a temp sibling
 * with a byte-count check and a total deadline, retrying transient hub failures. Each finished file
 * gets a metrics part under `<out>/.metrics/`, which a rerun skips on when it matches the file on
 * disk; `provenance.json` is written last.
 *
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID if `config` fails validation (zod issues in `details.issues`).
 * @throws {PipelineError} PIPELINE_OUTPUT_NOT_WRITABLE if the output cannot be written.
 * @throws {PipelineError} PIPELINE_INPUT_NOT_FOUND if nothing matches the globs, or the override directory is missing.
 * @throws {PipelineError} PIPELINE_HUB_UNAUTHORIZED on HTTP 401/403 (set `HF_TOKEN`).
 * @throws {PipelineError} PIPELINE_HUB_NOT_FOUND on HTTP 404.
 * @throws {PipelineError} PIPELINE_HUB_UNAVAILABLE after 20 failed attempts on one file or the listing, or at once when a transfer outlasts its deadline.
 * @throws {PipelineError} PIPELINE_UNSAFE_PATH if a listed path is unsafe or reserved, or an override symlink points out.
 * @throws {PipelineError} PIPELINE_HUB_LISTING_INVALID if the hub's listing is malformed, loops, links elsewhere or never ends.
 * @throws {PipelineError} PIPELINE_SIZE_MISMATCH if a file's byte count differs from the listing.
 */
export async function download(config: unknown, ctx: StepContext, options: DownloadOptions = {}): Promise<DownloadResult> {
  const cfg = parseDownloadConfig(config);
  const env = options.env ?? process.env;
  const root = cfg.gcs_output_path ?? ctx.outputPath;
  const out = cfg.append_sha_to_path && cfg.revision !== null ? prefixJoin(root, cfg.revision) : root;
  await assertWritable(out);

  const run = new AbortController();
  const onAbort = (): void => run.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  if (ctx.signal.aborted) onAbort();
  try {
    const retry: Omit<HubRetryOptions, 'operation'> = {
      sleep: options.sleep ?? ((ms, signal) => sleepMs(ms, undefined, { signal })),
      random: options.random ?? Math.random,
      signal: run.signal,
      log: options.log ?? ((line) => console.warn(line)),
    };
    const limits: TransferLimits = { readTimeoutMs: cfg.read_timeout_seconds * 1000, minBytesPerSecond: cfg.min_speed_kib_per_second * 1024 };
    const source = sourceOf(cfg, env, options.fetch ?? globalThis.fetch, run.signal, limits, options.maxListingPages ?? HUB_LISTING_MAX_PAGES);
    const listed = await retryHubCall(() => source.list(), { ...retry, operation: source.description });
    // The whole listing, not only the files the globs keep: one hostile path says the source is hostile.
    assertSafeListing(listed, source.description);
    const files = filterByGlobs(listed, cfg.hf_urls_glob).sort((a, b) => compareCodePoints(a.path, b.path));
    if (files.length === 0) {
      throw new PipelineError(
        'PIPELINE_INPUT_NOT_FOUND',
        `no files in "${cfg.hf_dataset_id}" at revision "${cfg.revision ?? '(unpinned)'}" match hf_urls_glob ${JSON.stringify(cfg.hf_urls_glob)}`,
        { details: { dataset: cfg.hf_dataset_id, revision: cfg.revision, hf_urls_glob: cfg.hf_urls_glob, listed: listed.length } },
      );
    }

    const result: DownloadResult = { outputPath: out, files: files.length, copiedFiles: 0, skippedFiles: 0, copiedBytes: 0 };
    const copyOne = async (file: SourceFile, index: number): Promise<void> => {
      run.signal.throwIfAborted();
      const marker = metricsPartPath(out, index, files.length);
      if (await isCompleted(marker, file, prefixJoin(out, file.path))) {
        result.skippedFiles++;
        return;
      }
      const bytes = await retryHubCall(
        () =>
          mirrorFile(file, prefixJoin(out, file.path), {
            open: (signal) => source.open(file, signal),
            ...limits,
            bufferBytes: Math.round(cfg.read_chunk_size_mib * 1024 * 1024),
            signal: run.signal,
          }),
        { ...retry, operation: file.url },
      );
      await writeMetricsPart(marker, { path: file.path, bytes });
      result.copiedFiles++;
      result.copiedBytes += bytes;
    };

    let failure: { error: unknown } | null = null;
    try {
      await mapLimit(files, cfg.max_parallelism, async (file, index) => {
        try {
          await copyOne(file, index);
        } catch (error) {
          // The first failure stops the copies in flight; what they throw is only the echo of it.
          run.abort(new Error('stopped: another file failed'));
          throw error;
        }
      });
    } catch (error) {
      failure = { error };
    }
    ctx.signal.throwIfAborted();
    if (failure !== null) throw failure.error;

    await writeProvenance(out, { dataset: cfg.hf_dataset_id, version: cfg.revision, links: files.map((f) => f.url) }, (options.now ?? (() => new Date()))());
    return result;
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
  }
}

/** Where the files come from: the hub or an override directory. */
interface DownloadSource {
  /** Named in retry log lines. */
  description: string;
  list(): Promise<SourceFile[]>;
  open(file: SourceFile, signal: AbortSignal): Promise<Readable>;
}

function sourceOf(
  cfg: DownloadConfig,
  env: Readonly<Record<string, string | undefined>>,
  fetchFn: typeof fetch,
  signal: AbortSignal,
  limits: TransferLimits,
  maxPages: number,
): DownloadSource {
  if (cfg.source_url_override !== null) {
    const url = cfg.source_url_override;
    return { description: url, list: () => listOverrideFiles(url), open: (file) => createReadStream(file.url) };
  }
  // The schema refuses a hub download without a revision.
  const repo: HubRepo = { hubUrl: hubUrlOf(cfg, env), typePrefix: cfg.hf_repo_type_prefix, repoId: cfg.hf_dataset_id, revision: cfg.revision ?? '' };
  const hubFetch = createHubFetch({ fetch: fetchFn, token: env['HF_TOKEN'], hubOrigin: new URL(repo.hubUrl).origin, target: repo, signal });
  return {
    description: `${repo.hubUrl} ${repo.repoId}@${repo.revision}`,
    list: () => listHubFiles(repo, { fetch: hubFetch, signal, ...limits, maxPages }),
    open: async (file, fileSignal) => {
      const res = await hubFetch(file.url, { signal: fileSignal });
      return res.body === null ? Readable.from([]) : Readable.fromWeb(res.body as NodeReadableStream<Uint8Array>);
    },
  };
}
