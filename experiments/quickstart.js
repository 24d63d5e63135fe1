// Marin's quickstart, end to end on a CPU with no network: download the shipped fixture, HTML → Markdown,
// tokenize into a Levanter cache, train a tiny Llama with real Levanter for 20 steps, then evaluate it with
// Levanter (loss and bits per byte on the validation split) and lm-eval (a shipped multiple-choice task).
// Train and eval run as Fray jobs in the Python environment of @marin/pipeline's Levanter lock, built once
// per machine (`node tools/python-env/python-env.mjs packages/pipeline/python/levanter.lock`).
//
//   node experiments/quickstart.js                       # after `nx run-many -t build`
//   npx iris job run -- node experiments/quickstart.js   # the executor as an Iris task; train and eval as child jobs
//   ... --prefix /tmp/my-prefix --dry-run
import { executorMain } from '@marin/executor';
import { defaultEval, defaultTrain } from '@marin/pipeline';
import { quickstartTokens } from './lib/quickstart-data.js';
import { quickstartModel, quickstartTrainConfig } from './lib/quickstart-train.js';

const model = defaultTrain('quickstart', quickstartTokens(), quickstartModel, quickstartTrainConfig);
const evals = defaultEval(model, { evals: [{ name: 'tiny_mc', num_fewshot: 0 }], envVars: { HF_HUB_OFFLINE: '1' } });

await executorMain({ steps: [evals], description: 'CPU quickstart: download, transform, tokenize, train and eval with Levanter.' });
