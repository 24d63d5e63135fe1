// The data half of the quickstart, shared by tiny_data.js and quickstart.js: download the raw documents
// (from the package's own copy instead of the hub), turn their HTML into Markdown, and tokenize train and
// validation documents into one Levanter token cache with the shipped byte-level BPE tokenizer.
import { outputPathOf } from '@marin/executor';
import { defaultDownload, defaultTokenize, defaultTransform, quickstartDataPath } from '@marin/pipeline';

/** The tokenize step of the quickstart data (its dependencies come with it). */
export function quickstartTokens() {
  // source_url_override is not versioned, so the machine-specific path of the fixture never enters the hash.
  const raw = defaultDownload('raw/quickstart', 'marin-community/quickstart', { sourceUrlOverride: quickstartDataPath() });
  const docsTrain = defaultTransform('quickstart-train', outputPathOf(raw, 'train'));
  const docsValidation = defaultTransform('quickstart-validation', outputPathOf(raw, 'validation'));
  return defaultTokenize('quickstart', docsTrain, 'marin-tiny-bpe', { validation: docsValidation });
}

/**
 * The quickstart's training documents as two token caches, one per shard of the shipped data (24 pages
 * each): the two sources of `quickstart_mixture.js`.
 */
export function quickstartSourceTokens() {
  const raw = defaultDownload('raw/quickstart', 'marin-community/quickstart', { sourceUrlOverride: quickstartDataPath() });
  const docsTrain = defaultTransform('quickstart-train', outputPathOf(raw, 'train'));
  // The transform writes one output shard per input shard.
  return {
    north: defaultTokenize('quickstart-north', outputPathOf(docsTrain, 'data-00000-of-00002.jsonl.gz'), 'marin-tiny-bpe'),
    south: defaultTokenize('quickstart-south', outputPathOf(docsTrain, 'data-00001-of-00002.jsonl.gz'), 'marin-tiny-bpe'),
  };
}
