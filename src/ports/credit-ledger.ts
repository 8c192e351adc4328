// The credit ledger: every charge and top-up is an entry; an account's posted balance is the sum of
// its entries. Credits can also be held (reserved) for a request in progress; the spendable balance
// is the posted balance minus what is held. A debit or hold that would take the spendable balance
// below zero is refused and leaves nothing behind (docs/billing.md, ADR 0078).

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

/** `held`: what a hold with `upTo` took (`upTo` when the spendable balance covered it, else `amount`); absent otherwise. */
export type HoldResult = { ok: true; holdId: number; balance: number; held?: number } | { ok: false; balance: number };

/** A hold operation for {@link CreditLedger.applyBatch}: the arguments of hold, extendHold, capture or release. */
export type LedgerOp =
  | { kind: 'hold'; accountId: number; amount: number; operation: string; reference: string | null; owner: string; at: number; upTo?: number }
  | { kind: 'extend'; holdId: number; extra: number }
  | { kind: 'capture'; holdId: number; amount: number; at: number; settlement?: string | null }
  | { kind: 'release'; holdId: number }
  | { kind: 'draw'; holdId: number; amount: number; operation: string; reference: string | null; at: number; settlement?: string | null };

/**
 * What {@link CreditLedger.drawFromHold} did: the debit's entry, the spendable balance after, whether
 * the drawn credits were held again (`kept`: the standing hold kept its amount) or the hold shrank by
 * them, and what the hold has after (`held`; 0: it was drawn whole and is gone). `replayed`: the draw's
 * settlement key was already written (an earlier attempt committed): nothing was written now, `entryId`
 * and `kept` are that attempt's, `balance` and `held` what the account and the hold have now.
 */
export type DrawResult = { balance: number; entryId: number; kept: boolean; held: number; replayed?: boolean };

/** What each kind of {@link LedgerOp} returns: what hold, extendHold, capture, release and drawFromHold return. */
export type LedgerOpResult = HoldResult | HoldResult | null | { balance: number; entryId: number | null } | null | boolean | DrawResult | null;

/** One op's outcome in a batch: its result, or the error it threw (it wrote nothing). */
export type LedgerOpOutcome = { ok: true; value: LedgerOpResult } | { ok: false; error: unknown };

export interface CreditLedger {
  /** The spendable balance: posted balance minus credits held for requests in progress. */
  balance(accountId: number): Promise<number>;
  /**
   * Atomically checks the spendable balance and debits `amount` (> 0). Never overdraws, even under concurrency.
   * `settlement`: a key unique to this charge (see drawFromHold); when an entry with it is already
   * written, nothing is written and that entry's id is returned (`ok`, the spendable balance now).
   */
  debit(accountId: number, amount: number, operation: string, reference: string | null, at: number, settlement?: string | null): Promise<DebitResult>;
  /** Adds `amount` (> 0) credits. */
  credit(accountId: number, amount: number, operation: string, reference: string | null, at: number): Promise<{ balance: number; entryId: number }>;
  /**
   * The account's newest entry for `operation` with this `reference`, or null (idempotent charges: a
   * recognition job checks whether its completion was already billed before a restart).
   */
  findEntry(accountId: number, operation: string, reference: string): Promise<LedgerEntry | null>;
  /**
   * Atomically reserves `amount` (> 0) of the spendable balance for `owner` (a serving process).
   * Refused (nothing written) when the spendable balance is short. `balance` is the spendable balance after.
   * `upTo` (>= amount; ADR 0185): hold `upTo` instead when the spendable balance covers it (the most the
   * operation can cost, so that no extension is needed), else `amount`; the result says which (`held`).
   */
  hold(accountId: number, amount: number, operation: string, reference: string | null, owner: string, at: number, upTo?: number): Promise<HoldResult>;
  /**
   * Turns a hold into a debit of `amount` (0 <= amount <= held; 0 just releases it), in one
   * transaction. Null when the hold no longer exists (already captured or released): nothing is written.
   * `settlement`: a key unique to this charge, recorded on the entry (see drawFromHold), so that a
   * retry that finds the hold gone can tell, by a debit with the same key, that it was captured.
   */
  capture(holdId: number, amount: number, at: number, settlement?: string | null): Promise<{ balance: number; entryId: number | null } | null>;
  /**
   * Adds `extra` (> 0) to an existing hold when the spendable balance covers it. Refused (nothing
   * written) when short; null when the hold no longer exists.
   */
  extendHold(holdId: number, extra: number): Promise<HoldResult | null>;
  /** Drops a hold without charging. False when it no longer exists. */
  release(holdId: number): Promise<boolean>;
  /**
   * A debit of `amount` (> 0) paid from a standing hold (ADR 0332: one process's hold for an account's
   * requests in progress), in one transaction: the hold's account is debited and the entry written with
   * this `operation` and `reference`; the credits are then held again when the spendable balance covers
   * them (`kept`: the hold keeps its amount), else the hold shrinks by `amount` (and is gone when that
   * empties it: released, as a capture of all of it would). So the spendable balance
   * never goes below zero and the entry is written once. Null, writing nothing, when the hold no longer
   * exists or holds less than `amount`.
   * `settlement` (idempotence): a key unique to this charge, made before its first attempt and recorded
   * on the entry under a unique index. When an entry with this key is already written (by a draw or a
   * debit: an earlier attempt whose outcome was unknown committed), nothing is written and the earlier
   * outcome is returned (`replayed`), whether or not the hold still exists; two attempts can never both
   * commit (the second fails on the index, writing nothing). So a draw with a key may be retried after
   * any failure, known or not.
   */
  drawFromHold(holdId: number, amount: number, operation: string, reference: string | null, at: number, settlement?: string | null): Promise<DrawResult | null>;
  /**
   * Group commit (ADR 0136): applies `ops` in order in ONE transaction, each exactly as its own method
   * would at that point (the same checks, the same result, or the same error), and commits once. An op
   * that fails (an unknown account, a bad amount) writes nothing and does not stop the others: its
   * outcome carries the error. When the promise rejects, the outcome of every op is unknown, unless
   * the error's `rolledBack` is true: then nothing was written and the ops may be run again one by one.
   */
  applyBatch(ops: readonly LedgerOp[]): Promise<LedgerOpOutcome[]>;
  /** Records that `owner` is alive at `atMs` (milliseconds). */
  heartbeat(owner: string, atMs: number): Promise<void>;
  /**
   * Releases the holds of every owner other than `self` whose last heartbeat is older than
   * `staleBeforeMs` (or who never beat): the requests of a process that died. Returns how many.
   */
  releaseOrphanedHolds(self: string, staleBeforeMs: number): Promise<number>;
  /** Credits held now for the account (for audits and tests). */
  held(accountId: number): Promise<number>;
  /** Newest first. */
  entries(accountId: number, limit: number): Promise<LedgerEntry[]>;
  /** Sum of all entries of the account (for audits and tests; equals balance()). */
  entrySum(accountId: number): Promise<number>;
}

/**
 * The operations charged at most once per reference (a browser read per document and day, a recognition
 * job's completion): `findEntry` for them reads a partial index (`ledger_once`, billing/003) whose
 * predicate is ONCE_PREDICATE, so the search charges on the hot path write no extra index page.
 * Changing this list needs a new migration step that recreates the index.
 */
export const ONCE_OPERATIONS = ['document_read', 'recognition'] as const;
export const ONCE_PREDICATE = `operation IN (${ONCE_OPERATIONS.map((o) => `'${o}'`).join(', ')})`;
