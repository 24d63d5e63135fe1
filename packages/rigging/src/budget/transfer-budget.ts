import { RiggingError } from '../errors.js';

/** Bytes in the budget's "GB" (GiB). */
export const BYTES_PER_GB = 1024 ** 3;
/** Bytes in the budget's "MB" (MiB). */
export const BYTES_PER_MB = 1024 ** 2;

/**
 * A cap on cross-region bytes. `record` is synchronous, so concurrent callers on one event loop can
 * never push usage past the limit: the check and the increment happen in one turn.
 */
export class TransferBudget {
  private limit: number;
  private used = 0;

  /** @param limitBytes the most bytes that may be recorded in total. */
  constructor(limitBytes: number) {
    this.limit = limitBytes;
  }

  /** The cap in bytes. */
  get limitBytes(): number {
    return this.limit;
  }

  /** Bytes recorded so far. */
  get bytesUsed(): number {
    return this.used;
  }

  /**
   * Charges `size` bytes for `path`. Reaching the limit exactly is allowed.
   * @throws {RiggingError} RIGGING_BUDGET_EXCEEDED (usage unchanged) with
   *   `details = { bytesUsed, attempted, limit, path, operation }` if the charge would pass the limit.
   */
  record(size: number, path: string): void {
    if (this.used + size > this.limit) {
      const message =
        `cross-region transfer budget exceeded: ${path} (${(size / BYTES_PER_MB).toFixed(1)}MB) would bring total to ` +
        `${((this.used + size) / BYTES_PER_GB).toFixed(2)}GB, exceeding the ${(this.limit / BYTES_PER_GB).toFixed(0)}GB limit ` +
        `(already transferred ${(this.used / BYTES_PER_GB).toFixed(2)}GB); consider running in the source region instead`;
      throw new RiggingError('RIGGING_BUDGET_EXCEEDED', message, {
        details: { bytesUsed: this.used, attempted: size, limit: this.limit, path, operation: 'transfer' },
      });
    }
    this.used += size;
  }

  /** Zeroes usage, optionally with a new limit (tests). */
  reset(limitBytes?: number): void {
    this.used = 0;
    if (limitBytes !== undefined) this.limit = limitBytes;
  }
}
