// Per-account rate-limit overrides in the embedded SQLite database (limits/001-account-overrides).
import type Database from 'better-sqlite3';
import type { RateOverride, RateOverrideStore } from '../../ports/rate-override-store.js';
import { rowToRateOverride, type RateOverrideRow } from '../sql/rate-override-rows.js';
import { statementCache, type Statements } from './sqlite-storage.js';

export class SqliteRateOverrideStore implements RateOverrideStore {
  readonly #s: Statements;
  constructor(db: Database.Database) {
    this.#s = statementCache(db);
  }

  async set(o: RateOverride): Promise<void> {
    this.#s
      .q(
        `INSERT INTO rate_limit_overrides (account_id, scope, capacity, refill_per_second, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (account_id, scope) DO UPDATE SET capacity = excluded.capacity, refill_per_second = excluded.refill_per_second, updated_at = excluded.updated_at`,
      )
      .run(o.accountId, o.scope, o.capacity, o.refillPerSecond, o.updatedAt);
  }

  async clear(accountId: number, scope?: string): Promise<number> {
    return scope === undefined
      ? this.#s.q('DELETE FROM rate_limit_overrides WHERE account_id = ?').run(accountId).changes
      : this.#s.q('DELETE FROM rate_limit_overrides WHERE account_id = ? AND scope = ?').run(accountId, scope).changes;
  }

  async list(accountId: number): Promise<RateOverride[]> {
    return (this.#s.q('SELECT * FROM rate_limit_overrides WHERE account_id = ? ORDER BY scope').all(accountId) as RateOverrideRow[]).map(rowToRateOverride);
  }
}
