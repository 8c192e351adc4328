// Embedded storage: one SQLite database file in the data directory (the default store).
// better-sqlite3 is synchronous, so every transaction runs without interleaving inside this process;
// `BEGIN IMMEDIATE` and a busy timeout serialise writers across processes (the CLI and the server).
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DocumentRecord, IndexName, StoredDocument } from '../../domain/document.js';
import { linkTargets, workIdentityKeys, type IncomingRelation, type WorkMember } from '../../domain/work.js';
import { AppError } from '../../domain/errors.js';
import type { Account, AccountStore, ApiKeyRecord, ApiKeyStore, NewAccount } from '../../ports/account-store.js';
import type { ActivityCounts, ActivityEvent, ActivityStore, ActivityTotals } from '../../ports/activity-store.js';
import type { CreditLedger, DebitResult, HoldResult, LedgerEntry, LedgerOp, LedgerOpOutcome, LedgerOpResult, DrawResult } from '../../ports/credit-ledger.js';
import { ONCE_OPERATIONS, ONCE_PREDICATE } from '../../ports/credit-ledger.js';
import type { DocumentChange, DocumentStore, TextWindowRequest, TextWindows, UpsertResult } from '../../ports/document-store.js';
import type { Storage } from '../../ports/storage.js';
import { accountsKind, countsFromRows, dailyGroups, firstDay, PER_ACCOUNT_KINDS, rowToTotals, TOP_COLUMNS, TOP_ORDER, type TotalsRow } from '../sql/activity-counts.js';
import { contentHash, groupWorkMembers, rowToDisplay, rowToDisplayWithText, rowToStored, serializeDisplay, serializeRecord, utcDay, type DisplayRow, type DocumentRow, type WorkMemberRow } from '../sql/document-row.js';
import type { DisplayDocumentWithText } from '../../domain/display-document.js';
import { checkUpTo, rowToLedgerEntry, type LedgerRow } from '../sql/ledger-row.js';
import { API_KEY_CACHE_MAX } from '../sql/auth-rows.js';
import { pendingMigrations } from '../sql/migration-plan.js';
import { ALL_MIGRATIONS, type MigrationStep } from '../sql/migrations.js';
import { assignWorkKey } from '../sql/work-key.js';

type Db = Database.Database;

/**
 * Prepared statements cached by SQL text (preparing costs more than running a small query):
 * `q` in the default row mode, `p` plucking the first column.
 */
export interface Statements {
  q(sql: string): Database.Statement;
  p(sql: string): Database.Statement;
}

export function statementCache(db: Db): Statements {
  const rows = new Map<string, Database.Statement>();
  const plucked = new Map<string, Database.Statement>();
  return {
    q(sql) {
      let st = rows.get(sql);
      if (!st) rows.set(sql, (st = db.prepare(sql)));
      return st;
    },
    p(sql) {
      let st = plucked.get(sql);
      if (!st) plucked.set(sql, (st = db.prepare(sql).pluck()));
      return st;
    },
  };
}

/**
 * The live records of the works with two or more (WorkMembers), at most `?` per work. The works are
 * picked from the partial index documents_work_live alone (core/005, ADR 0336): no table row is read
 * for a work of one record, which is most of them.
 */
export const WORK_MEMBERS_SQL = `WITH keys(k) AS (SELECT value FROM json_each(?)),
  multi(k) AS (SELECT work_key FROM documents WHERE deleted = 0 AND work_key IN (SELECT k FROM keys) GROUP BY work_key HAVING COUNT(*) > 1)
  SELECT id, work_key, uris, type, issued_at, title FROM (
    SELECT id, work_key, json_extract(record, '$.uris') AS uris, json_extract(record, '$.type') AS type,
      json_extract(record, '$.issuedAt') AS issued_at, json_extract(record, '$.title') AS title,
      row_number() OVER (PARTITION BY work_key ORDER BY id) AS n
    FROM documents WHERE deleted = 0 AND work_key IN (SELECT k FROM multi)
  ) WHERE n <= ? ORDER BY work_key, id`;

/** A record's full-text length and `n` slices of it (getTextWindows; the slices' parameters come before the id). */
function textWindowsSql(n: number): string {
  let cols = 'length(t)';
  for (let k = 0; k < n; k++) cols += ', substr(t, ?, ?)';
  return `SELECT ${cols} FROM (SELECT json_extract(record, '$.fullText') AS t FROM documents WHERE id = ? AND deleted = 0)`;
}

function migrate(db: Db, steps: readonly MigrationStep[]): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)');
  const applied = new Set(db.prepare('SELECT id FROM schema_migrations').pluck().all() as string[]);
  const isApplied = db.prepare('SELECT 1 FROM schema_migrations WHERE id = ?');
  for (const step of pendingMigrations(steps, applied)) {
    db.transaction(() => {
      // Another process opening the same file may have applied the step since we read the list
      // (WAL readers do not wait for writers): check again now that we hold the write lock.
      if (isApplied.get(step.id)) return;
      db.exec(step.sqlite);
      db.prepare('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)').run(step.id, Math.floor(Date.now() / 1000));
    }).immediate();
  }
}

