// The credit ledger in PostgreSQL. Each debit or credit is ONE statement (a data-modifying CTE), so it
// is its own transaction: the balance update and the ledger entry commit together or not at all.
// The UPDATE takes the account row's lock, so concurrent debits of one account queue on it, and the
// `balance >= amount` condition is re-checked against the committed balance once the lock is granted
// (READ COMMITTED re-evaluates the WHERE clause on the newest row version): never an overdraft, never
// a lost update, and a refused debit writes nothing. accounts.balance also has CHECK (balance >= 0).
// Holds (ADR 0078) work the same way on `accounts.held`: a hold, capture or release is one statement
// that deletes or inserts the hold row and moves `held` (and `balance`) under the account row's lock;
// a hold row is deleted by exactly one of capture, release and the orphan sweep (DELETE ... RETURNING).
import type pg from 'pg';
import { AppError } from '../../domain/errors.js';
import type { CreditLedger, DebitResult, DrawResult, HoldResult, LedgerEntry, LedgerOp, LedgerOpOutcome } from '../../ports/credit-ledger.js';
import { ONCE_OPERATIONS, ONCE_PREDICATE } from '../../ports/credit-ledger.js';
import type { Tx } from './postgres-pool.js';
import { checkUpTo, rowToLedgerEntry, type LedgerRow } from '../sql/ledger-row.js';

function positiveAmount(kind: 'debit' | 'credit' | 'hold', amount: number): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new RangeError(`${kind} amount must be a positive integer, got ${amount}`);
}

export class PostgresCreditLedger implements CreditLedger {
  constructor(private readonly pool: pg.Pool) {}

  async balance(accountId: number, q: Tx = this.pool): Promise<number> {
    const { rows } = await q.query<{ balance: number }>('SELECT balance - held AS balance FROM accounts WHERE id = $1', [accountId]);
    if (!rows[0]) throw new AppError('not_found', `No account ${accountId}.`);
    return rows[0].balance;
  }

  async held(accountId: number): Promise<number> {
    const { rows } = await this.pool.query<{ held: number }>('SELECT held FROM accounts WHERE id = $1', [accountId]);
    if (!rows[0]) throw new AppError('not_found', `No account ${accountId}.`);
    return rows[0].held;
  }

  async hold(accountId: number, amount: number, operation: string, reference: string | null, owner: string, at: number, upTo?: number, q: Tx = this.pool): Promise<HoldResult> {
    positiveAmount('hold', amount);
    checkUpTo(amount, upTo);
    // With upTo (ADR 0185): the account row is locked first and the amount chosen from its spendable balance.
    const { rows } = await q.query<{ id: number; spendable: number; held: number }>(
      upTo === undefined
        ? `WITH h AS (
         UPDATE accounts SET held = held + $2::bigint WHERE id = $1 AND balance - held >= $2::bigint RETURNING balance - held AS spendable
       ), ins AS (
         INSERT INTO credit_holds (account_id, amount, operation, reference, owner, created_at)
         SELECT $1, $2::bigint, $3, $4, $5, $6 FROM h RETURNING id
       )
       SELECT ins.id, h.spendable FROM ins, h`
        : HOLD_UP_TO,
      upTo === undefined ? [accountId, amount, operation, reference, owner, at] : [accountId, amount, operation, reference, owner, at, upTo],
    );
    if (rows[0]) return upTo === undefined ? { ok: true, holdId: rows[0].id, balance: rows[0].spendable } : { ok: true, holdId: rows[0].id, balance: rows[0].spendable, held: rows[0].held };
    return { ok: false, balance: await this.balance(accountId, q) };
  }

