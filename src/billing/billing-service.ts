// Charging credits for operations, the way payment systems do (issue 12, docs/billing.md, ADR 0078):
// a request served inside a settlement scope (every HTTP request: the HTTP layer opens one) first
// *holds* its price before the work (`reserve`: 402 when the spendable balance is short, nothing
// done), states what it finally costs after the work (`charge`), and the scope *captures* the holds
// into ledger entries once the response has been delivered, or *releases* them when the client went
// away, the request failed or the process died (holds of a dead process are released by the
// survivors' sweep and at start-up). Outside a scope (CLI, background jobs, tests calling a service
// directly) `reserve` is a balance check and `charge` debits at once. The balance never goes below
// zero, a hold is captured or released exactly once, and a failed request charges nothing.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { AppError } from '../domain/errors.js';
import type { Principal } from '../domain/principal.js';
import type { Clock } from '../ports/clock.js';
import { nowSeconds } from '../ports/clock.js';
import type { CreditLedger } from '../ports/credit-ledger.js';

interface ScopeHold {
  holdId: number;
  accountId: number;
  reference: string | null;
  operation: string;
  held: number;
  /** What the operation finally costs (set by charge); null: the operation did not finish. */
  final: number | null;
}

/** The holds of one request; settled once. */
export interface Settlement {
  readonly holds: ScopeHold[];
  settled: boolean;
}

export interface BillingOptions {
  /** How often this process records that it is alive (its holds are kept while it does). */
  heartbeatMs: number;
  /** Holds of a process that has not beaten for this long are released. */
  staleAfterMs: number;
  /** Reports a failure of background work (a capture that could not be written). */
  report?: (e: unknown, context: string) => void;
}

const DEFAULT_OPTIONS: BillingOptions = { heartbeatMs: 5_000, staleAfterMs: 20_000 };

