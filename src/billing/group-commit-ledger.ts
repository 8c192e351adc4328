// Group commit for the per-request ledger writes (issue 14, ADR 0136). Every billed search writes
// three times (hold before the work, extend to the final price, capture after delivery), each its own
// transaction. Under load many requests write at once; this ledger queues their hold, extendHold,
// capture, release and drawFromHold calls and commits the queue as ONE transaction (CreditLedger.applyBatch):
// the calls that arrived while the previous batch was committing, or within the same turn of the
// event loop (or `windowMs`, when set), up to `maxBatch`.
//
// The guarantees are the ledger's own, unchanged:
// - each call resolves only after the transaction holding its write has committed (a hold is granted,
//   a capture is charged, only once durable), with exactly the result it would have had alone;
// - the ops of a batch run in arrival order inside the transaction, each with the ledger's own checks
//   (the spendable balance never goes below zero; a hold is captured or released once);
// - an op that fails (an unknown account, a bad amount) fails alone, writing nothing, with the error
//   the single call would throw;
// - a batch the database refused as a whole (a deadlock, any server error: the ledger marks the error
//   `rolledBack`) wrote nothing; its calls are then run one by one, each with its own result or error.
//   A batch whose outcome is unknown (the connection died around COMMIT) fails every call of it, as it
//   would fail a single statement: none is retried here (no double charge). The caller may retry a
//   draw that carries a settlement key: it is idempotent (ADR 0332).
// Reads, debits, credits and the heartbeat pass straight through.
import type { CreditLedger, DebitResult, DrawResult, HoldResult, LedgerEntry, LedgerOp, LedgerOpOutcome, LedgerOpResult } from '../ports/credit-ledger.js';

export interface GroupCommitOptions {
  /** Most ops in one transaction. */
  maxBatch: number;
  /** Extra wait before committing a batch, ms (0: commit at the next turn of the event loop). */
  windowMs: number;
  /**
   * Whether other writers may come soon (requests in progress besides the caller's). When it says no
   * and nothing is queued or committing, an op is written at once instead of waiting for a batch, so a
   * lone request pays no batching delay. Absent: always batch.
   */
  othersActive?: () => boolean;
  /**
   * Batches committing at once (default 1). PostgreSQL overlaps concurrent commits (one WAL flush
   * serves several), so a few lanes beat one; the ops of every batch are ordered by account, so
   * concurrent batches take account row locks in the same order and cannot deadlock each other.
   */
  lanes?: number;
}

interface Pending {
  op: LedgerOp;
  resolve(value: LedgerOpResult): void;
  reject(e: unknown): void;
}

export class GroupCommitLedger implements CreditLedger {
  #queue: Pending[] = [];
  /** Lanes committing now, and a promise that settles when none is. */
  #active = 0;
  #running: Promise<void> | null = null;
  #idle: (() => void) | null = null;
  #scheduled = false;
  /** The account of each hold granted through this ledger and not yet captured or released (ordering only). */
  readonly #holdAccount = new Map<number, number>();
  /** Batches committed and ops in them (for benchmarks and metrics). */
  readonly stats = { batches: 0, ops: 0, fallbacks: 0 };

  constructor(
    private readonly inner: CreditLedger,
    private readonly options: GroupCommitOptions = { maxBatch: 256, windowMs: 0 },
  ) {
    if (!Number.isSafeInteger(options.maxBatch) || options.maxBatch < 1) throw new RangeError(`maxBatch must be a positive integer, got ${options.maxBatch}`);
  }

  hold(accountId: number, amount: number, operation: string, reference: string | null, owner: string, at: number, upTo?: number): Promise<HoldResult> {
    return this.#enqueue(upTo === undefined ? { kind: 'hold', accountId, amount, operation, reference, owner, at } : { kind: 'hold', accountId, amount, operation, reference, owner, at, upTo }) as Promise<HoldResult>;
  }
  extendHold(holdId: number, extra: number): Promise<HoldResult | null> {
    return this.#enqueue({ kind: 'extend', holdId, extra }) as Promise<HoldResult | null>;
  }
  capture(holdId: number, amount: number, at: number, settlement?: string | null): Promise<{ balance: number; entryId: number | null } | null> {
    return this.#enqueue(settlement == null ? { kind: 'capture', holdId, amount, at } : { kind: 'capture', holdId, amount, at, settlement }) as Promise<{ balance: number; entryId: number | null } | null>;
  }
  release(holdId: number): Promise<boolean> {
    return this.#enqueue({ kind: 'release', holdId }) as Promise<boolean>;
  }
  drawFromHold(holdId: number, amount: number, operation: string, reference: string | null, at: number, settlement?: string | null): Promise<DrawResult | null> {
    return this.#enqueue(settlement == null ? { kind: 'draw', holdId, amount, operation, reference, at } : { kind: 'draw', holdId, amount, operation, reference, at, settlement }) as Promise<DrawResult | null>;
  }
  applyBatch(ops: readonly LedgerOp[]): Promise<LedgerOpOutcome[]> {
    return this.inner.applyBatch(ops);
  }

