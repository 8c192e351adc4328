// Per-account rate-limit overrides in PostgreSQL (limits/001-account-overrides).
import type pg from 'pg';
import type { RateOverride, RateOverrideStore } from '../../ports/rate-override-store.js';
import { rowToRateOverride, type RateOverrideRow } from '../sql/rate-override-rows.js';

export class PostgresRateOverrideStore implements RateOverrideStore {
  constructor(private readonly pool: pg.Pool) {}

  async set(o: RateOverride): Promise<void> {
    await this.pool.query(
      `INSERT INTO rate_limit_overrides (account_id, scope, capacity, refill_per_second, updated_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (account_id, scope) DO UPDATE SET capacity = excluded.capacity, refill_per_second = excluded.refill_per_second, updated_at = excluded.updated_at`,
      [o.accountId, o.scope, o.capacity, o.refillPerSecond, o.updatedAt],
    );
  }

  async clear(accountId: number, scope?: string): Promise<number> {
    const r =
      scope === undefined
        ? await this.pool.query('DELETE FROM rate_limit_overrides WHERE account_id = $1', [accountId])
        : await this.pool.query('DELETE FROM rate_limit_overrides WHERE account_id = $1 AND scope = $2', [accountId, scope]);
    return r.rowCount ?? 0;
  }

  async list(accountId: number): Promise<RateOverride[]> {
    const { rows } = await this.pool.query<RateOverrideRow>('SELECT * FROM rate_limit_overrides WHERE account_id = $1 ORDER BY scope', [accountId]);
    return rows.map(rowToRateOverride);
  }
}
