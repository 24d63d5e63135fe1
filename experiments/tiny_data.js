// The data half of Marin's pipeline on the shipped quickstart fixture: download the raw documents (from the
// package's own copy instead of the hub), turn their HTML into Markdown, and tokenize train and validation
// documents into one Levanter token cache with the shipped byte-level BPE tokenizer.
//
//   node experiments/tiny_data.js                        # after `nx run-many -t build`
//   node --conditions=@marin/source --import tsx experiments/tiny_data.js   # from source
//   ... --prefix /tmp/my-prefix --dry-run
//
// Outputs (under the prefix): raw/quickstart-<hash>/{train,validation}/..., documents/quickstart-{train,validation}-<hash>/
// data-0000i-of-0000N.jsonl.gz, and tokenized/quickstart-<hash>/{train,validation}/shard_ledger.json with one part each.
import { executorMain, outputPathOf } from '@marin/executor';
import { defaultDownload, defaultTokenize, defaultTransform, quickstartDataPath } from '@marin/pipeline';

// source_url_override is not versioned, so the machine-specific path of the fixture never enters the hash.
const raw = defaultDownload('raw/quickstart', 'marin-community/quickstart', { sourceUrlOverride: quickstartDataPath() });
const docsTrain = defaultTransform('quickstart-train', outputPathOf(raw, 'train'));
const docsValidation = defaultTransform('quickstart-validation', outputPathOf(raw, 'validation'));
const tokens = defaultTokenize('quickstart', docsTrain, 'marin-tiny-bpe', { validation: docsValidation });

await executorMain({ steps: [tokens], description: 'Tiny data pipeline: download, HTML to Markdown, tokenize into a Levanter cache.' });
