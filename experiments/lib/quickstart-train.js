// The quickstart's model and training hyperparameters: a tiny Llama trained for 20 steps on a CPU with real
// Levanter. Shared by quickstart.js and curation.js (`--train`).
import { llama_nano } from '@marin/pipeline';

/** The quickstart's model: `llama_nano` with 64-token sequences. */
export const quickstartModel = { ...llama_nano, max_seq_len: 64 };

/** The quickstart's `SimpleTrainConfig` (Marin's names). */
export const quickstartTrainConfig = {
  train_batch_size: 8,
  num_train_steps: 20,
  learning_rate: 3e-3,
  steps_per_eval: 10,
  max_eval_batches: 4,
  steps_per_export: 10,
  // bfloat16 compute brings nothing on a CPU.
  mp: 'p=f32,c=f32',
  // Everything is local: tell every Hugging Face library not to look for the hub.
  env_vars: { HF_HUB_OFFLINE: '1' },
};
