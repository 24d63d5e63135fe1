import { IrisError } from '../errors.js';

/** How much a bundle archive may hold once inflated; checked while it streams, before it is stored or extracted. */
export interface BundleLimits {
  /** Largest total of inflated tar bytes (headers, contents and padding). */
  maxInflatedBytes: number;
  /** Largest number of entries. */
  maxEntries: number;
}

/**
 * The defaults: 1 GiB inflated (ten times the client's 100 MiB content cap, `IRIS_MAX_BUNDLE_BYTES`)
 * and 100,000 entries.
 */
export const DEFAULT_BUNDLE_LIMITS: Readonly<BundleLimits> = { maxInflatedBytes: 1024 * 1024 * 1024, maxEntries: 100_000 };

function envPositive(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) throw new IrisError('IRIS_INVALID_ARGUMENT', `${name} must be a positive integer, got "${raw}"`);
  return value;
}

/**
 * The limits in force: `options` first, then `IRIS_BUNDLE_MAX_INFLATED_BYTES` and
 * `IRIS_BUNDLE_MAX_ENTRIES`, then {@link DEFAULT_BUNDLE_LIMITS}.
 * @throws {IrisError} IRIS_INVALID_ARGUMENT if an env value is not a positive integer
 */
export function resolveBundleLimits(options: Partial<BundleLimits> = {}): BundleLimits {
  return {
    maxInflatedBytes: options.maxInflatedBytes ?? envPositive('IRIS_BUNDLE_MAX_INFLATED_BYTES') ?? DEFAULT_BUNDLE_LIMITS.maxInflatedBytes,
    maxEntries: options.maxEntries ?? envPositive('IRIS_BUNDLE_MAX_ENTRIES') ?? DEFAULT_BUNDLE_LIMITS.maxEntries,
  };
}
