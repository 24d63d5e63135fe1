import { z } from 'zod';

const PositiveInt = z.number().int().positive();

/**
 * Levanter's `LlamaConfig` (`type: llama`), with Levanter's field names. Fields left out take
 * Levanter's defaults, except `num_kv_heads`, which defaults to `num_heads` (multi-head attention).
 * `tokenizer` and `reference_checkpoint` are filled in by the train step (the tokenize step's
 * tokenizer, and a local reference config so the Hugging Face export needs no hub lookup).
 */
export const LlamaConfigSchema = z.strictObject({
  type: z.literal('llama'),
  max_seq_len: PositiveInt,
  hidden_dim: PositiveInt,
  intermediate_dim: PositiveInt,
  num_layers: PositiveInt,
  num_heads: PositiveInt,
  num_kv_heads: PositiveInt.optional(),
  head_dim: PositiveInt.nullable().optional(),
  activation_function: z.enum(['relu', 'relu2', 'silu', 'swish', 'gelu', 'gelu_new', 'quick_gelu', 'tanh']).optional(),
  initializer_range: z.number().positive().optional(),
  layer_norm_epsilon: z.number().positive().optional(),
  tie_word_embeddings: z.boolean().optional(),
  hybrid_norm: z.boolean().optional(),
  use_qk_norm: z.boolean().optional(),
  input_embedding_norm: z.boolean().optional(),
  upcast_attn: z.boolean().optional(),
  attn_backend: z.string().nullable().optional(),
  flash_attention_block_size: PositiveInt.nullable().optional(),
  gradient_checkpointing: z.union([z.boolean(), z.string()]).optional(),
  scan_layers: z.boolean().optional(),
  use_bias: z.boolean().optional(),
  use_layer_norm_weight: z.boolean().optional(),
  /** Levanter's rotary-embedding config, e.g. `{ type: 'llama3', theta: 500000 }`, passed through as given. */
  rope: z.record(z.string(), z.unknown()).optional(),
  /** A Hugging Face repo or directory whose `config.json` the export copies metadata from. @default a local one the step writes */
  reference_checkpoint: z.string().min(1).optional(),
});

/** A Levanter Llama config as callers write it. */
export type LlamaConfig = z.input<typeof LlamaConfigSchema>;

/** Every Levanter model config this package can train (`type` is Levanter's registered name). */
export const LevanterModelConfigSchema = z.discriminatedUnion('type', [LlamaConfigSchema]);

/** A Levanter model config: `LlamaConfig` today. */
export type LevanterModelConfig = z.input<typeof LevanterModelConfigSchema>;

/** Marin's tiny Llama for smoke tests: 2 layers, hidden 32, intermediate 128, 2 heads, seq 512. */
export const llama_nano: LlamaConfig = Object.freeze({
  type: 'llama',
  max_seq_len: 512,
  hidden_dim: 32,
  intermediate_dim: 128,
  num_heads: 2,
  num_kv_heads: 2,
  num_layers: 2,
});

/** Marin's ~30M-parameter Llama: 4 layers, hidden 128, intermediate 448, 2 heads, seq 1024. */
export const llama_30m: LlamaConfig = Object.freeze({
  type: 'llama',
  max_seq_len: 1024,
  hidden_dim: 128,
  intermediate_dim: 448,
  num_heads: 2,
  num_kv_heads: 2,
  num_layers: 4,
});

/** Marin's ~75M-parameter Llama: 8 layers, hidden 256, intermediate 896, 4 heads, seq 1024. */
export const llama_75m: LlamaConfig = Object.freeze({
  type: 'llama',
  max_seq_len: 1024,
  hidden_dim: 256,
  intermediate_dim: 896,
  num_heads: 4,
  num_kv_heads: 4,
  num_layers: 8,
});

/** Marin's ~150M-parameter Llama: 6 layers, hidden 512, intermediate 1792, 8 heads, seq 1024. */
export const llama_150m: LlamaConfig = Object.freeze({
  type: 'llama',
  max_seq_len: 1024,
  hidden_dim: 512,
  intermediate_dim: 1792,
  num_heads: 8,
  num_kv_heads: 8,
  num_layers: 6,
});

/**
 * The model config as written to Levanter's YAML: the given fields in Levanter's names, `num_kv_heads`
 * defaulted, and the step's tokenizer and reference checkpoint.
 */
export function levanterModelSection(
  model: z.output<typeof LevanterModelConfigSchema>,
  tokenizer: string,
  referenceCheckpoint: string,
): Record<string, unknown> {
  return {
    ...model,
    num_kv_heads: model.num_kv_heads ?? model.num_heads,
    tokenizer,
    reference_checkpoint: model.reference_checkpoint ?? referenceCheckpoint,
  };
}

/** The `config.json` of a local reference checkpoint: what the Hugging Face export copies its metadata from. */
export function referenceHfConfig(model: z.output<typeof LevanterModelConfigSchema>): Record<string, unknown> {
  switch (model.type) {
    case 'llama':
      return {
        architectures: ['LlamaForCausalLM'],
        model_type: 'llama',
        hidden_size: model.hidden_dim,
        intermediate_size: model.intermediate_dim,
        num_hidden_layers: model.num_layers,
        num_attention_heads: model.num_heads,
        num_key_value_heads: model.num_kv_heads ?? model.num_heads,
        max_position_embeddings: model.max_seq_len,
        tie_word_embeddings: model.tie_word_embeddings ?? false,
      };
  }
}
