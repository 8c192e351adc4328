// Credit holds (issue 12, docs/billing.md, ADR 0078): a billed request first reserves its price
// (`credit_holds`, and `accounts.held` so the spendable balance `balance - held` is one row read), and
// the hold is captured into a ledger entry when the response has been delivered, or released. Holds
// belong to a serving process (`hold_owners`, refreshed by a heartbeat); holds whose owner stopped
// beating (a crash) are released by the survivors and at start-up. Never edit a released step.
import type { MigrationStep } from './migrations.js';
import { ONCE_PREDICATE } from '../../ports/credit-ledger.js';

const holds = (big: string, serial: string) => `
  ALTER TABLE accounts ADD COLUMN held ${big} NOT NULL DEFAULT 0 CHECK (held >= 0);
  CREATE TABLE credit_holds (
    id ${serial},
    account_id ${big} NOT NULL REFERENCES accounts(id),
    amount ${big} NOT NULL CHECK (amount > 0),
    operation TEXT NOT NULL,
    reference TEXT,
    owner TEXT NOT NULL,
    created_at ${big} NOT NULL
  );
  CREATE INDEX credit_holds_owner ON credit_holds(owner);
  CREATE TABLE hold_owners (owner TEXT PRIMARY KEY, seen_at_ms ${big} NOT NULL);
`;

export const BILLING_MIGRATIONS: readonly MigrationStep[] = [
  {
    id: 'billing/001-credit-holds',
    sqlite: holds('INTEGER', 'INTEGER PRIMARY KEY AUTOINCREMENT'),
    postgres: holds('BIGINT', 'BIGSERIAL PRIMARY KEY'),
  },
  {
    // ADR 0185: `credit_holds` holds only the holds of requests in progress (and a dead process's until
    // the sweep), so the sweep's scan by owner is cheap without an index, while keeping the index cost
    // every hold and every capture one more page written (~15% of their CPU on SQLite).
    id: 'billing/002-no-owner-index',
    sqlite: 'DROP INDEX IF EXISTS credit_holds_owner;',
    postgres: 'DROP INDEX IF EXISTS credit_holds_owner;',
  },
  {
    // `findEntry` (a browser read's once-a-day charge, a recognition job's charge-once) looked up by
    // account, operation and reference; without an index it walked the account's whole ledger backwards
    // (every search charge). Partial, so the hot path (search captures) writes no extra index page: the
    // lookup names the same predicate (ONCE_OPERATIONS in ports/credit-ledger.ts) so both planners use it.
    id: 'billing/003-ledger-once-lookup',
    sqlite: `CREATE INDEX ledger_once ON ledger_entries(account_id, operation, reference, id) WHERE ${ONCE_PREDICATE};`,
    postgres: `CREATE INDEX ledger_once ON ledger_entries(account_id, operation, reference, id) WHERE ${ONCE_PREDICATE};`,
  },
  {
    // ADR 0332 (amended): a draw from a standing hold carries a settlement key made before its first
    // attempt, so that a draw whose outcome is unknown (the connection lost around COMMIT) can be
    // retried: the retry finds its key written and returns the earlier outcome, touching no balance.
    // Unique, so that two attempts of one settlement can never both commit; partial, so that the
    // entries without a key (top-ups, captures, charges outside a request) write no index entry.
    // `hold_shrink`: what the draw took out of its hold (0: held again), so a retry reports it too.
    id: 'billing/004-settlement-key',
    sqlite: `ALTER TABLE ledger_entries ADD COLUMN settlement TEXT;
      ALTER TABLE ledger_entries ADD COLUMN hold_shrink INTEGER;
      CREATE UNIQUE INDEX ledger_settlement ON ledger_entries(settlement) WHERE settlement IS NOT NULL;`,
    postgres: `ALTER TABLE ledger_entries ADD COLUMN settlement TEXT;
      ALTER TABLE ledger_entries ADD COLUMN hold_shrink BIGINT;
      CREATE UNIQUE INDEX ledger_settlement ON ledger_entries(settlement) WHERE settlement IS NOT NULL;`,
  },
];
