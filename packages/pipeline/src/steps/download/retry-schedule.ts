/** Attempts per file (and per listing), the first included. */
export const HUB_MAX_ATTEMPTS = 20;

const BASE_MS = 5_000;
const CAP_MS = 15 * 60_000;
const JITTER_FRACTION = 0.25;
const JITTER_CAP_MS = 30_000;
// The hub's rate-limit reset is a lower bound; waking exactly at the boundary tends to hit the limit again.
const RATE_LIMIT_MARGIN_MS = 10_000;

/**
 * How long to wait after failed attempt `attempt` (0-based), in milliseconds: `max(5, 5·2^attempt)` s
 * capped at 15 min, raised to at least `t + 10` s when the hub said its rate limit resets in `t` s,
 * plus a jitter drawn uniformly from `[0, min(25 % of that, 30 s))`.
 *
 * @example hubRetryDelayMs(0, () => 0) // 5000
 * @example hubRetryDelayMs(0, () => 0, 30) // 40000
 */
export function hubRetryDelayMs(attempt: number, random: () => number, rateLimitResetSeconds: number | null = null): number {
  let base = Math.min(Math.max(BASE_MS, BASE_MS * 2 ** attempt), CAP_MS);
  if (rateLimitResetSeconds !== null) base = Math.max(base, rateLimitResetSeconds * 1000 + RATE_LIMIT_MARGIN_MS);
  return base + random() * Math.min(base * JITTER_FRACTION, JITTER_CAP_MS);
}
