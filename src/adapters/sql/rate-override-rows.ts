// Rows of rate_limit_overrides (limits/001-account-overrides) for both dialects.
import type { RateOverride } from '../../ports/rate-override-store.js';

export interface RateOverrideRow {
  account_id: number | string;
  scope: string;
  capacity: number | string;
  refill_per_second: number | string;
  updated_at: number | string;
}

export const rowToRateOverride = (r: RateOverrideRow): RateOverride => ({
  accountId: Number(r.account_id),
  scope: r.scope,
  capacity: Number(r.capacity),
  refillPerSecond: Number(r.refill_per_second),
  updatedAt: Number(r.updated_at),
});
