import { z } from 'zod';
import { PipelineError } from '../../errors.js';

/**
 * MinHash + LSH parameters, with Marin's defaults (`compute_minhash_attrs`). Datasets deduplicated together must
 * agree on all of them.
 */
export const MinHashParamsSchema = z
  .object({
    /** Permutations (signature length); a multiple of `num_bands`. @default 286 */
    num_perms: z.number().int().positive().default(286),
    /** LSH bands; each band holds `num_perms / num_bands` rows. @default 26 */
    num_bands: z.number().int().positive().default(26),
    /** Words per shingle, counted after cleaning. @default 5 */
    ngram_size: z.number().int().positive().default(5),
    /** Seed of the permutations. @default 42 */
    seed: z.number().int().nonnegative().default(42),
    /** Characters of each text kept before shingling, so one giant document cannot saturate its signature; `null` keeps all. @default 500000 */
    text_cap_chars: z.number().int().positive().nullable().default(500_000),
  })
  .strict()
  .refine((p) => p.num_perms % p.num_bands === 0, { message: 'num_perms must be divisible by num_bands', path: ['num_perms'] });

/** What callers pass: every field optional. */
export type MinHashParamsInput = z.input<typeof MinHashParamsSchema>;
/** Resolved parameters. */
export type MinHashParams = z.output<typeof MinHashParamsSchema>;

/**
 * Validates and fills MinHash parameters.
 * @throws {PipelineError} PIPELINE_CONFIG_INVALID with zod's issues in `details.issues`
 */
export function parseMinHashParams(input: MinHashParamsInput = {}): MinHashParams {
  const parsed = MinHashParamsSchema.safeParse(input);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new PipelineError('PIPELINE_CONFIG_INVALID', `invalid MinHash params: ${first?.path.join('.') ?? ''} ${first?.message ?? ''}`.trim(), {
      details: { issues: parsed.error.issues },
    });
  }
  return parsed.data;
}

/** True when two parameter sets produce comparable signatures and buckets. */
export function sameMinHashParams(a: MinHashParams, b: MinHashParams): boolean {
  return a.num_perms === b.num_perms && a.num_bands === b.num_bands && a.ngram_size === b.ngram_size && a.seed === b.seed && a.text_cap_chars === b.text_cap_chars;
}

/**
 * The common parameters of datasets deduplicated together.
 * @throws {PipelineError} PIPELINE_SCHEMA_MISMATCH naming the first dataset whose params differ from the first one's; PIPELINE_CONFIG_INVALID without datasets
 */
export function requireSameMinHashParams(inputs: readonly { name: string; params: MinHashParams }[]): MinHashParams {
  const head = inputs[0];
  if (head === undefined) throw new PipelineError('PIPELINE_CONFIG_INVALID', 'fuzzy dedup needs at least one dataset');
  for (const other of inputs.slice(1)) {
    if (!sameMinHashParams(head.params, other.params)) {
      throw new PipelineError(
        'PIPELINE_SCHEMA_MISMATCH',
        `MinHash params of "${other.name}" (${JSON.stringify(other.params)}) differ from those of "${head.name}" (${JSON.stringify(head.params)}); recompute one of them with the other's params`,
        { details: { dataset: other.name, expected: head.params, actual: other.params } },
      );
    }
  }
  return head.params;
}
