import { ExecutorStep, THIS_OUTPUT_PATH, versioned } from '@marin/executor';
import { TOKENIZER_FILES } from '../../tokenizer/hub-tokenizer.js';
import type { HubTokenizerRef } from '../../tokenizer/hub-tokenizer.js';
import type { DefaultDownloadConfig } from '../download/default-download.js';
import { download } from '../download/download.js';

/** The config of a hub tokenizer's download step: a model repository's tokenizer files at one commit. */
export interface HubTokenizerDownloadConfig extends DefaultDownloadConfig {
  /** `""`: a model repository (`/<repo>/resolve/…`, `/api/models/…`). Not versioned. */
  hf_repo_type_prefix: '';
}

/**
 * The download step `raw/tokenizers/{org}--{name}` that fetches only the tokenizer files
 * ({@link TOKENIZER_FILES}) of a pinned model repository. Its version is the repository id, the revision
 * and the file globs, so every tokenize step using the same tokenizer shares one download and one
 * output path, and the tokenizer's identity (never a local path) enters their versions.
 */
export function hubTokenizerDownload(ref: HubTokenizerRef): ExecutorStep<HubTokenizerDownloadConfig> {
  return new ExecutorStep<HubTokenizerDownloadConfig>({
    name: `raw/tokenizers/${ref.hubModel.replace('/', '--')}`,
    fn: download,
    config: {
      hf_dataset_id: versioned(ref.hubModel),
      revision: versioned(ref.revision),
      hf_urls_glob: versioned([...TOKENIZER_FILES]),
      gcs_output_path: THIS_OUTPUT_PATH,
      source_url_override: null,
      hf_repo_type_prefix: '',
    },
  });
}