  async capture(holdId: number, amount: number, at: number, settlement: string | null = null, q: Tx = this.pool): Promise<{ balance: number; entryId: number | null } | null> {
    if (!Number.isSafeInteger(amount) || amount < 0) throw new RangeError(`capture amount must be a non-negative integer, got ${amount}`);
    const { rows } = await q.query<{ spendable: number; entry_id: number | null }>(
      `WITH h AS (
         DELETE FROM credit_holds WHERE id = $1 RETURNING account_id, amount, operation, reference
       ), a AS (
         UPDATE accounts SET held = accounts.held - h.amount, balance = accounts.balance - LEAST($2::bigint, h.amount)
         FROM h WHERE accounts.id = h.account_id
         RETURNING accounts.id, accounts.balance, accounts.balance - accounts.held AS spendable
       ), e AS (
         INSERT INTO ledger_entries (account_id, amount, balance_after, operation, reference, created_at, settlement)
         SELECT a.id, -LEAST($2::bigint, h.amount), a.balance, h.operation, h.reference, $3, $4::text FROM a, h WHERE $2::bigint > 0
         RETURNING id
       )
       SELECT a.spendable, (SELECT id FROM e) AS entry_id FROM a`,
      [holdId, amount, at, settlement],
    );
    return rows[0] ? { balance: rows[0].spendable, entryId: rows[0].entry_id } : null;
  }

  async extendHold(holdId: number, extra: number, q: Tx = this.pool): Promise<HoldResult | null> {
    positiveAmount('hold', extra);
    const { rows } = await q.query<{ account_id: number; spendable: number | null }>(
      `WITH h0 AS (
         SELECT id, account_id FROM credit_holds WHERE id = $1 FOR UPDATE
       ), a AS (
         UPDATE accounts SET held = accounts.held + $2::bigint FROM h0
         WHERE accounts.id = h0.account_id AND accounts.balance - accounts.held >= $2::bigint
         RETURNING accounts.balance - accounts.held AS spendable
       ), h AS (
         UPDATE credit_holds SET amount = amount + $2::bigint WHERE id IN (SELECT id FROM h0) AND EXISTS (SELECT 1 FROM a) RETURNING id
       )
       SELECT h0.account_id, (SELECT spendable FROM a) AS spendable FROM h0`,
      [holdId, extra],
    );
    if (!rows[0]) return null;
    if (rows[0].spendable === null) return { ok: false, balance: await this.balance(rows[0].account_id, q) };
    return { ok: true, holdId, balance: rows[0].spendable };
  }

  async release(holdId: number, q: Tx = this.pool): Promise<boolean> {
    const { rowCount } = await q.query(
      `WITH h AS (DELETE FROM credit_holds WHERE id = $1 RETURNING account_id, amount)
       UPDATE accounts SET held = accounts.held - h.amount FROM h WHERE accounts.id = h.account_id`,
      [holdId],
    );
    return rowCount === 1;
  }

  async drawFromHold(holdId: number, amount: number, operation: string, reference: string | null, at: number, settlement: string | null = null, q: Tx = this.pool): Promise<DrawResult | null> {
    if (!Number.isSafeInteger(amount) || amount <= 0) throw new RangeError(`draw amount must be a positive integer, got ${amount}`);
    const { rows } = await q.query<DrawRow>(`${drawCtes('$1::bigint', '$2::bigint', '$3', '$4', '$5::bigint', '$6::text')} ${drawSelect('$1::bigint')}`, [holdId, amount, operation, reference, at, settlement]);
    return rows[0] ? drawResult(rows[0]) : null;
  }

