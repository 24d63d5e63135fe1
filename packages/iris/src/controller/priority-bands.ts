import type { LaunchJobRequest } from '../gen/iris/v1/controller.js';
import { PriorityBand as ProtoBand } from '../gen/iris/v1/types.js';
import type { PriorityBand, UserBudgetLimits } from '../scheduler/priority-band.js';
import type { UserBudgetRow } from './store/store.js';

/** A wire band as the scheduler's; UNSPECIFIED and INHERIT (unresolved) read as INTERACTIVE. */
export function bandFromProto(band: ProtoBand | number): PriorityBand {
  switch (band) {
    case ProtoBand.PRIORITY_BAND_PRODUCTION:
      return 'PRODUCTION';
    case ProtoBand.PRIORITY_BAND_BATCH:
      return 'BATCH';
    default:
      return 'INTERACTIVE';
  }
}

/** The scheduler's band on the wire. */
export function bandToProto(band: PriorityBand): ProtoBand {
  return band === 'PRODUCTION' ? ProtoBand.PRIORITY_BAND_PRODUCTION : band === 'BATCH' ? ProtoBand.PRIORITY_BAND_BATCH : ProtoBand.PRIORITY_BAND_INTERACTIVE;
}

/**
 * The band a submission asks for once inheritance is resolved: UNSPECIFIED and INHERIT take the
 * parent's band, or INTERACTIVE for a root job.
 */
export function resolveRequestedBand(requested: ProtoBand, parent: LaunchJobRequest | undefined): ProtoBand {
  if (requested !== ProtoBand.PRIORITY_BAND_UNSPECIFIED && requested !== ProtoBand.PRIORITY_BAND_INHERIT) return requested;
  return parent === undefined ? ProtoBand.PRIORITY_BAND_INTERACTIVE : parent.priorityBand;
}

/** A `user_budgets` row as the scheduler's limits (max band 0 = no cap = PRODUCTION). */
export function limitsOfRow(row: UserBudgetRow): UserBudgetLimits {
  return { budgetLimit: row.budget_limit, maxBand: row.max_band === 0 ? 'PRODUCTION' : bandFromProto(row.max_band) };
}
