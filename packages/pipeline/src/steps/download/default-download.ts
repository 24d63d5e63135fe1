import { ExecutorStep, THIS_OUTPUT_PATH, versioned } from '@marin/executor';
import type { OutputName, VersionedValue } from '@marin/executor';
import { PipelineError } from '../../errors.js';
import { download } from './download.js';

/** Options of {@link defaultDownload}. */
export interface DefaultDownloadOptions {
  /** Pinned commit; required unless `sourceUrlOverride` is given. Versioned. @default null */
  revision?: string | null;
  /** Globs within the repository; empty means every file. Versioned. @default [] */
  hfUrlsGlob?: readonly string[];
  /** Copy from this directory (local path or rigging URL) instead of the hub. Not versioned. @default null */
  sourceUrlOverride?: string | null;
  /** Pin the step's output path (relative ones are joined to the prefix). @default null */
  overrideOutputPath?: string | null;
}

/** The config of a {@link defaultDownload} step, placeholders included. */
export interface DefaultDownloadConfig {
  hf_dataset_id: VersionedValue<string>;
  revision: VersionedValue<string | null>;
  hf_urls_glob: VersionedValue<string[]>;
  gcs_output_path: OutputName;
  source_url_override: string | null;
}

/**
 * A download step named `name` that mirrors `hfDatasetId` at `revision` into its own output
 * (Marin's `default_download`). `hf_dataset_id`, `revision` and `hf_urls_glob` are versioned, so they
 * choose the output path; the override directory does not.
 *
 * @example
 * const raw = defaultDownload('raw/fineweb-edu-sample', 'HuggingFaceFW/fineweb-edu', {
 *   revision: '87f0914', hfUrlsGlob: ['sample/10BT/*.parquet'] });
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID if neither `revision` nor `sourceUrlOverride` is given.
 */
export function defaultDownload(name: string, hfDatasetId: string, opts: DefaultDownloadOptions = {}): ExecutorStep<DefaultDownloadConfig> {
  const revision = opts.revision ?? null;
  const sourceUrlOverride = opts.sourceUrlOverride ?? null;
  if (revision === null && sourceUrlOverride === null) {
    throw new PipelineError(
      'PIPELINE_CONFIG_INVALID',
      `download "${name}" of "${hfDatasetId}" needs a pinned revision: pass { revision: '<commit sha>' } (or sourceUrlOverride for a local copy)`,
      { details: { name, hf_dataset_id: hfDatasetId, issues: [{ path: ['revision'], message: 'required' }] } },
    );
  }
  return new ExecutorStep<DefaultDownloadConfig>({
    name,
    fn: download,
    config: {
      hf_dataset_id: versioned(hfDatasetId),
      revision: versioned(revision),
      hf_urls_glob: versioned([...(opts.hfUrlsGlob ?? [])]),
      gcs_output_path: THIS_OUTPUT_PATH,
      source_url_override: sourceUrlOverride,
    },
    overrideOutputPath: opts.overrideOutputPath ?? null,
  });
}
