// The credit ledger: every charge and top-up is an entry; an account's balance is the sum of its
// entries. A debit that would take the balance below zero is refused and leaves no entry.

export interface LedgerEntry {
  id: number;
  accountId: number;
  /** Positive for top-ups and refunds, negative for charges. */
  amount: number;
  /** Balance right after this entry. */
  balanceAfter: number;
  /** What it was for: `search`, `document_fetch`, `topup`, `refund`, ... */
  operation: string;
  /** Request id or other reference, for audit. */
  reference: string | null;
  /** Unix seconds. */
  createdAt: number;
}

export type DebitResult = { ok: true; balance: number; entryId: number } | { ok: false; balance: number };

export interface CreditLedger {
  balance(accountId: number): Promise<number>;
  /** Atomically checks and debits `amount` (> 0). Never overdraws, even under concurrency. */
  debit(accountId: number, amount: number, operation: string, reference: string | null, at: number): Promise<DebitResult>;
  /** Adds `amount` (> 0) credits. */
  credit(accountId: number, amount: number, operation: string, reference: string | null, at: number): Promise<{ balance: number; entryId: number }>;
  /**
   * The account's newest entry for `operation` with this `reference`, or null (idempotent charges: a
   * recognition job checks whether its completion was already billed before a restart).
   */
  findEntry(accountId: number, operation: string, reference: string): Promise<LedgerEntry | null>;
  /** Newest first. */
  entries(accountId: number, limit: number): Promise<LedgerEntry[]>;
  /** Sum of all entries of the account (for audits and tests; equals balance()). */
  entrySum(accountId: number): Promise<number>;
}