  /**
   * Group commit (ADR 0136): every op of the batch is one statement (the same data-modifying CTEs as
   * the single calls, written so that a refused or unknown op writes nothing and reports what it needs
   * in its own row), all sent as ONE multi-statement query: PostgreSQL runs it as one implicit
   * transaction, so the batch costs one round trip and one commit. An error reported by the server
   * aborted that transaction (nothing written: `rolledBack`); a lost connection leaves it unknown.
   */
  async applyBatch(ops: readonly LedgerOp[]): Promise<LedgerOpOutcome[]> {
    const outcomes: (LedgerOpOutcome | null)[] = ops.map((op) => {
      try {
        if (op.kind === 'hold') {
          positiveAmount('hold', op.amount);
          checkUpTo(op.amount, op.upTo);
        }
        else if (op.kind === 'extend') positiveAmount('hold', op.extra);
        else if (op.kind === 'capture' && (!Number.isSafeInteger(op.amount) || op.amount < 0)) throw new RangeError(`capture amount must be a non-negative integer, got ${op.amount}`);
        else if (op.kind === 'draw' && (!Number.isSafeInteger(op.amount) || op.amount <= 0)) throw new RangeError(`draw amount must be a positive integer, got ${op.amount}`);
        return null;
      } catch (error) {
        return { ok: false, error };
      }
    });
    const sent = ops.map((op, i) => ({ op, i })).filter(({ i }) => outcomes[i] === null);
    if (sent.length === 0) return outcomes as LedgerOpOutcome[];
    const client = await this.pool.connect();
    let broken: Error | undefined;
    let results: pg.QueryResult[];
    try {
      const int = (n: number) => {
        if (!Number.isSafeInteger(n)) throw new RangeError(`not an integer: ${n}`);
        return `${n}::bigint`;
      };
      const text = (v: string | null) => (v === null ? 'NULL' : client.escapeLiteral(v));
      const sql = sent.map(({ op }) => batchStatement(op, int, text)).join(';\n');
      const r = (await client.query(sql)) as pg.QueryResult | pg.QueryResult[];
      results = Array.isArray(r) ? r : [r];
    } catch (e) {
      // The server answered with an error: the implicit transaction was rolled back. Anything else
      // (the connection went away) may have happened before or after the commit.
      if (e !== null && typeof e === 'object' && typeof (e as { code?: unknown }).code === 'string' && /^[0-9A-Z]{5}$/.test((e as { code: string }).code)) Object.assign(e, { rolledBack: true });
      else broken = e as Error;
      throw e;
    } finally {
      client.release(broken);
    }
    sent.forEach(({ op, i }, k) => {
      outcomes[i] = batchOutcome(op, results[k]!);
    });
    return outcomes as LedgerOpOutcome[];
  }

  async heartbeat(owner: string, atMs: number): Promise<void> {
    await this.pool.query(
      'INSERT INTO hold_owners (owner, seen_at_ms) VALUES ($1, $2) ON CONFLICT (owner) DO UPDATE SET seen_at_ms = EXCLUDED.seen_at_ms',
      [owner, atMs],
    );
  }

