import { z } from 'zod';
import { PipelineError } from '../../errors.js';
import { unsafePathReason } from './repo-path.js';

/** The hub used when neither the config's `hub_url` nor `$HF_ENDPOINT` names one. */
export const DEFAULT_HUB_URL = 'https://huggingface.co';

/**
 * Validates a download step's config. Field names are Python Marin's (`DownloadConfig` of
 * `download_hf`), so equal configs hash equally in both executors.
 */
export const DownloadConfigSchema = z
  .strictObject({
    /** Repository id, `org/name` (or `name` for some model repos). */
    hf_dataset_id: z.string().min(1),
    /** Pinned commit (a short SHA is fine); required unless `source_url_override` is set. @default null */
    revision: z.string().min(1).nullable().default(null),
    /** Globs within the repository (braces allowed); empty means every file. @default [] */
    hf_urls_glob: z.array(z.string().min(1)).default([]),
    /** Output directory, any rigging URL; `null` means the step's own output path. @default null */
    gcs_output_path: z.string().min(1).nullable().default(null),
    /** Write under `<gcs_output_path>/<revision>` instead of `<gcs_output_path>`. @default false */
    append_sha_to_path: z.boolean().default(false),
    /** URL prefix of the repository kind: `"datasets"`, `"spaces"`, or `""` for model repos. @default "datasets" */
    hf_repo_type_prefix: z.enum(['datasets', '', 'spaces']).default('datasets'),
    /** Files copied at once. @default 8 */
    max_parallelism: z.number().int().positive().default(8),
    /** Longest wait for the response or for the next chunk of a body. @default 120 */
    read_timeout_seconds: z.number().positive().default(120),
    /**
     * Slowest average speed tolerated, in KiB/s: a file may take twice `read_timeout_seconds` plus its
     * size at this speed (a listing page, its 16 MiB cap at this speed), then fails without retry. @default 128
     */
    min_speed_kib_per_second: z.number().positive().default(128),
    /** Bytes buffered between the source and the output, in MiB. @default 8 */
    read_chunk_size_mib: z.number().positive().default(8),
    /** Copy from this directory (local path or any rigging URL) instead of the hub. @default null */
    source_url_override: z.string().min(1).nullable().default(null),
    /** Hub base URL; `null` means `$HF_ENDPOINT`, else `https://huggingface.co`. Never versioned. @default null */
    hub_url: z.url({ protocol: /^https?$/ }).nullable().default(null),
  })
  .superRefine((c, ctx) => {
    if (c.source_url_override === null && c.revision === null) {
      ctx.addIssue({ code: 'custom', path: ['revision'], message: 'a pinned revision is required to download from the hub' });
    }
    if (c.append_sha_to_path && c.revision === null) {
      ctx.addIssue({ code: 'custom', path: ['revision'], message: 'append_sha_to_path needs a revision' });
    }
    const revisionDir = c.append_sha_to_path && c.revision !== null ? unsafePathReason(c.revision) : null;
    if (revisionDir !== null) {
      ctx.addIssue({ code: 'custom', path: ['revision'], message: `with append_sha_to_path the revision is a directory name, but ${revisionDir.replace('the path', 'it')}` });
    }
  });

/** What callers pass: every field but `hf_dataset_id` is optional. */
export type DownloadConfigInput = z.input<typeof DownloadConfigSchema>;
/** The validated config the download code uses. */
export type DownloadConfig = z.output<typeof DownloadConfigSchema>;

/**
 * Validates `input` against {@link DownloadConfigSchema}.
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID with zod's issues in `details.issues`.
 */
export function parseDownloadConfig(input: unknown): DownloadConfig {
  const parsed = DownloadConfigSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.path.join('.') ?? '';
  throw new PipelineError(
    'PIPELINE_CONFIG_INVALID',
    `invalid download config${path === '' ? '' : ` field "${path}"`}: ${issue?.message ?? 'bad value'}`,
    { cause: parsed.error, details: { issues: parsed.error.issues } },
  );
}

/**
 * The hub base URL without a trailing slash: the config's, else `env.HF_ENDPOINT`, else {@link DEFAULT_HUB_URL}.
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID if `HF_ENDPOINT` is not an http(s) URL.
 */
export function hubUrlOf(config: DownloadConfig, env: Readonly<Record<string, string | undefined>>): string {
  const url = config.hub_url ?? (env['HF_ENDPOINT'] || DEFAULT_HUB_URL);
  if (!/^https?:$/.test(URL.parse(url)?.protocol ?? '')) {
    throw new PipelineError('PIPELINE_CONFIG_INVALID', `HF_ENDPOINT ${JSON.stringify(url)} is not an http(s) URL`, {
      details: { field: 'HF_ENDPOINT', issues: [{ path: ['HF_ENDPOINT'], message: 'not an http(s) URL' }] },
    });
  }
  return url.replace(/\/+$/, '');
}
