// The data half of Marin's pipeline on the shipped quickstart fixture: download, HTML → Markdown, and
// tokenize into a Levanter token cache (see lib/quickstart-data.js).
//
//   node experiments/tiny_data.js                        # after `nx run-many -t build`
//   node --conditions=@marin/source --import tsx experiments/tiny_data.js   # from source
//   ... --prefix /tmp/my-prefix --dry-run
//
// Outputs (under the prefix): raw/quickstart-<hash>/{train,validation}/..., documents/quickstart-{train,validation}-<hash>/
// data-0000i-of-0000N.jsonl.gz, and tokenized/quickstart-<hash>/{train,validation}/shard_ledger.json with one part each.
import { executorMain } from '@marin/executor';
import { quickstartTokens } from './lib/quickstart-data.js';

await executorMain({ steps: [quickstartTokens()], description: 'Tiny data pipeline: download, HTML to Markdown, tokenize into a Levanter cache.' });