  async releaseOrphanedHolds(self: string, staleBeforeMs: number): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(
      `WITH h AS (
         DELETE FROM credit_holds c WHERE c.owner <> $1
           AND NOT EXISTS (SELECT 1 FROM hold_owners o WHERE o.owner = c.owner AND o.seen_at_ms >= $2)
         RETURNING account_id, amount
       ), s AS (
         SELECT account_id, SUM(amount)::bigint AS amount FROM h GROUP BY account_id
       ), u AS (
         UPDATE accounts SET held = accounts.held - s.amount FROM s WHERE accounts.id = s.account_id RETURNING 1
       )
       SELECT (SELECT COUNT(*) FROM h)::int AS n`,
      [self, staleBeforeMs],
    );
    await this.pool.query('DELETE FROM hold_owners WHERE owner <> $1 AND seen_at_ms < $2 AND NOT EXISTS (SELECT 1 FROM credit_holds c WHERE c.owner = hold_owners.owner)', [self, staleBeforeMs]);
    return rows[0]?.n ?? 0;
  }

  async debit(accountId: number, amount: number, operation: string, reference: string | null, at: number, settlement: string | null = null): Promise<DebitResult> {
    positiveAmount('debit', amount);
    // With a settlement key (ADR 0332): an entry already written with it is returned, nothing written;
    // two attempts racing cannot both commit (the unique index ledger_settlement refuses the second).
    const { rows } = await this.pool.query<{ id: number; spendable: number }>(
      `WITH prior AS (
         SELECT id FROM ledger_entries WHERE settlement = $6::text
       ), debited AS (
         UPDATE accounts SET balance = balance - $2::bigint WHERE id = $1 AND balance - held >= $2::bigint AND NOT EXISTS (SELECT 1 FROM prior)
         RETURNING balance, balance - held AS spendable
       ), e AS (
         INSERT INTO ledger_entries (account_id, amount, balance_after, operation, reference, created_at, settlement)
         SELECT $1, -($2::bigint), balance, $3, $4, $5, $6::text FROM debited
         RETURNING id
       )
       SELECT e.id, debited.spendable FROM e, debited
       UNION ALL SELECT prior.id, (SELECT balance - held FROM accounts WHERE id = $1) FROM prior`,
      [accountId, amount, operation, reference, at, settlement],
    );
    if (rows[0]) return { ok: true, balance: rows[0].spendable, entryId: rows[0].id };
    // Refused (or no such account): nothing was written; report the balance as it is now.
    return { ok: false, balance: await this.balance(accountId) };
  }

  async credit(accountId: number, amount: number, operation: string, reference: string | null, at: number): Promise<{ balance: number; entryId: number }> {
    positiveAmount('credit', amount);
    const { rows } = await this.pool.query<{ id: number; spendable: number }>(
      `WITH credited AS (
         UPDATE accounts SET balance = balance + $2::bigint WHERE id = $1 RETURNING balance, balance - held AS spendable
       ), e AS (
         INSERT INTO ledger_entries (account_id, amount, balance_after, operation, reference, created_at)
         SELECT $1, $2::bigint, balance, $3, $4, $5 FROM credited
         RETURNING id
       )
       SELECT e.id, credited.spendable FROM e, credited`,
      [accountId, amount, operation, reference, at],
    );
    if (!rows[0]) throw new AppError('not_found', `No account ${accountId}.`);
    return { balance: rows[0].spendable, entryId: rows[0].id };
  }

  async findEntry(accountId: number, operation: string, reference: string): Promise<LedgerEntry | null> {
    const { rows } = await this.pool.query<LedgerRow>(
      `SELECT * FROM ledger_entries WHERE account_id = $1 AND operation = $2 AND reference = $3${(ONCE_OPERATIONS as readonly string[]).includes(operation) ? ` AND ${ONCE_PREDICATE}` : ''} ORDER BY id DESC LIMIT 1`,
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

/**
 * The CTEs of a hold of up to `upTo` (ADR 0185), over SQL value texts (placeholders or literals): the
 * account row is locked (FOR UPDATE reads its newest version), the amount is `upTo` when its spendable
 * balance covers that, else `amount`, and the row is updated under that lock. `h` has the spendable
 * balance and the amount held, `ins` the hold's id. Shared by hold() and applyBatch().
 */
function holdUpToCtes(accountId: string, amount: string, upTo: string, operation: string, reference: string, owner: string, at: string): string {
  return `WITH c AS (
    SELECT CASE WHEN balance - held >= ${upTo} THEN ${upTo} ELSE ${amount} END AS x FROM accounts WHERE id = ${accountId} FOR UPDATE
  ), h AS (
    UPDATE accounts SET held = accounts.held + c.x FROM c WHERE accounts.id = ${accountId} AND accounts.balance - accounts.held >= c.x
    RETURNING accounts.balance - accounts.held AS spendable, c.x AS held
  ), ins AS (
    INSERT INTO credit_holds (account_id, amount, operation, reference, owner, created_at)
    SELECT ${accountId}, h.held, ${operation}, ${reference}, ${owner}, ${at} FROM h RETURNING id
  )`;
}

/** hold() with upTo: $1 account, $2 amount, $3-$6 operation, reference, owner, at, $7 upTo. */
const HOLD_UP_TO = `${holdUpToCtes('$1', '$2::bigint', '$7::bigint', '$3', '$4', '$5', '$6')}
  SELECT ins.id, h.spendable, h.held FROM ins, h`;

/**
 * The CTEs of a debit paid from a standing hold (ADR 0332), over SQL value texts: the hold row and then
 * its account row are locked (the order of capture and extend), the account is debited, and the credits
 * are held again when its spendable balance covers them (`c.shrink` 0), else taken out of the hold
 * (deleted when that empties it: a hold is never empty).
 * `a` has the spendable balance after and the shrink, `e` the entry's id.
 */
function drawCtes(holdId: string, amount: string, operation: string, reference: string, at: string, settlement: string): string {
  return `WITH prior AS (
    SELECT id, account_id, hold_shrink FROM ledger_entries WHERE settlement = ${settlement}
  ), h0 AS (
    SELECT id, account_id, amount FROM credit_holds WHERE id = ${holdId} AND amount >= ${amount} AND NOT EXISTS (SELECT 1 FROM prior) FOR UPDATE
  ), c AS (
    SELECT accounts.id, CASE WHEN accounts.balance - accounts.held >= ${amount} THEN 0 ELSE ${amount} END AS shrink
    FROM accounts, h0 WHERE accounts.id = h0.account_id FOR UPDATE OF accounts
  ), a AS (
    UPDATE accounts SET balance = accounts.balance - ${amount}, held = accounts.held - c.shrink FROM c WHERE accounts.id = c.id
    RETURNING accounts.id, accounts.balance, accounts.balance - accounts.held AS spendable, c.shrink
  ), h AS (
    UPDATE credit_holds SET amount = credit_holds.amount - a.shrink FROM a WHERE credit_holds.id = ${holdId} AND a.shrink > 0 AND credit_holds.amount > a.shrink RETURNING credit_holds.id
  ), gone AS (
    DELETE FROM credit_holds USING a WHERE credit_holds.id = ${holdId} AND a.shrink > 0 AND credit_holds.amount <= a.shrink RETURNING credit_holds.id
  ), e AS (
    INSERT INTO ledger_entries (account_id, amount, balance_after, operation, reference, created_at, settlement, hold_shrink)
    SELECT a.id, -${amount}, a.balance, ${operation}, ${reference}, ${at}, ${settlement}, CASE WHEN ${settlement} IS NULL THEN NULL ELSE a.shrink END FROM a RETURNING id
  )`;
}
/**
 * The draw's row: what it did, or (its key already written: `prior`) the earlier attempt's entry and
 * kept flag with the account's spendable balance and the hold's amount now (0: gone).
 */
function drawSelect(holdId: string): string {
  return `SELECT a.spendable, (SELECT id FROM e) AS entry_id, a.shrink = 0 AS kept, (SELECT amount FROM h0) - a.shrink AS held, false AS replayed FROM a
  UNION ALL SELECT (SELECT balance - held FROM accounts WHERE id = prior.account_id), prior.id, COALESCE(prior.hold_shrink, 0) = 0,
    COALESCE((SELECT amount FROM credit_holds WHERE id = ${holdId}), 0), true FROM prior`;
}
interface DrawRow {
  spendable: number | string;
  entry_id: number | string;
  kept: boolean;
  held: number | string;
  replayed: boolean;
}
function drawResult(row: DrawRow): DrawResult {
  const r: DrawResult = { balance: Number(row.spendable), entryId: Number(row.entry_id), kept: row.kept, held: Number(row.held) };
  if (row.replayed) r.replayed = true;
  return r;
}

/** One op of a batch as a single statement with literal values (applyBatch). */
function batchStatement(op: LedgerOp, int: (n: number) => string, text: (v: string | null) => string): string {
  switch (op.kind) {
    case 'hold':
      if (op.upTo !== undefined)
        return `${holdUpToCtes(int(op.accountId), int(op.amount), int(op.upTo), text(op.operation), text(op.reference), text(op.owner), int(op.at))}
        SELECT (SELECT id FROM ins) AS id, (SELECT spendable FROM h) AS spendable, (SELECT held FROM h) AS held, (SELECT balance - held FROM accounts WHERE id = ${int(op.accountId)}) AS current`;
      return `WITH h AS (
          UPDATE accounts SET held = held + ${int(op.amount)} WHERE id = ${int(op.accountId)} AND balance - held >= ${int(op.amount)} RETURNING balance - held AS spendable
        ), ins AS (
          INSERT INTO credit_holds (account_id, amount, operation, reference, owner, created_at)
          SELECT ${int(op.accountId)}, ${int(op.amount)}, ${text(op.operation)}, ${text(op.reference)}, ${text(op.owner)}, ${int(op.at)} FROM h RETURNING id
        )
        SELECT (SELECT id FROM ins) AS id, (SELECT spendable FROM h) AS spendable, (SELECT balance - held FROM accounts WHERE id = ${int(op.accountId)}) AS current`;
    case 'extend':
      return `WITH h0 AS (
          SELECT id, account_id FROM credit_holds WHERE id = ${int(op.holdId)} FOR UPDATE
        ), a AS (
          UPDATE accounts SET held = accounts.held + ${int(op.extra)} FROM h0
          WHERE accounts.id = h0.account_id AND accounts.balance - accounts.held >= ${int(op.extra)}
          RETURNING accounts.balance - accounts.held AS spendable
        ), h AS (
          UPDATE credit_holds SET amount = amount + ${int(op.extra)} WHERE id IN (SELECT id FROM h0) AND EXISTS (SELECT 1 FROM a) RETURNING id
        )
        SELECT (SELECT spendable FROM a) AS spendable, (SELECT balance - held FROM accounts WHERE id = h0.account_id) AS current FROM h0`;
    case 'capture':
      return `WITH h AS (
          DELETE FROM credit_holds WHERE id = ${int(op.holdId)} RETURNING account_id, amount, operation, reference
        ), a AS (
          UPDATE accounts SET held = accounts.held - h.amount, balance = accounts.balance - LEAST(${int(op.amount)}, h.amount)
          FROM h WHERE accounts.id = h.account_id
          RETURNING accounts.id, accounts.balance, accounts.balance - accounts.held AS spendable
        ), e AS (
          INSERT INTO ledger_entries (account_id, amount, balance_after, operation, reference, created_at, settlement)
          SELECT a.id, -LEAST(${int(op.amount)}, h.amount), a.balance, h.operation, h.reference, ${int(op.at)}, ${text(op.settlement ?? null)}::text FROM a, h WHERE ${int(op.amount)} > 0
          RETURNING id
        )
        SELECT a.spendable, (SELECT id FROM e) AS entry_id FROM a`;
    case 'release':
      return `WITH h AS (DELETE FROM credit_holds WHERE id = ${int(op.holdId)} RETURNING account_id, amount)
        UPDATE accounts SET held = accounts.held - h.amount FROM h WHERE accounts.id = h.account_id`;
    case 'draw':
      return `${drawCtes(int(op.holdId), int(op.amount), text(op.operation), text(op.reference), int(op.at), `${text(op.settlement ?? null)}::text`)} ${drawSelect(int(op.holdId))}`;
  }
}

/** What a batch statement's result means for its op (the same results and errors as the single calls). */
function batchOutcome(op: LedgerOp, r: pg.QueryResult): LedgerOpOutcome {
  const row = r.rows[0] as Record<string, number | null> | undefined;
  switch (op.kind) {
    case 'hold':
      if (row && row.id !== null && row.id !== undefined) return { ok: true, value: op.upTo === undefined ? { ok: true, holdId: row.id, balance: row.spendable! } : { ok: true, holdId: row.id, balance: row.spendable!, held: row.held! } };
      if (!row || row.current === null || row.current === undefined) return { ok: false, error: new AppError('not_found', `No account ${op.accountId}.`) };
      return { ok: true, value: { ok: false, balance: row.current } };
    case 'extend':
      if (!row) return { ok: true, value: null };
      if (row.spendable === null || row.spendable === undefined) return { ok: true, value: { ok: false, balance: row.current! } };
      return { ok: true, value: { ok: true, holdId: op.holdId, balance: row.spendable } };
    case 'capture':
      return { ok: true, value: row ? { balance: row.spendable!, entryId: row.entry_id ?? null } : null };
    case 'release':
      return { ok: true, value: r.rowCount === 1 };
    case 'draw':
      return { ok: true, value: row ? drawResult(row as unknown as DrawRow) : null };
  }
}