  /** Resolves when every op queued so far has committed (shutdown: before the store closes). */
  async flush(): Promise<void> {
    while (this.#queue.length > 0 || this.#running) {
      if (!this.#running) this.#start();
      await this.#running;
    }
  }

  balance(accountId: number): Promise<number> {
    return this.inner.balance(accountId);
  }
  debit(accountId: number, amount: number, operation: string, reference: string | null, at: number, settlement?: string | null): Promise<DebitResult> {
    return this.inner.debit(accountId, amount, operation, reference, at, settlement);
  }
  credit(accountId: number, amount: number, operation: string, reference: string | null, at: number): Promise<{ balance: number; entryId: number }> {
    return this.inner.credit(accountId, amount, operation, reference, at);
  }
  findEntry(accountId: number, operation: string, reference: string): Promise<LedgerEntry | null> {
    return this.inner.findEntry(accountId, operation, reference);
  }
  heartbeat(owner: string, atMs: number): Promise<void> {
    return this.inner.heartbeat(owner, atMs);
  }
  releaseOrphanedHolds(self: string, staleBeforeMs: number): Promise<number> {
    return this.inner.releaseOrphanedHolds(self, staleBeforeMs);
  }
  held(accountId: number): Promise<number> {
    return this.inner.held(accountId);
  }
  entries(accountId: number, limit: number): Promise<LedgerEntry[]> {
    return this.inner.entries(accountId, limit);
  }
  entrySum(accountId: number): Promise<number> {
    return this.inner.entrySum(accountId);
  }

  #enqueue(op: LedgerOp): Promise<LedgerOpResult> {
    if (this.options.othersActive && !this.options.othersActive() && this.#active === 0 && !this.#scheduled && this.#queue.length === 0) {
      this.stats.batches++;
      this.stats.ops++;
      return this.#track(op, this.#one(op));
    }
    return new Promise<LedgerOpResult>((resolve, reject) => {
      this.#queue.push({ op, resolve, reject });
      // Busy lanes pick the queue up when their batch is done; a free lane is started for it.
      if (this.#scheduled || this.#active >= (this.options.lanes ?? 1)) return;
      this.#scheduled = true;
      if (this.options.windowMs > 0) setTimeout(() => this.#start(), this.options.windowMs);
      else setImmediate(() => this.#start());
    }).then(
      (v) => this.#noteResult(op, v),
      (e: unknown) => {
        this.#noteResult(op, null);
        throw e;
      },
    );
  }

  #track(op: LedgerOp, p: Promise<LedgerOpResult>): Promise<LedgerOpResult> {
    return p.then(
      (v) => this.#noteResult(op, v),
      (e: unknown) => {
        this.#noteResult(op, null);
        throw e;
      },
    );
  }

  #noteResult(op: LedgerOp, v: LedgerOpResult): LedgerOpResult {
    if (op.kind === 'hold') {
      if (v && typeof v === 'object' && 'holdId' in v && v.ok) this.#holdAccount.set(v.holdId, op.accountId);
    } else if (op.kind === 'capture' || op.kind === 'release') this.#holdAccount.delete(op.holdId);
    return v;
  }

  #accountOf(op: LedgerOp): number {
    return op.kind === 'hold' ? op.accountId : (this.#holdAccount.get(op.holdId) ?? 0);
  }

  #start(): void {
    this.#scheduled = false;
    if (this.#queue.length === 0 || this.#active >= (this.options.lanes ?? 1)) return;
    this.#active++;
    if (!this.#running) this.#running = new Promise<void>((resolve) => (this.#idle = resolve));
    void (async () => {
      try {
        while (this.#queue.length > 0) {
          // Same account: arrival order kept (a stable sort); across accounts: ascending, in every batch.
          const batch = this.#queue.splice(0, this.options.maxBatch).sort((a, b) => this.#accountOf(a.op) - this.#accountOf(b.op));
          // More queued than this lane takes: another lane may start on it.
          if (this.#queue.length > 0 && !this.#scheduled && this.#active < (this.options.lanes ?? 1)) {
            this.#scheduled = true;
            setImmediate(() => this.#start());
          }
          await this.#commit(batch);
        }
      } finally {
        if (--this.#active === 0) {
          this.#running = null;
          this.#idle?.();
          this.#idle = null;
        }
      }
    })();
  }

  async #commit(batch: Pending[]): Promise<void> {
    if (batch.length > 1) {
      let results: LedgerOpOutcome[] | null = null;
      try {
        results = await this.inner.applyBatch(batch.map((p) => p.op));
      } catch (e) {
        // Only a batch known to have written nothing is run again op by op; a failed COMMIT (outcome
        // unknown) fails every call, as it would have failed a single statement.
        if ((e as { rolledBack?: unknown } | null)?.rolledBack !== true) {
          for (const p of batch) p.reject(e);
          return;
        }
        this.stats.fallbacks++;
      }
      if (results) {
        this.stats.batches++;
        this.stats.ops += batch.length;
        batch.forEach((p, i) => {
          const o = results![i]!;
          if (o.ok) p.resolve(o.value);
          else p.reject(o.error);
        });
        return;
      }
    }
    // One op, or a batch that rolled back: each alone, with its own result or error.
    for (const p of batch) {
      try {
        p.resolve(await this.#one(p.op));
        this.stats.batches++;
        this.stats.ops++;
      } catch (e) {
        p.reject(e);
      }
    }
  }

  #one(op: LedgerOp): Promise<LedgerOpResult> {
    switch (op.kind) {
      case 'hold':
        return this.inner.hold(op.accountId, op.amount, op.operation, op.reference, op.owner, op.at, op.upTo);
      case 'extend':
        return this.inner.extendHold(op.holdId, op.extra);
      case 'capture':
        return this.inner.capture(op.holdId, op.amount, op.at, op.settlement);
      case 'release':
        return this.inner.release(op.holdId);
      case 'draw':
        return this.inner.drawFromHold(op.holdId, op.amount, op.operation, op.reference, op.at, op.settlement);
    }
  }
}
