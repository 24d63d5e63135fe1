import { z } from 'zod';
import { RiggingError } from '../errors.js';

/** Lease heartbeat, staleness and poll intervals, in (possibly fractional) seconds. */
export interface LeaseTimings {
  /** Seconds between refreshes. @default 30 */
  heartbeatS: number;
  /** A lease is stale when `now − timestamp > timeoutS`. @default 90 */
  timeoutS: number;
  /** Seconds between polls while another holder is active. @default 5 */
  pollS: number;
}

const positiveSeconds = (name: string, fallback: number) =>
  z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw.trim() === '') return fallback;
      const n = Number(raw);
      if (!Number.isFinite(n) || n <= 0) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a positive number of seconds, got "${raw}"` });
        return z.NEVER;
      }
      return n;
    });

const LeaseEnvSchema = z
  .object({
    MARIN_LEASE_HEARTBEAT_S: positiveSeconds('MARIN_LEASE_HEARTBEAT_S', 30),
    MARIN_LEASE_TIMEOUT_S: positiveSeconds('MARIN_LEASE_TIMEOUT_S', 90),
    MARIN_LEASE_POLL_S: positiveSeconds('MARIN_LEASE_POLL_S', 5),
  })
  .refine((t) => t.MARIN_LEASE_HEARTBEAT_S < t.MARIN_LEASE_TIMEOUT_S, {
    message: 'MARIN_LEASE_HEARTBEAT_S must be smaller than MARIN_LEASE_TIMEOUT_S',
    path: ['MARIN_LEASE_HEARTBEAT_S'],
  });

/**
 * Reads `MARIN_LEASE_HEARTBEAT_S` (30), `MARIN_LEASE_TIMEOUT_S` (90) and `MARIN_LEASE_POLL_S` (5) on every call.
 * @throws {RiggingError} RIGGING_INVALID_ARGUMENT if a value is not positive or heartbeat ≥ timeout
 *   (`details.issues` holds zod's issues).
 */
export function leaseTimings(env: NodeJS.ProcessEnv = process.env): LeaseTimings {
  const parsed = LeaseEnvSchema.safeParse({
    MARIN_LEASE_HEARTBEAT_S: env['MARIN_LEASE_HEARTBEAT_S'],
    MARIN_LEASE_TIMEOUT_S: env['MARIN_LEASE_TIMEOUT_S'],
    MARIN_LEASE_POLL_S: env['MARIN_LEASE_POLL_S'],
  });
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const key = String(first?.path[0] ?? 'MARIN_LEASE_*');
    throw new RiggingError('RIGGING_INVALID_ARGUMENT', `invalid lease timing ${key}: ${first?.message ?? 'invalid'}`, {
      details: { path: key, operation: 'leaseTimings', issues: parsed.error.issues },
    });
  }
  const t = parsed.data;
  return { heartbeatS: t.MARIN_LEASE_HEARTBEAT_S, timeoutS: t.MARIN_LEASE_TIMEOUT_S, pollS: t.MARIN_LEASE_POLL_S };
}