export class BillingService {
  /** This process's identity on its holds. */
  readonly owner = randomUUID();
  readonly #scopes = new AsyncLocalStorage<Settlement>();
  readonly #settling = new Set<Promise<void>>();
  #open = 0;
  readonly #options: BillingOptions;
  #timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly ledger: CreditLedger,
    private readonly clock: Clock,
    options: Partial<BillingOptions> = {},
  ) {
    this.#options = { ...DEFAULT_OPTIONS, ...options };
  }

  /** A new settlement scope for one request; run its work with runInScope, then settle it. */
  openScope(): Settlement {
    this.#open++;
    return { holds: [], settled: false };
  }

  /** Requests in progress (scopes opened and not yet settled): group commit waits only when others run (ADR 0136). */
  get inFlight(): number {
    return this.#open;
  }

  /** Runs `fn` (and everything it starts) inside `scope`. */
  runInScope<T>(scope: Settlement, fn: () => T): T {
    return this.#scopes.run(scope, fn);
  }

  /**
   * Before the work: holds `amount` for `operation` in the current scope (402 when the spendable
   * balance is short); outside a scope, only checks the balance. `upTo`: the most the operation can
   * cost; it is held instead when the spendable balance covers it, so that the charge after the work
   * needs no second write to grow the hold (ADR 0185; what is not charged is released with the capture).
   */
  async reserve(principal: Principal, amount: number, operation: string, reference: string | null, upTo?: number): Promise<void> {
    if (amount <= 0) return;
    const scope = this.#scopes.getStore();
    if (scope?.settled) return; // the client is gone: nothing will be delivered, nothing is held
    if (!scope) {
      const balance = await this.ledger.balance(principal.accountId);
      if (balance < amount) throw insufficient(amount, balance);
      return;
    }
    await this.#hold(scope, principal.accountId, amount, operation, reference, null, upTo !== undefined && upTo > amount ? upTo : undefined);
  }

  /** Throws `insufficient_credits` (402) when the spendable balance is below `minimum` (no hold). */
  async requireBalance(principal: Principal, minimum: number): Promise<void> {
    if (minimum <= 0) return;
    const balance = await this.ledger.balance(principal.accountId);
    if (balance < minimum) throw insufficient(minimum, balance);
  }

  /**
   * After the work: `amount` is what `operation` costs. In a scope, the hold taken by `reserve` is
   * set to be captured for `amount` at delivery (more is held first when it exceeds the hold: 402
   * when that fails); `captureNow` captures at once (the product is already delivered, e.g. a stored
   * conversation turn). Outside a scope, debits at once. `reference` is the request id.
   */
  async charge(principal: Principal, amount: number, operation: string, reference: string | null, opts: { captureNow?: boolean } = {}): Promise<void> {
    const scope = this.#scopes.getStore();
    if (scope?.settled) return; // the client is gone: nothing will be delivered, nothing is charged
    if (!scope) {
      if (amount <= 0) return;
      const r = await this.ledger.debit(principal.accountId, amount, operation, reference, nowSeconds(this.clock));
      if (!r.ok) throw insufficient(amount, r.balance);
      return;
    }
    // One hold (and so one ledger entry) per operation of a request: the reserved hold is grown
    // when the final price exceeds it (402 when the balance cannot cover the difference).
    const mine = scope.holds.find((h) => h.operation === operation && h.final === null);
    if (!mine) {
      if (amount > 0) await this.#hold(scope, principal.accountId, amount, operation, reference, amount);
    } else {
      if (amount > mine.held) {
        const r = await this.ledger.extendHold(mine.holdId, amount - mine.held);
        if (r && !r.ok) throw insufficient(amount, r.balance + mine.held);
        if (r) mine.held = amount;
        else {
          // Swept meanwhile (this process looked dead): hold the whole price afresh.
          scope.holds.splice(scope.holds.indexOf(mine), 1);
          await this.#hold(scope, principal.accountId, amount, operation, reference, amount);
          return this.#maybeCaptureNow(scope, operation, opts);
        }
      }
      mine.final = amount;
    }
    return this.#maybeCaptureNow(scope, operation, opts);
  }

  async #maybeCaptureNow(scope: Settlement, operation: string, opts: { captureNow?: boolean }): Promise<void> {
    if (opts.captureNow) {
      const now = scope.holds.filter((h) => h.operation === operation && h.final !== null);
      for (const h of now) {
        scope.holds.splice(scope.holds.indexOf(h), 1);
        await this.#captureOrRelease(h, true);
      }
    }
  }

  /**
   * Ends a scope: when the response was delivered, captures every finished hold for its final
   * amount; otherwise (client gone, request failed) releases them all. Never throws.
   */
  settle(scope: Settlement, delivered: boolean): Promise<void> {
    if (scope.settled) return Promise.resolve();
    scope.settled = true;
    this.#open--;
    const holds = scope.holds.splice(0);
    if (holds.length === 0) return Promise.resolve();
    const done = (async () => {
      for (const h of holds) await this.#captureOrRelease(h, delivered);
    })();
    this.#settling.add(done);
    void done.finally(() => this.#settling.delete(done));
    return done;
  }

  /**
   * Resolves when every settlement started so far has been written. Settling runs after the response
   * was delivered (and its writes may wait for a group commit, ADR 0136): tests and shutdown that
   * read the books after a response wait for this first.
   */
  async idle(): Promise<void> {
    while (this.#settling.size > 0) await Promise.allSettled([...this.#settling]);
  }

  /**
   * Debits `amount` for `operation` once per `reference` (e.g. a recognition job id): when the ledger
   * already holds a debit of that operation with that reference (a completion interrupted by a restart
   * after the debit), nothing more is charged. Never throws for a short balance: the caller decides.
   */
  async chargeOnce(accountId: number, amount: number, operation: string, reference: string): Promise<{ ok: true; amount: number } | { ok: false; balance: number }> {
    const earlier = await this.ledger.findEntry(accountId, operation, reference);
    if (earlier && earlier.amount < 0) return { ok: true, amount: -earlier.amount };
    if (amount <= 0) return { ok: true, amount: 0 };
    const r = await this.ledger.debit(accountId, amount, operation, reference, nowSeconds(this.clock));
    return r.ok ? { ok: true, amount } : { ok: false, balance: r.balance };
  }

  /** The newest posted debit of `operation` with `reference` for the account, or null (not billed). */
  async findCharge(accountId: number, operation: string, reference: string): Promise<{ amount: number; createdAt: number } | null> {
    const e = await this.ledger.findEntry(accountId, operation, reference);
    return e && e.amount < 0 ? { amount: -e.amount, createdAt: e.createdAt } : null;
  }

  /** Gives back credits of a charge whose operation later failed (e.g. a recognition job). */
  async refund(accountId: number, amount: number, operation: string, reference: string | null): Promise<void> {
    if (amount > 0) await this.ledger.credit(accountId, amount, `refund:${operation}`, reference, nowSeconds(this.clock));
  }

  /** The spendable balance (posted minus held). */
  balance(accountId: number): Promise<number> {
    return this.ledger.balance(accountId);
  }

  /**
   * Starts this process's heartbeat and the sweep that releases holds of processes that died; the
   * first sweep runs before it resolves (holds left by a crash are released at start-up once their
   * owner's heartbeat is stale). Returns a stop function.
   */
  async startHoldKeeper(): Promise<() => void> {
    await this.#beat();
    this.#timer = setInterval(() => {
      this.#beat().catch((e) => this.#options.report?.(e, 'billing heartbeat'));
    }, this.#options.heartbeatMs);
    this.#timer.unref();
    return () => {
      if (this.#timer) clearInterval(this.#timer);
      this.#timer = null;
    };
  }

  async #beat(): Promise<void> {
    const nowMs = this.clock.nowMs();
    await this.ledger.heartbeat(this.owner, nowMs);
    await this.ledger.releaseOrphanedHolds(this.owner, nowMs - this.#options.staleAfterMs);
  }

  async #hold(scope: Settlement, accountId: number, amount: number, operation: string, reference: string | null, final: number | null, upTo?: number): Promise<void> {
    const r = await this.ledger.hold(accountId, amount, operation, reference, this.owner, nowSeconds(this.clock), upTo);
    if (!r.ok) throw insufficient(amount, r.balance);
    const h: ScopeHold = { holdId: r.holdId, accountId, reference, operation, held: r.held ?? amount, final };
    // The scope was settled while the hold was being written (the client went away): let it go.
    if (scope.settled) await this.#captureOrRelease(h, false);
    else scope.holds.push(h);
  }

  async #captureOrRelease(h: ScopeHold, delivered: boolean): Promise<void> {
    // One retry: a capture that still fails leaves the hold, released by the sweep if this process
    // dies, otherwise reported (the operator's reconciliation finds it by its reference).
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        if (delivered && h.final !== null && h.final > 0) {
          const captured = await this.ledger.capture(h.holdId, h.final, nowSeconds(this.clock));
          // The hold was swept (this process looked dead to another one): the response was delivered,
          // so it is charged as a plain debit, which never overdraws.
          if (!captured) {
            const r = await this.ledger.debit(h.accountId, h.final, h.operation, h.reference, nowSeconds(this.clock));
            if (!r.ok) this.#options.report?.(new Error(`hold ${h.holdId} was swept and the balance no longer covers ${h.final}`), 'settling credit hold');
          }
        } else await this.ledger.release(h.holdId);
        return;
      } catch (e) {
        if (attempt === 1) this.#options.report?.(e, `settling credit hold ${h.holdId}`);
      }
    }
  }
}

function insufficient(required: number, balance: number): AppError {
  return new AppError('insufficient_credits', `This operation costs ${required} credits; the balance is ${balance}.`, {
    extra: { required_credits: required, balance },
  });
}