interface AccountRow {
  id: number;
  email: string;
  email_verified: number;
  eligible_for_originals: number;
  created_at: number;
}
const toAccount = (r: AccountRow): Account => ({
  id: r.id,
  email: r.email,
  emailVerified: r.email_verified === 1,
  eligibleForOriginals: r.eligible_for_originals === 1,
  createdAt: r.created_at,
});

class SqliteAccountStore implements AccountStore {
  readonly #s: Statements;
  constructor(private readonly db: Db) {
    this.#s = statementCache(db);
  }
  async create(input: NewAccount): Promise<Account> {
    const email = input.email.trim().toLowerCase();
    try {
      const info = this.#s.q('INSERT INTO accounts (email, email_verified, eligible_for_originals, created_at) VALUES (?, ?, ?, ?)')
        .run(email, input.emailVerified ? 1 : 0, input.eligibleForOriginals ? 1 : 0, Math.floor(Date.now() / 1000));
      return (await this.get(Number(info.lastInsertRowid)))!;
    } catch (e) {
      if ((e as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw new AppError('conflict', `An account with email ${email} already exists.`);
      throw e;
    }
  }
  async get(id: number): Promise<Account | null> {
    const r = this.#s.q('SELECT * FROM accounts WHERE id = ?').get(id) as AccountRow | undefined;
    return r ? toAccount(r) : null;
  }
  async getByEmail(email: string): Promise<Account | null> {
    const r = this.#s.q('SELECT * FROM accounts WHERE email = ?').get(email.trim().toLowerCase()) as AccountRow | undefined;
    return r ? toAccount(r) : null;
  }
  async update(id: number, patch: Partial<Pick<Account, 'emailVerified' | 'eligibleForOriginals'>>): Promise<Account | null> {
    if (patch.emailVerified !== undefined) this.#s.q('UPDATE accounts SET email_verified = ? WHERE id = ?').run(patch.emailVerified ? 1 : 0, id);
    if (patch.eligibleForOriginals !== undefined) this.#s.q('UPDATE accounts SET eligible_for_originals = ? WHERE id = ?').run(patch.eligibleForOriginals ? 1 : 0, id);
    return this.get(id);
  }
}

interface ApiKeyRow {
  id: string;
  account_id: number;
  hash: string;
  label: string | null;
  created_at: number;
  revoked_at: number | null;
}
const toKey = (r: ApiKeyRow): ApiKeyRecord => ({
  id: r.id,
  accountId: r.account_id,
  hash: r.hash,
  label: r.label,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

/**
 * API keys, with the records of presented keys cached (ADR 0185) and never stale: `PRAGMA data_version`
 * (one cheap statement) changes whenever another connection, in this process or another (`lectern keys
 * revoke`), has committed anything to the database; the cache is then dropped. Writes through this
 * connection do not change it, so create and revoke drop their key themselves. Only found keys are
 * cached (an unknown id costs a lookup each time, as before; failed checks are rate-limited).
 */
class SqliteApiKeyStore implements ApiKeyStore {
  readonly #s: Statements;
  readonly #dataVersion: Database.Statement;
  readonly #cache = new Map<string, ApiKeyRecord>();
  #seenVersion = -1;
  constructor(private readonly db: Db) {
    this.#s = statementCache(db);
    this.#dataVersion = db.prepare('PRAGMA data_version').pluck();
  }
  async create(k: Omit<ApiKeyRecord, 'revokedAt'>): Promise<ApiKeyRecord> {
    this.#s.q('INSERT INTO api_keys (id, account_id, hash, label, created_at) VALUES (?, ?, ?, ?, ?)').run(k.id, k.accountId, k.hash, k.label, k.createdAt);
    this.#cache.delete(k.id);
    return { ...k, revokedAt: null };
  }
  async get(id: string): Promise<ApiKeyRecord | null> {
    const version = this.#dataVersion.get() as number;
    if (version !== this.#seenVersion) {
      this.#cache.clear();
      this.#seenVersion = version;
    }
    const cached = this.#cache.get(id);
    if (cached) return { ...cached };
    const r = this.#s.q('SELECT * FROM api_keys WHERE id = ?').get(id) as ApiKeyRow | undefined;
    if (!r) return null;
    const record = toKey(r);
    if (this.#cache.size >= API_KEY_CACHE_MAX) this.#cache.clear();
    this.#cache.set(id, record);
    return { ...record };
  }
  async listByAccount(accountId: number): Promise<ApiKeyRecord[]> {
    return (this.#s.q('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, id').all(accountId) as ApiKeyRow[]).map(toKey);
  }
  async revoke(id: string, at: number): Promise<boolean> {
    try {
      return this.#s.q('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id).changes === 1;
    } finally {
      this.#cache.delete(id);
    }
  }
}

/** Marks an error of a batch that was rolled back (CreditLedger.applyBatch). */
function markRolledBack(e: unknown): unknown {
  if (e !== null && typeof e === 'object') Object.assign(e, { rolledBack: true });
  return e;
}

function checkAmount(kind: 'hold', amount: number): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new RangeError(`${kind} amount must be a positive integer, got ${amount}`);
}
function checkDraw(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new RangeError(`draw amount must be a positive integer, got ${amount}`);
}
function checkCapture(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new RangeError(`capture amount must be a non-negative integer, got ${amount}`);
}

class SqliteCreditLedger implements CreditLedger {
  readonly #s: Statements;
  readonly #debit;
  readonly #credit;
  readonly #hold;
  readonly #capture;
  readonly #release;
  readonly #extend;
  readonly #draw;
  readonly #sweep;
  readonly #batch;
  constructor(private readonly db: Db) {
    this.#s = statementCache(db);
    // One transaction per operation (BEGIN IMMEDIATE): the account row's posted balance and held
    // amount, the hold row and the ledger entry move together or not at all (ADR 0078). The hold ops
    // read and write a row in one statement each (UPDATE/DELETE ... RETURNING; ADR 0185): a hold is 2
    // statements, a capture 3, a release 2.
    const accountOf = db.prepare('SELECT balance, held FROM accounts WHERE id = ?');
    const setAccount = db.prepare('UPDATE accounts SET balance = ?, held = ? WHERE id = ?');
    const insert = db.prepare(
      'INSERT INTO ledger_entries (account_id, amount, balance_after, operation, reference, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const insertHold = db.prepare('INSERT INTO credit_holds (account_id, amount, operation, reference, owner, created_at) VALUES (?, ?, ?, ?, ?, ?)');
    const takeHold = db.prepare('DELETE FROM credit_holds WHERE id = ? RETURNING account_id, amount, operation, reference');
    const holdAccount = db.prepare('SELECT account_id FROM credit_holds WHERE id = ?').pluck();
    // adds to what the account holds when its spendable balance covers it (nothing otherwise)
    const grow = db.prepare('UPDATE accounts SET held = held + ? WHERE id = ? AND balance - held >= ? RETURNING balance - held').pluck();
    const reserve = (amount: number, accountId: number) => grow.get(amount, accountId, amount) as number | undefined;
    const unhold = db.prepare('UPDATE accounts SET balance = balance - ?, held = held - ? WHERE id = ? RETURNING balance, held');
    const account = (accountId: number): { balance: number; held: number } => {
      const a = accountOf.get(accountId) as { balance: number; held: number } | undefined;
      if (a === undefined) throw new AppError('not_found', `No account ${accountId}.`);
      return a;
    };
    // A charge with a settlement key (ADR 0332): the entry records it (unique), so a retry finds it.
    const insertSettled = db.prepare(
      'INSERT INTO ledger_entries (account_id, amount, balance_after, operation, reference, created_at, settlement, hold_shrink) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const settled = db.prepare('SELECT id, account_id, hold_shrink FROM ledger_entries WHERE settlement = ?');
    const priorOf = (key: string | null) => (key === null ? undefined : (settled.get(key) as { id: number; account_id: number; hold_shrink: number | null } | undefined));
    this.#debit = db.transaction((accountId: number, amount: number, op: string, ref: string | null, at: number, key: string | null): DebitResult => {
      const { balance, held } = account(accountId);
      const prior = priorOf(key);
      if (prior) return { ok: true, balance: balance - held, entryId: prior.id };
      if (balance - held < amount) return { ok: false, balance: balance - held };
      setAccount.run(balance - amount, held, accountId);
      const info = key === null ? insert.run(accountId, -amount, balance - amount, op, ref, at) : insertSettled.run(accountId, -amount, balance - amount, op, ref, at, key, null);
      return { ok: true, balance: balance - amount - held, entryId: Number(info.lastInsertRowid) };
    });
    this.#credit = db.transaction((accountId: number, amount: number, op: string, ref: string | null, at: number) => {
      const { balance, held } = account(accountId);
      setAccount.run(balance + amount, held, accountId);
      const info = insert.run(accountId, amount, balance + amount, op, ref, at);
      return { balance: balance + amount - held, entryId: Number(info.lastInsertRowid) };
    });
    this.#hold = db.transaction((accountId: number, amount: number, op: string, ref: string | null, owner: string, at: number, upTo: number | null): HoldResult => {
      // the most it may cost when the balance covers that (no extension later), else the price now
      let took = upTo ?? amount;
      let spendable = reserve(took, accountId);
      if (spendable === undefined && took !== amount) spendable = reserve((took = amount), accountId);
      if (spendable === undefined) {
        const { balance, held } = account(accountId);
        return { ok: false, balance: balance - held };
      }
      const holdId = Number(insertHold.run(accountId, took, op, ref, owner, at).lastInsertRowid);
      return upTo === null ? { ok: true, holdId, balance: spendable } : { ok: true, holdId, balance: spendable, held: took };
    });
    this.#capture = db.transaction((holdId: number, amount: number, at: number, key: string | null): { balance: number; entryId: number | null } | null => {
      const h = takeHold.get(holdId) as { account_id: number; amount: number; operation: string; reference: string | null } | undefined;
      if (!h) return null;
      const charged = Math.min(amount, h.amount);
      const a = unhold.get(charged, h.amount, h.account_id) as { balance: number; held: number };
      const entryId = charged > 0 ? Number((key === null ? insert.run(h.account_id, -charged, a.balance, h.operation, h.reference, at) : insertSettled.run(h.account_id, -charged, a.balance, h.operation, h.reference, at, key, null)).lastInsertRowid) : null;
      return { balance: a.balance - a.held, entryId };
    });
    const growHold = db.prepare('UPDATE credit_holds SET amount = amount + ? WHERE id = ?');
    // A debit paid from a standing hold (ADR 0332): 3 statements when the credits are held again (the
    // hold row is only read), 4 when the hold shrinks.
    const standing = db.prepare('SELECT account_id, amount FROM credit_holds WHERE id = ?');
    const dropHold = db.prepare('DELETE FROM credit_holds WHERE id = ?');
    const pay = db.prepare('UPDATE accounts SET balance = balance - ?, held = held - ? WHERE id = ? AND balance - ? >= held - ? RETURNING balance, held');
    this.#draw = db.transaction((holdId: number, amount: number, op: string, ref: string | null, at: number, key: string | null): DrawResult | null => {
      const h = standing.get(holdId) as { account_id: number; amount: number } | undefined;
      // already settled (an earlier attempt committed): its outcome, nothing written
      const prior = priorOf(key);
      if (prior) {
        const a = account(prior.account_id);
        return { balance: a.balance - a.held, entryId: prior.id, kept: (prior.hold_shrink ?? 0) === 0, held: h?.amount ?? 0, replayed: true };
      }
      if (!h || h.amount < amount) return null;
      // held again when the spendable balance covers it, else out of the hold
      let kept = true;
      let a = pay.get(amount, 0, h.account_id, amount, 0) as { balance: number; held: number } | undefined;
      if (a === undefined) {
        kept = false;
        a = pay.get(amount, amount, h.account_id, amount, amount) as { balance: number; held: number };
        // a hold is never empty (CHECK amount > 0): drawn whole, it is gone
        if (h.amount === amount) dropHold.run(holdId);
        else growHold.run(-amount, holdId);
      }
      const entryId = Number((key === null ? insert.run(h.account_id, -amount, a.balance, op, ref, at) : insertSettled.run(h.account_id, -amount, a.balance, op, ref, at, key, kept ? 0 : amount)).lastInsertRowid);
      return { balance: a.balance - a.held, entryId, kept, held: kept ? h.amount : h.amount - amount };
    });
    this.#extend = db.transaction((holdId: number, extra: number): HoldResult | null => {
      const accountId = holdAccount.get(holdId) as number | undefined;
      if (accountId === undefined) return null;
      const spendable = reserve(extra, accountId);
      if (spendable === undefined) {
        const { balance, held } = account(accountId);
        return { ok: false, balance: balance - held };
      }
      growHold.run(extra, holdId);
      return { ok: true, holdId, balance: spendable };
    });
    this.#release = db.transaction((holdId: number): boolean => {
      const h = takeHold.get(holdId) as { account_id: number; amount: number } | undefined;
      if (!h) return false;
      unhold.get(0, h.amount, h.account_id);
      return true;
    });
    const orphans = db.prepare(
      'SELECT id FROM credit_holds c WHERE c.owner <> ? AND NOT EXISTS (SELECT 1 FROM hold_owners o WHERE o.owner = c.owner AND o.seen_at_ms >= ?)',
    ).pluck();
    const dropOwners = db.prepare('DELETE FROM hold_owners WHERE owner <> ? AND seen_at_ms < ? AND NOT EXISTS (SELECT 1 FROM credit_holds c WHERE c.owner = hold_owners.owner)');
    // Group commit (ADR 0136): the same transaction functions, nested (better-sqlite3 makes them
    // savepoints, so an op that throws rolls back only its own writes), under one BEGIN IMMEDIATE ... COMMIT.
    const one = (op: LedgerOp): LedgerOpResult => {
        switch (op.kind) {
          case 'hold':
            checkAmount('hold', op.amount);
            checkUpTo(op.amount, op.upTo);
            return this.#hold(op.accountId, op.amount, op.operation, op.reference, op.owner, op.at, op.upTo ?? null);
          case 'extend':
            checkAmount('hold', op.extra);
            return this.#extend(op.holdId, op.extra);
          case 'capture':
            checkCapture(op.amount);
            return this.#capture(op.holdId, op.amount, op.at, op.settlement ?? null);
          case 'release':
            return this.#release(op.holdId);
          case 'draw':
            checkDraw(op.amount);
            return this.#draw(op.holdId, op.amount, op.operation, op.reference, op.at, op.settlement ?? null);
        }
    };
    this.#batch = db.transaction((ops: readonly LedgerOp[]): LedgerOpOutcome[] =>
      ops.map((op): LedgerOpOutcome => {
        try {
          return { ok: true, value: one(op) };
        } catch (error) {
          return { ok: false, error };
        }
      }),
    );
    this.#sweep = db.transaction((self: string, staleBeforeMs: number): number => {
      const ids = orphans.all(self, staleBeforeMs) as number[];
      for (const id of ids) this.#release(id);
      dropOwners.run(self, staleBeforeMs);
      return ids.length;
    });
  }
  async balance(accountId: number): Promise<number> {
    const b = this.#s.p('SELECT balance - held FROM accounts WHERE id = ?').get(accountId) as number | undefined;
    if (b === undefined) throw new AppError('not_found', `No account ${accountId}.`);
    return b;
  }
  async held(accountId: number): Promise<number> {
    const b = this.#s.p('SELECT held FROM accounts WHERE id = ?').get(accountId) as number | undefined;
    if (b === undefined) throw new AppError('not_found', `No account ${accountId}.`);
    return b;
  }
  async debit(accountId: number, amount: number, operation: string, reference: string | null, at: number, settlement?: string | null): Promise<DebitResult> {
    if (!Number.isSafeInteger(amount) || amount <= 0) throw new RangeError(`debit amount must be a positive integer, got ${amount}`);
    return this.#debit.immediate(accountId, amount, operation, reference, at, settlement ?? null);
  }
  async credit(accountId: number, amount: number, operation: string, reference: string | null, at: number) {
    if (!Number.isSafeInteger(amount) || amount <= 0) throw new RangeError(`credit amount must be a positive integer, got ${amount}`);
    return this.#credit.immediate(accountId, amount, operation, reference, at);
  }
  async hold(accountId: number, amount: number, operation: string, reference: string | null, owner: string, at: number, upTo?: number): Promise<HoldResult> {
    if (!Number.isSafeInteger(amount) || amount <= 0) throw new RangeError(`hold amount must be a positive integer, got ${amount}`);
    checkUpTo(amount, upTo);
    return this.#hold.immediate(accountId, amount, operation, reference, owner, at, upTo ?? null);
  }
  async capture(holdId: number, amount: number, at: number, settlement?: string | null): Promise<{ balance: number; entryId: number | null } | null> {
    if (!Number.isSafeInteger(amount) || amount < 0) throw new RangeError(`capture amount must be a non-negative integer, got ${amount}`);
    return this.#capture.immediate(holdId, amount, at, settlement ?? null);
  }
  async extendHold(holdId: number, extra: number): Promise<HoldResult | null> {
    if (!Number.isSafeInteger(extra) || extra <= 0) throw new RangeError(`hold amount must be a positive integer, got ${extra}`);
    return this.#extend.immediate(holdId, extra);
  }
  async release(holdId: number): Promise<boolean> {
    return this.#release.immediate(holdId);
  }
  async drawFromHold(holdId: number, amount: number, operation: string, reference: string | null, at: number, settlement?: string | null): Promise<DrawResult | null> {
    checkDraw(amount);
    return this.#draw.immediate(holdId, amount, operation, reference, at, settlement ?? null);
  }
  async applyBatch(ops: readonly LedgerOp[]): Promise<LedgerOpOutcome[]> {
    if (ops.length === 0) return [];
    try {
      return this.#batch.immediate(ops);
    } catch (e) {
      // better-sqlite3 rolls the transaction back when its function throws (and SQLite when COMMIT fails)
      throw markRolledBack(e);
    }
  }
  async heartbeat(owner: string, atMs: number): Promise<void> {
    this.#s.q('INSERT INTO hold_owners (owner, seen_at_ms) VALUES (?, ?) ON CONFLICT (owner) DO UPDATE SET seen_at_ms = excluded.seen_at_ms').run(owner, atMs);
  }
  async releaseOrphanedHolds(self: string, staleBeforeMs: number): Promise<number> {
    return this.#sweep.immediate(self, staleBeforeMs);
  }
  async findEntry(accountId: number, operation: string, reference: string): Promise<LedgerEntry | null> {
    const once = (ONCE_OPERATIONS as readonly string[]).includes(operation) ? ` AND ${ONCE_PREDICATE}` : '';
    const r = this.#s.q(`SELECT * FROM ledger_entries WHERE account_id = ? AND operation = ? AND reference = ?${once} ORDER BY id DESC LIMIT 1`).get(accountId, operation, reference) as LedgerRow | undefined;
    return r ? rowToLedgerEntry(r) : null;
  }
  async entries(accountId: number, limit: number): Promise<LedgerEntry[]> {
    const rows = this.#s.q('SELECT * FROM ledger_entries WHERE account_id = ? ORDER BY id DESC LIMIT ?').all(accountId, limit) as LedgerRow[];
    return rows.map(rowToLedgerEntry);
  }
  async entrySum(accountId: number): Promise<number> {
    return this.#s.p('SELECT COALESCE(SUM(amount), 0) FROM ledger_entries WHERE account_id = ?').get(accountId) as number;
  }
}

