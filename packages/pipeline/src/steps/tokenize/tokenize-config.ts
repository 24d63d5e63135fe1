import { z } from 'zod';
import { PipelineError } from '../../errors.js';

/** How documents are read: Levanter's `text` format (one text field per record). */
export const TextFormatSchema = z.object({
  type: z.literal('text').default('text'),
  /** The record field holding the document. @default "text" */
  text_key: z.string().min(1).default('text'),
});

/** Plain Fray resource options for each part's job (see `ResourceConfig`); never versioned. */
const ResourcesSchema = z.record(z.string(), z.unknown()).nullable().default(null);

/**
 * The config of the tokenize step, with Marin's `TokenizeConfig` field names. Paths are resolved
 * strings by the time the step runs (step references and `outputPathOf` become URLs).
 */
export const TokenizeConfigSchema = z
  .object({
    train_paths: z.array(z.string().min(1)).default([]),
    validation_paths: z.array(z.string().min(1)).default([]),
    cache_path: z.string().min(1),
    /** A directory (local or any storage URL) with `tokenizer.json`, or the name of a shipped tokenizer. */
    tokenizer: z.string().min(1),
    /** The tokenizer's name in the cache metadata (a hub tokenizer's `org/name@<sha>`). @default null (the location) */
    tokenizer_name: z.string().min(1).nullable().default(null),
    tags: z.array(z.string()).default([]),
    format: TextFormatSchema.default({ type: 'text', text_key: 'text' }),
    enforce_bos: z.boolean().default(true),
    enforce_eos: z.boolean().default(true),
    allow_test_in_train: z.boolean().default(false),
    /** Keep only the first N records of each input file. @default null (all) */
    sample_count: z.number().int().positive().nullable().default(null),
    /** Parts a split is cut into at most, i.e. how many workers share it. @default 4 */
    max_workers: z.number().int().positive().default(4),
    /** Bytes of input per part at least (the last part may be smaller). @default 100 MB, as Marin */
    min_part_bytes: z.number().int().positive().default(100_000_000),
    /** Each part as a Fray job with these resources; `null` tokenizes in this process. */
    resources: ResourcesSchema,
    /** Blosc compression of the cache's arrays: LZ4 frames, or stored (uncompressed) frames. @default "lz4" */
    compression: z.enum(['lz4', 'none']).default('lz4'),
  })
  .strict();

/** What callers pass (defaults optional). */
export type TokenizeConfigInput = z.input<typeof TokenizeConfigSchema>;
/** The validated config the step uses. */
export type TokenizeConfig = z.output<typeof TokenizeConfigSchema>;

// Marin's guard against evaluating on training data: a train path naming test or validation data.
const TEST_PATH_RE = /[^a-zA-Z]test[^a-zA-Z]/;

/**
 * Validates a tokenize config as the step receives it.
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID naming the field: both path lists empty, a bare string where a
 *   list is expected, a path equal to `/`, or a train path that looks like test/validation data (unless
 *   `allow_test_in_train`); zod's issues are in `details.issues`
 */
export function parseTokenizeConfig(raw: unknown): TokenizeConfig {
  if (typeof raw === 'object' && raw !== null) {
    for (const field of ['train_paths', 'validation_paths'] as const) {
      const value = (raw as Record<string, unknown>)[field];
      if (typeof value === 'string') {
        throw invalid(`${field} must be a list of paths, got the string ${JSON.stringify(value)}; wrap it in [ ]`, field);
      }
    }
  }
  const parsed = TokenizeConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const field = first?.path.join('.') ?? '';
    throw new PipelineError('PIPELINE_CONFIG_INVALID', `invalid tokenize config${field ? ` field "${field}"` : ''}: ${first?.message ?? 'invalid'}`, {
      details: { field, issues: parsed.error.issues },
    });
  }
  const config = parsed.data;
  if (config.train_paths.length === 0 && config.validation_paths.length === 0) {
    throw invalid('tokenize needs at least one of train_paths and validation_paths', 'train_paths');
  }
  for (const field of ['train_paths', 'validation_paths'] as const) {
    for (const path of config[field]) {
      if (path === '/') throw invalid(`${field} contains "/": refusing to tokenize a whole filesystem`, field);
    }
  }
  if (!config.allow_test_in_train) {
    for (const path of config.train_paths) {
      if (TEST_PATH_RE.test(path) || path.includes('validation')) {
        throw invalid(
          `train path ${JSON.stringify(path)} looks like test or validation data; pass it in validation_paths, or set allow_test_in_train`,
          'train_paths',
        );
      }
    }
  }
  return config;
}

function invalid(message: string, field: string): PipelineError {
  return new PipelineError('PIPELINE_CONFIG_INVALID', message, { details: { field } });
}
