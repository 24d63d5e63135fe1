/**
 * Seconds until the hub's rate-limit window resets, from a `RateLimit` header such as
 * `"api";r=0;t=44` (the IETF draft's `t` parameter), or `null` when the header is absent or has no `t`.
 */
export function parseRateLimitResetSeconds(header: string | null | undefined): number | null {
  if (header === null || header === undefined) return null;
  const m = /(?:^|[;,\s])t\s*=\s*(\d+(?:\.\d+)?)/.exec(header);
  return m?.[1] === undefined ? null : Number(m[1]);
}