class SqliteDocumentStore implements DocumentStore {
  readonly #s: Statements;
  readonly #upsert;
  readonly #delete;
  constructor(private readonly db: Db) {
    this.#s = statementCache(db);
    const nextSeq = db.prepare("UPDATE counters SET value = value + 1 WHERE name = 'document_seq' RETURNING value").pluck();
    const existing = db.prepare('SELECT content_hash, work_key, deleted FROM documents WHERE id = ?');
    // One prepared statement per IN-list arity (a record has a handful of identity keys).
    const byArity = new Map<number, Database.Statement>();
    const workKeysFor = (keys: string[]) => {
      let stmt = byArity.get(keys.length);
      if (!stmt) {
        stmt = db
          .prepare(
            `SELECT DISTINCT d.work_key FROM document_identity i JOIN documents d ON d.id = i.document_id
             WHERE d.deleted = 0 AND i.key IN (${keys.map(() => '?').join(',')})`,
          )
          .pluck();
        byArity.set(keys.length, stmt);
      }
      return stmt.all(...keys) as string[];
    };
    // A tombstone brought back is a new document: it gets a new createdAt (and counts as inserted).
    const upsertRow = db.prepare(
      `INSERT INTO documents (id, idx, seq, work_key, content_hash, record, deleted, created_at, updated_at)
       VALUES (@id, @idx, @seq, @work_key, @hash, @record, 0, @at, @at)
       ON CONFLICT (id) DO UPDATE SET idx = excluded.idx, seq = excluded.seq, work_key = excluded.work_key,
         content_hash = excluded.content_hash, record = excluded.record, deleted = 0, updated_at = excluded.updated_at,
         created_at = CASE WHEN documents.deleted = 1 THEN excluded.created_at ELSE documents.created_at END
       RETURNING created_at`,
    ).pluck();
    // The display layout (core/003, ADR 0135): written with the record, relabelled and dropped with it.
    const upsertDisplay = db.prepare(
      `INSERT INTO document_display (id, seq, work_key, created_at, updated_at, display) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, work_key = excluded.work_key, created_at = excluded.created_at,
         updated_at = excluded.updated_at, display = excluded.display`,
    );
    const relabelDisplay = db.prepare('UPDATE document_display SET work_key = ?, seq = ? WHERE id = ?');
    const dropDisplay = db.prepare('DELETE FROM document_display WHERE id = ?');
    const clearUris = db.prepare('DELETE FROM document_uris WHERE document_id = ?');
    const clearKeys = db.prepare('DELETE FROM document_identity WHERE document_id = ?');
    const addUri = db.prepare('INSERT OR IGNORE INTO document_uris (uri, document_id) VALUES (?, ?)');
    const addKey = db.prepare('INSERT OR IGNORE INTO document_identity (key, document_id) VALUES (?, ?)');
    const clearLinks = db.prepare('DELETE FROM document_links WHERE document_id = ?');
    const addLink = db.prepare('INSERT OR IGNORE INTO document_links (target, document_id, kind) VALUES (?, ?, ?)');
    const idsWithWorkKey = db.prepare('SELECT id FROM documents WHERE work_key = ? AND deleted = 0 ORDER BY id').pluck();
    const relabel = db.prepare('UPDATE documents SET work_key = ?, seq = ? WHERE id = ?');

    this.#upsert = db.transaction((docs: readonly DocumentRecord[], at: number): UpsertResult => {
      const result: UpsertResult = { inserted: 0, updated: 0, unchanged: 0 };
      for (const doc of docs) {
        const json = serializeRecord(doc);
        const hash = contentHash(json);
        const prev = existing.get(doc.id) as { content_hash: string; work_key: string; deleted: number } | undefined;
        const live = prev && prev.deleted === 0 ? prev : undefined;
        if (live && live.content_hash === hash) {
          result.unchanged++;
          continue;
        }
        const keys = workIdentityKeys(doc);
        const linked = keys.length > 0 ? workKeysFor(keys) : [];
        const { workKey, absorbed } = assignWorkKey(doc.id, linked, live ? live.work_key : null);
        // Merge the other works this record links into one (preprint + published version).
        for (const other of absorbed) {
          for (const id of idsWithWorkKey.all(other) as string[]) {
            if (id !== doc.id) {
              const seq = nextSeq.get() as number;
              relabel.run(workKey, seq, id);
              relabelDisplay.run(workKey, seq, id);
            }
          }
        }
        const seq = nextSeq.get() as number;
        const createdAt = upsertRow.get({ id: doc.id, idx: doc.index, seq, work_key: workKey, hash, record: json, at }) as number;
        upsertDisplay.run(doc.id, seq, workKey, createdAt, at, serializeDisplay(doc));
        clearUris.run(doc.id);
        clearKeys.run(doc.id);
        for (const u of doc.uris) addUri.run(u, doc.id);
        for (const k of keys) addKey.run(k, doc.id);
        clearLinks.run(doc.id);
        for (const r of doc.relations ?? []) for (const t of linkTargets(r.uri)) addLink.run(t, doc.id, r.kind);
        if (live) result.updated++;
        else result.inserted++;
      }
      return result;
    });

    this.#delete = db.transaction((id: string, at: number): boolean => {
      const prev = existing.get(id) as { deleted: number } | undefined;
      if (!prev || prev.deleted === 1) return false;
      db.prepare("UPDATE documents SET deleted = 1, record = NULL, content_hash = '', seq = ?, updated_at = ? WHERE id = ?").run(nextSeq.get() as number, at, id);
      clearUris.run(id);
      clearKeys.run(id);
      clearLinks.run(id);
      dropDisplay.run(id);
      return true;
    });
  }

  async upsertMany(docs: readonly DocumentRecord[], at: number): Promise<UpsertResult> {
    return this.#upsert.immediate(docs, at);
  }
  async get(id: string): Promise<StoredDocument | null> {
    const r = this.#s.q('SELECT record, seq, work_key, created_at, updated_at FROM documents WHERE id = ? AND deleted = 0').get(id) as DocumentRow | undefined;
    return r ? rowToStored(r) : null;
  }
  async getMany(ids: readonly string[]): Promise<Map<string, StoredDocument>> {
    const out = new Map<string, StoredDocument>();
    const stmt = this.#s.q('SELECT id, record, seq, work_key, created_at, updated_at FROM documents WHERE id = ? AND deleted = 0');
    for (const id of new Set(ids)) {
      const r = stmt.get(id) as (DocumentRow & { id: string }) | undefined;
      if (r) out.set(r.id, rowToStored(r));
    }
    return out;
  }
  async getDisplayMany(ids: readonly string[], withText: readonly string[] = []): Promise<Map<string, DisplayDocumentWithText>> {
    const out = new Map<string, DisplayDocumentWithText>();
    const text = new Set(withText);
    const display = this.#s.q('SELECT id, display, seq, work_key, created_at, updated_at FROM document_display WHERE id = ?');
    // With its text: the whole record, one lookup (what a hit with body snippets needs anyway).
    const whole = this.#s.q('SELECT id, record, seq, work_key, created_at, updated_at FROM documents WHERE id = ? AND deleted = 0');
    for (const id of new Set(ids)) {
      if (text.has(id)) {
        const r = whole.get(id) as (DocumentRow & { id: string }) | undefined;
        if (r) out.set(r.id, rowToDisplayWithText(r));
      } else {
        const r = display.get(id) as DisplayRow | undefined;
        if (r) out.set(r.id, rowToDisplay(r));
      }
    }
    return out;
  }
  async getTextWindows(wants: readonly TextWindowRequest[]): Promise<Map<string, TextWindows>> {
    const out = new Map<string, TextWindows>();
    for (const { id, ranges } of wants) {
      if (out.has(id)) continue;
      // SQLite's JSON reader takes the text out of the record and length/substr count characters
      // (Unicode scalar values, as the index's offsets do): only the slices become JS strings (ADR 0335)
      const row = this.#s.q(textWindowsSql(ranges.length)).raw(true).get(...ranges.flatMap(([s, e]) => [s + 1, Math.max(0, e - s)]), id) as (number | string | null)[] | undefined;
      if (!row) continue;
      const texts: string[] = [];
      for (let k = 0; k < ranges.length; k++) texts.push((row[k + 1] as string | null) ?? '');
      out.set(id, { length: (row[0] as number | null) ?? 0, texts });
    }
    return out;
  }
  async getByUri(uri: string): Promise<StoredDocument | null> {
    const r = this.#s
      .q(
        `SELECT d.record, d.seq, d.work_key, d.created_at, d.updated_at FROM document_uris u JOIN documents d ON d.id = u.document_id
         WHERE u.uri = ? AND d.deleted = 0 ORDER BY d.id LIMIT 1`,
      )
      .get(uri) as DocumentRow | undefined;
    return r ? rowToStored(r) : null;
  }
  async getManyByUri(uris: readonly string[]): Promise<Map<string, StoredDocument>> {
    const out = new Map<string, StoredDocument>();
    const stmt = this.#s.q(
      `SELECT d.record, d.seq, d.work_key, d.created_at, d.updated_at FROM document_uris u JOIN documents d ON d.id = u.document_id
       WHERE u.uri = ? AND d.deleted = 0 ORDER BY d.id LIMIT 1`,
    );
    for (const uri of new Set(uris)) {
      const r = stmt.get(uri) as DocumentRow | undefined;
      if (r) out.set(uri, rowToStored(r));
    }
    return out;
  }
  async getByIdentityKeys(keys: readonly string[], limit: number): Promise<StoredDocument[]> {
    const wanted = [...new Set(keys)];
    if (wanted.length === 0 || limit <= 0) return [];
    const rows = this.#s
      .q(
        `SELECT d.record, d.seq, d.work_key, d.created_at, d.updated_at FROM documents d
         WHERE d.deleted = 0 AND d.id IN (SELECT document_id FROM document_identity WHERE key IN (SELECT value FROM json_each(?)))
         ORDER BY d.id LIMIT ?`,
      )
      .all(JSON.stringify(wanted), limit) as DocumentRow[];
    return rows.map(rowToStored);
  }
  async workMembers(workKeys: readonly string[], perWork: number): Promise<Map<string, WorkMember[]>> {
    const wanted = [...new Set(workKeys)];
    if (wanted.length === 0 || perWork <= 0) return new Map();
    // Most works have one record: the partial index of live records finds the others first, and only
    // their records are read (one statement for the whole page).
    const rows = this.#s
      .q(WORK_MEMBERS_SQL)
      .all(JSON.stringify(wanted), perWork) as WorkMemberRow[];
    return groupWorkMembers(rows);
  }
  async relationsTo(uris: readonly string[]): Promise<IncomingRelation[]> {
    const wanted = [...new Set(uris)];
    if (wanted.length === 0) return [];
    const rows = this.#s
      .q(
        `SELECT l.target, l.kind, l.document_id, json_extract(d.record, '$.uris') AS uris FROM document_links l JOIN documents d ON d.id = l.document_id
         WHERE d.deleted = 0 AND l.target IN (SELECT value FROM json_each(?)) ORDER BY l.target, l.document_id, l.kind`,
      )
      .all(JSON.stringify(wanted)) as { target: string; kind: IncomingRelation['kind']; document_id: string; uris: string }[];
    return rows.map((r) => ({ target: r.target, kind: r.kind, documentId: r.document_id, documentUris: JSON.parse(r.uris) as string[] }));
  }
  async delete(id: string, at: number): Promise<boolean> {
    return this.#delete.immediate(id, at);
  }
  async changesSince(afterSeq: number, limit: number): Promise<DocumentChange[]> {
    const rows = this.#s
      .q('SELECT id, record, seq, work_key, created_at, updated_at, deleted FROM documents WHERE seq > ? ORDER BY seq LIMIT ?')
      .all(afterSeq, limit) as (DocumentRow & { id: string; deleted: number })[];
    return rows.map((r) => (r.deleted ? { deleted: true, seq: Number(r.seq), id: r.id } : { deleted: false, seq: Number(r.seq), doc: rowToStored(r) }));
  }
  async maxSeq(): Promise<number> {
    return this.#s.p("SELECT value FROM counters WHERE name = 'document_seq'").get() as number;
  }
  async count(index?: IndexName): Promise<number> {
    return (
      index
        ? this.#s.p('SELECT COUNT(*) FROM documents WHERE deleted = 0 AND idx = ?').get(index)
        : this.#s.p('SELECT COUNT(*) FROM documents WHERE deleted = 0').get()
    ) as number;
  }
}

