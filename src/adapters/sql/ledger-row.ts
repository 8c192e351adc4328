// Row mapping of ledger_entries, shared by the SQLite and PostgreSQL credit ledgers (BIGINTs arrive
// as numbers from both: see postgres-pool.ts).
import type { LedgerEntry } from '../../ports/credit-ledger.js';

export interface LedgerRow {
  id: number;
  account_id: number;
  amount: number;
  balance_after: number;
  operation: string;
  reference: string | null;
  created_at: number;
}

export const rowToLedgerEntry = (r: LedgerRow): LedgerEntry => ({
  id: r.id,
  accountId: r.account_id,
  amount: r.amount,
  balanceAfter: r.balance_after,
  operation: r.operation,
  reference: r.reference,
  createdAt: r.created_at,
});

/** `upTo` of a hold: absent, or an integer not below its amount. */
export function checkUpTo(amount: number, upTo: number | undefined): void {
  if (upTo !== undefined && (!Number.isSafeInteger(upTo) || upTo < amount)) throw new RangeError(`hold upTo must be an integer not below the amount ${amount}, got ${upTo}`);
}
