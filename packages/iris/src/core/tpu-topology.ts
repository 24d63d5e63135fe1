import { IrisError } from '../errors.js';

/** A TPU family as it appears in variant names (`v5e` is normalised to `v5litepod`). */
export type TpuFamily = 'v4' | 'v5litepod' | 'v5p' | 'v6e';

/**
 * One row of the TPU topology table: the shape of a slice of `name`.
 *
 * A task is one VM, so `chipsPerVm` is what one task of a TPU job asks for and `vmCount` is how
 * many tasks one slice runs.
 */
export interface TpuTopology {
  /** Canonical lower-case variant name, e.g. `v5litepod-16`. */
  readonly name: string;
  /** The family part of the name. */
  readonly family: TpuFamily;
  /** The number after the dash (TensorCores for v4/v5p, chips for v5litepod/v6e). */
  readonly size: number;
  /** Chips in the whole slice. */
  readonly chips: number;
  /** Physical hosts in the slice. */
  readonly hosts: number;
  /** VMs in the slice; one task runs per VM. Differs from `hosts` for v5litepod ≥ 16. */
  readonly vmCount: number;
  /** Chips visible to one VM (one task). */
  readonly chipsPerVm: number;
}

/** Maps the family spellings users write to the canonical family of variant names. */
const FAMILY_ALIASES: Readonly<Record<string, TpuFamily>> = {
  v4: 'v4',
  v5e: 'v5litepod',
  v5litepod: 'v5litepod',
  v5p: 'v5p',
  v6e: 'v6e',
};

function row(family: TpuFamily, size: number, chips: number, hosts: number, vmCount: number, chipsPerVm: number): TpuTopology {
  return Object.freeze({ name: `${family}-${size}`, family, size, chips, hosts, vmCount, chipsPerVm });
}

function buildTable(): readonly TpuTopology[] {
  const rows: TpuTopology[] = [];
  for (let n = 8; n <= 4096; n *= 2) rows.push(row('v4', n, n / 2, n / 8, n / 8, 4));
  for (const n of [1, 2, 4, 8]) rows.push(row('v5litepod', n, n, 1, 1, n));
  for (const n of [16, 32, 64, 128, 256]) rows.push(row('v5litepod', n, n, n / 8, n / 4, 4));
  const v5pSizes = [8, 16, 32, 64];
  for (let n = 128; n <= 12288; n += 128) v5pSizes.push(n);
  for (const n of v5pSizes) rows.push(row('v5p', n, n / 2, n / 8, n / 8, 4));
  for (const n of [1, 4, 8]) rows.push(row('v6e', n, n, 1, 1, n));
  for (const n of [16, 32, 64, 128, 256]) rows.push(row('v6e', n, n, n / 4, n / 4, 4));
  return Object.freeze(rows);
}

const TABLE: readonly TpuTopology[] = buildTable();
const BY_NAME: ReadonlyMap<string, TpuTopology> = new Map(TABLE.map((r) => [r.name, r]));

function unknownTpu(variant: string): IrisError {
  return new IrisError('IRIS_INVALID_ARGUMENT', `unknown TPU type "${variant}"; \`iris tpu list\` shows the known ones (listTpuVariants() in code)`, {
    details: { variant },
  });
}

/**
 * Returns the canonical variant name for `variant`, or `undefined` when it is not in the table.
 *
 * Case-insensitive; `v5e-N` becomes `v5litepod-N`.
 */
export function normalizeTpuVariant(variant: string): string | undefined {
  const match = /^([a-z0-9]+)-(\d+)$/.exec(variant.trim().toLowerCase());
  if (match === null) return undefined;
  const family = FAMILY_ALIASES[match[1] ?? ''];
  if (family === undefined) return undefined;
  const name = `${family}-${Number(match[2])}`;
  return BY_NAME.has(name) ? name : undefined;
}

/**
 * Looks up a TPU variant in the topology table without throwing.
 *
 * @returns the row, or `undefined` for a variant that is not in the table
 */
export function findTpuTopology(variant: string): TpuTopology | undefined {
  const name = normalizeTpuVariant(variant);
  return name === undefined ? undefined : BY_NAME.get(name);
}

/**
 * Returns the topology row of a TPU variant such as `v5litepod-16` (or its alias `v5e-16`).
 *
 * @example getTpuTopology('v5e-16') // { name: 'v5litepod-16', chips: 16, hosts: 2, vmCount: 4, chipsPerVm: 4, ... }
 * @throws {IrisError} IRIS_INVALID_ARGUMENT "unknown TPU type" if the variant is not in the table
 */
export function getTpuTopology(variant: string): TpuTopology {
  const found = findTpuTopology(variant);
  if (found === undefined) throw unknownTpu(variant);
  return found;
}

/**
 * Builds the canonical variant name from a family and a size: `tpuVariantName('v5e', 16) === 'v5litepod-16'`.
 *
 * @throws {IrisError} IRIS_INVALID_ARGUMENT "unknown TPU type" if the family or size is not in the table
 */
export function tpuVariantName(family: string, size: number): string {
  const canonical = FAMILY_ALIASES[family.trim().toLowerCase()];
  const name = `${canonical ?? family}-${size}`;
  if (canonical === undefined || !BY_NAME.has(name)) throw unknownTpu(`${family}-${size}`);
  return name;
}

/**
 * Lists every row of the TPU topology table, ordered by family and then size.
 *
 * @param family - only rows of this family (aliases such as `v5e` accepted)
 */
export function listTpuVariants(family?: string): readonly TpuTopology[] {
  if (family === undefined) return TABLE;
  const canonical = FAMILY_ALIASES[family.trim().toLowerCase()];
  return canonical === undefined ? [] : TABLE.filter((r) => r.family === canonical);
}
