// The quickstart on a data mixture, end to end on a CPU with no network: the shipped documents' two shards
// become two token caches mixed 3:1, validated on the default validation sets (the shipped offline suite,
// downloaded and tokenized by the same steps as Paloma is from the hub), trained with real Levanter.
// Levanter reports loss and bits per byte for each validation set and for the suite as a whole.
//
//   node experiments/quickstart_mixture.js               # after `nx run-many -t build`
//   ... --prefix /tmp/my-prefix --dry-run
import { executorMain } from '@marin/executor';
import { defaultTrain, mixture } from '@marin/pipeline';
import { quickstartSourceTokens } from './lib/quickstart-data.js';
import { quickstartModel, quickstartTrainConfig } from './lib/quickstart-train.js';

const { north, south } = quickstartSourceTokens();
const model = defaultTrain(
  'quickstart-mixture',
  mixture({ north: [north, 0.75], south: [south, 0.25] }),
  quickstartModel,
  quickstartTrainConfig,
  // Marin's default validation sets are Paloma's, from the hub; the shipped suite stands in for them offline.
  { useDefaultValidation: 'offline' },
);

await executorMain({ steps: [model], description: 'CPU quickstart on a two-component mixture with the default validation sets.' });
