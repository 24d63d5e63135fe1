/** How long one transfer may take in total, and how long it may go without data. */
export interface TransferLimits {
  /** Longest wait for the response or for the next chunk of a body. */
  readTimeoutMs: number;
  /** Slowest average speed tolerated, in bytes per second; sets {@link transferDeadlineMs}. */
  minBytesPerSecond: number;
}

/**
 * The total deadline of a transfer of at most `bytes` bytes: twice the read timeout plus the time
 * those bytes take at the minimum speed. A body that trickles (one byte a second keeps the read
 * timeout from ever firing) is cut off at this deadline; a body that stops altogether hits the read
 * timeout first, which stays retryable.
 */
export function transferDeadlineMs(bytes: number, limits: TransferLimits): number {
  return 2 * limits.readTimeoutMs + Math.ceil((bytes / limits.minBytesPerSecond) * 1000);
}