class SqliteActivityStore implements ActivityStore {
  readonly #s: Statements;
  readonly #record: (events: readonly ActivityEvent[]) => void;
  constructor(private readonly db: Db) {
    this.#s = statementCache(db);
    const insert = db.prepare('INSERT OR IGNORE INTO activity_events (document_id, kind, account_id, visitor, day, at) VALUES (?, ?, ?, ?, ?, ?)');
    // Only events that count (a repeated view does not) go into the daily counters (activity/001-daily-counters),
    // one upsert per (document, day, kind) of the batch. Raw rows exist only to de-duplicate views, so
    // only views get one (ADR 0137).
    const count = db.prepare(
      `INSERT INTO activity_daily (document_id, day, kind, n, last_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (document_id, day, kind) DO UPDATE SET n = n + excluded.n, last_at = MAX(last_at, excluded.last_at)`,
    );
    this.#record = db.transaction((events: readonly ActivityEvent[]) => {
      // Trending's per-account counters (ADR 0211): the first event of an account, document, day and kind.
      const readers = events
        .filter((e) => PER_ACCOUNT_KINDS.has(e.kind) && (e.accountId === null || insert.run(e.documentId, e.kind, e.accountId, null, utcDay(e.at), e.at).changes === 1))
        .map((e) => ({ ...e, kind: accountsKind(e.kind) }));
      for (const g of dailyGroups([...events, ...readers], (e) => e.kind !== 'view' || insert.run(e.documentId, e.kind, e.accountId, e.visitor, utcDay(e.at), e.at).changes === 1)) {
        count.run(g.documentId, g.day, g.kind, g.n, g.lastAt);
      }
    });
  }
  async record(events: readonly ActivityEvent[]): Promise<void> {
    this.#record(events);
  }

  async counts(documentId: string, now: number): Promise<ActivityCounts> {
    const rows = this.#s
      .q(
        `SELECT kind, SUM(CASE WHEN day >= ? THEN n ELSE 0 END) AS d7, SUM(n) AS d30
         FROM activity_daily WHERE document_id = ? AND day >= ? AND day <= ? GROUP BY kind`,
      )
      .all(firstDay(now, 7), documentId, firstDay(now, 30), utcDay(now)) as { kind: string; d7: number; d30: number }[];
    const newest = this.#s.p('SELECT MAX(last_at) FROM activity_daily WHERE document_id = ?').get(documentId) as number | null;
    return countsFromRows(documentId, rows, newest);
  }

  async topOver(now: number, days: number, limit: number): Promise<ActivityTotals[]> {
    const rows = this.#s.q(`SELECT ${TOP_COLUMNS} FROM activity_daily WHERE day >= ? AND day <= ? GROUP BY document_id ORDER BY ${TOP_ORDER} LIMIT ?`).all(firstDay(now, days), utcDay(now), limit) as TotalsRow[];
    return rows.map(rowToTotals);
  }

  async prune(rawBefore: number, dayBefore: number): Promise<{ raw: number; daily: number }> {
    const raw = this.#s.q('DELETE FROM activity_events WHERE at < ?').run(rawBefore).changes;
    const daily = this.#s.q('DELETE FROM activity_daily WHERE day < ?').run(dayBefore).changes;
    return { raw, daily };
  }
}

/** The SQLite database handle, for capabilities' own SQLite stores (auth, recognition, ...). */
export interface SqliteHandle {
  readonly db: Db;
}

/**
 * Opens (creating if needed) the database file, applies pending migrations and returns the stores.
 * `path` ':memory:' gives a private in-memory database (tests).
 */
export function openSqliteStorage(path: string, migrations: readonly MigrationStep[] = ALL_MIGRATIONS): Storage & SqliteHandle {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  // The busy timeout first: switching to WAL and migrating take the write lock, and another process or
  // thread opening the same fresh file at the same moment must wait for it instead of failing at once.
  db.pragma('busy_timeout = 10000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  migrate(db, migrations);
  return {
    kind: 'sqlite',
    db,
    accounts: new SqliteAccountStore(db),
    apiKeys: new SqliteApiKeyStore(db),
    ledger: new SqliteCreditLedger(db),
    documents: new SqliteDocumentStore(db),
    activity: new SqliteActivityStore(db),
    async ping() {
      db.prepare('SELECT 1').get();
    },
    async close() {
      if (db.open) db.close();
    },
  };
}
