// The credit ledger in PostgreSQL. Each debit or credit is ONE statement (a data-modifying CTE), so it
// is its own transaction: the balance update and the ledger entry commit together or not at all.
// The UPDATE takes the account row's lock, so concurrent debits of one account queue on it, and the
// `balance >= amount` condition is re-checked against the committed balance once the lock is granted
// (READ COMMITTED re-evaluates the WHERE clause on the newest row version): never an overdraft, never
// a lost update, and a refused debit writes nothing. accounts.balance also has CHECK (balance >= 0).
import type pg from 'pg';
import { AppError } from '../../domain/errors.js';
import type { CreditLedger, DebitResult, LedgerEntry } from '../../ports/credit-ledger.js';
import { rowToLedgerEntry, type LedgerRow } from '../sql/ledger-row.js';

function positiveAmount(kind: 'debit' | 'credit', amount: number): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new RangeError(`${kind} amount must be a positive integer, got ${amount}`);
}

export class PostgresCreditLedger implements CreditLedger {
  constructor(private readonly pool: pg.Pool) {}

  async balance(accountId: number): Promise<number> {
    const { rows } = await this.pool.query<{ balance: number }>('SELECT balance FROM accounts WHERE id = $1', [accountId]);
    if (!rows[0]) throw new AppError('not_found', `No account ${accountId}.`);
    return rows[0].balance;
  }

  async debit(accountId: number, amount: number, operation: string, reference: string | null, at: number): Promise<DebitResult> {
    positiveAmount('debit', amount);
    const { rows } = await this.pool.query<{ id: number; balance_after: number }>(
      `WITH debited AS (
         UPDATE accounts SET balance = balance - $2::bigint WHERE id = $1 AND balance >= $2::bigint RETURNING balance
       )
       INSERT INTO ledger_entries (account_id, amount, balance_after, operation, reference, created_at)
       SELECT $1, -($2::bigint), balance, $3, $4, $5 FROM debited
       RETURNING id, balance_after`,
      [accountId, amount, operation, reference, at],
    );
    if (rows[0]) return { ok: true, balance: rows[0].balance_after, entryId: rows[0].id };
    // Refused (or no such account): nothing was written; report the balance as it is now.
    return { ok: false, balance: await this.balance(accountId) };
  }

  async credit(accountId: number, amount: number, operation: string, reference: string | null, at: number): Promise<{ balance: number; entryId: number }> {
    positiveAmount('credit', amount);
    const { rows } = await this.pool.query<{ id: number; balance_after: number }>(
      `WITH credited AS (
         UPDATE accounts SET balance = balance + $2::bigint WHERE id = $1 RETURNING balance
       )
       INSERT INTO ledger_entries (account_id, amount, balance_after, operation, reference, created_at)
       SELECT $1, $2::bigint, balance, $3, $4, $5 FROM credited
       RETURNING id, balance_after`,
      [accountId, amount, operation, reference, at],
    );
    if (!rows[0]) throw new AppError('not_found', `No account ${accountId}.`);
    return { balance: rows[0].balance_after, entryId: rows[0].id };
  }

  async findEntry(accountId: number, operation: string, reference: string): Promise<LedgerEntry | null> {
    const { rows } = await this.pool.query<LedgerRow>(
      'SELECT * FROM ledger_entries WHERE account_id = $1 AND operation = $2 AND reference = $3 ORDER BY id DESC LIMIT 1',
      [accountId, operation, reference],
    );
    return rows[0] ? rowToLedgerEntry(rows[0]) : null;
  }

  async entries(accountId: number, limit: number): Promise<LedgerEntry[]> {
    const { rows } = await this.pool.query<LedgerRow>('SELECT * FROM ledger_entries WHERE account_id = $1 ORDER BY id DESC LIMIT $2', [accountId, limit]);
    return rows.map(rowToLedgerEntry);
  }

  async entrySum(accountId: number): Promise<number> {
    // SUM(bigint) is NUMERIC (returned as a string); the cast brings it back to BIGINT, parsed as a number.
    const { rows } = await this.pool.query<{ sum: number }>('SELECT COALESCE(SUM(amount), 0)::bigint AS sum FROM ledger_entries WHERE account_id = $1', [accountId]);
    return rows[0]!.sum;
  }
}
