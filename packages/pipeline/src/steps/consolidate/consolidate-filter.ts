import { z } from 'zod';
import { PipelineError } from '../../errors.js';

/**
 * One rule of consolidate, as Marin's `FilterConfig`: `classify` keeps documents whose attribute lies in
 * `[lower_threshold, upper_threshold]` (or the top `keep_fraction` of the dataset; `reverse` flips the
 * decision); `remove_docs` drops documents whose attribute is `true` (e.g. `duplicate`, `contaminated`).
 * A document whose attribute row is missing is dropped, as Marin does.
 */
export const FilterConfigSchema = z.strictObject({
  type: z.enum(['classify', 'remove_docs']),
  /** The attribute dataset: same part names as the source, columns `id` and `name`. */
  attribute_path: z.string().min(1),
  /** The attribute column. */
  name: z.string().min(1),
  /** A key inside the attribute value when it is an object (Marin's `label`, e.g. `__label__hq`). @default null */
  label: z.string().nullable().default(null),
  /** Keep documents whose value is at least this. @default null */
  lower_threshold: z.number().nullable().default(null),
  /** Keep documents whose value is at most this. @default null */
  upper_threshold: z.number().nullable().default(null),
  /** Keep this fraction of documents with the highest values (resolved to a `lower_threshold` over the whole dataset). @default null */
  keep_fraction: z.number().gt(0).lt(1).nullable().default(null),
  /** Invert a classify decision. @default false */
  reverse: z.boolean().default(false),
});

/** What callers pass for one filter. */
export type FilterOptions = z.input<typeof FilterConfigSchema>;
/** One filter with defaults applied. */
export type FilterConfig = z.output<typeof FilterConfigSchema>;

/** The value a filter compares: the attribute, or its `label` entry. */
export function filterValue(filter: FilterConfig, attribute: unknown, docId: string): unknown {
  if (filter.label === null) return attribute;
  if (attribute !== null && typeof attribute === 'object' && filter.label in attribute) return (attribute as Record<string, unknown>)[filter.label];
  throw new PipelineError('PIPELINE_INPUT_INVALID', `attribute ${JSON.stringify(filter.name)} of document ${docId} has no label ${JSON.stringify(filter.label)}`, {
    details: { path: filter.attribute_path, column: filter.name },
  });
}

/** Whether a document passes `filter` given its attribute value. */
export function passes(filter: FilterConfig, value: unknown, docId: string): boolean {
  if (filter.type === 'remove_docs') return value !== true;
  const v = typeof value === 'bigint' ? Number(value) : value;
  if (typeof v !== 'number') {
    throw new PipelineError('PIPELINE_INPUT_INVALID', `attribute ${JSON.stringify(filter.name)} of document ${docId} is ${typeof v}, not a number`, {
      details: { path: filter.attribute_path, column: filter.name },
    });
  }
  let accepted = true;
  if (filter.lower_threshold !== null && v < filter.lower_threshold) accepted = false;
  if (filter.upper_threshold !== null && v > filter.upper_threshold) accepted = false;
  return filter.reverse ? !accepted : accepted;
}

/** The threshold keeping the top `keepFraction` of `values`: the value at quantile `1 - keepFraction` (nearest rank below). */
export function keepFractionThreshold(values: Float64Array, keepFraction: number): number {
  if (values.length === 0) return Number.NEGATIVE_INFINITY;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.floor((1 - keepFraction) * (sorted.length - 1));
  return sorted[rank] as number;
}
