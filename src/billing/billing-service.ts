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

/**
 * This process's standing hold for one account (ADR 0332): one hold row in the store that covers the
 * account's requests in progress here. A request reserves its credits from it in memory, and at
 * delivery its charge is drawn from it (`drawFromHold`: one ledger op, the credits held again when the
 * balance covers them); the row is grown when its free part is short and released once no request of
 * the account has run for `standingHoldIdleMs`.
 */
interface StandingHold {
  accountId: number;
  holdId: number;
  /** Credits the hold row has in the store (as this process last wrote it). */
  size: number;
  /** Of them, reserved by requests in progress here. */
  used: number;
  /** False once released or found gone (swept): new requests open a new one. */
  live: boolean;
  timer: NodeJS.Timeout | null;
}

interface ScopeHold {
  holdId: number;
  /** The standing hold it was reserved from (ADR 0332), or null: a hold row of its own. */
  standing: StandingHold | null;
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
  /**
   * One standing hold per account for the requests in progress (ADR 0332): a request's hold is taken
   * from it in memory and its charge drawn from it at delivery, one ledger op per request instead of
   * two. False: a hold row per operation (ADR 0078).
   */
  standingHolds?: boolean;
  /** With standingHolds: how long an account's standing hold is kept after its last request ended, ms. */
  standingHoldIdleMs?: number;
}

const DEFAULT_OPTIONS: BillingOptions = { heartbeatMs: 5_000, staleAfterMs: 20_000, standingHolds: false, standingHoldIdleMs: 1_000 };

/** The operation recorded on a standing hold's row (docs/billing.md). */
export const STANDING_HOLD_OPERATION = 'requests';

/**
 * Attempts of a standing hold's draw (ADR 0332): the first, a retry after any failure (its key makes it
 * idempotent), and one more for the retry that raced its own first attempt still running on a lost
 * connection (the unique key refuses one of them, writing nothing).
 */
const SETTLE_ATTEMPTS = 3;

export class BillingService {
  /** This process's identity on its holds. */
  readonly owner = randomUUID();
  readonly #scopes = new AsyncLocalStorage<Settlement>();
  readonly #settling = new Set<Promise<void>>();
  /** The standing holds of this process by account (ADR 0332), and the growth of one in progress. */
  readonly #standing = new Map<number, StandingHold>();
  readonly #growing = new Map<number, Promise<void>>();
  #open = 0;
  /** Settlement keys made so far (ADR 0332). */
  #settlements = 0;
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
    const balance = await this.balance(principal.accountId);
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
      if (amount > mine.held && mine.standing) {
        await this.#growReservation(scope, mine, amount);
      } else if (amount > mine.held) {
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
    for (;;) {
      while (this.#settling.size > 0 || this.#growing.size > 0) await Promise.allSettled([...this.#settling, ...this.#growing.values()]);
      // the standing holds no request uses are given back now (shutdown; tests reading the books)
      const unused = [...this.#standing.values()].filter((s) => s.used === 0);
      if (unused.length === 0) return;
      for (const s of unused) this.#trim(s);
    }
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

  /** The spendable balance (posted minus held; this process's standing hold counts only for what its requests use). */
  async balance(accountId: number): Promise<number> {
    return (await this.ledger.balance(accountId)) + this.#free(accountId);
  }

  /** Credits of the account's standing hold here that no request in progress uses. */
  #free(accountId: number): number {
    const s = this.#standing.get(accountId);
    return s && s.live ? s.size - s.used : 0;
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
    if (this.#options.standingHolds) {
      const r = await this.#reserve(accountId, amount, upTo ?? amount);
      if (!r.ok) throw insufficient(amount, r.balance);
      const h: ScopeHold = { holdId: r.standing.holdId, standing: r.standing, accountId, reference, operation, held: r.took, final };
      if (scope.settled) await this.#captureOrRelease(h, false);
      else scope.holds.push(h);
      return;
    }
    const r = await this.ledger.hold(accountId, amount, operation, reference, this.owner, nowSeconds(this.clock), upTo);
    if (!r.ok) throw insufficient(amount, r.balance);
    const h: ScopeHold = { holdId: r.holdId, standing: null, accountId, reference, operation, held: r.held ?? amount, final };
    // The scope was settled while the hold was being written (the client went away): let it go.
    if (scope.settled) await this.#captureOrRelease(h, false);
    else scope.holds.push(h);
  }

  /**
   * Reserves credits for a request from the account's standing hold: `want` when it (grown if need be)
   * covers that, else at least `min`; the hold is grown by what is missing (one op, serialized per
   * account). Refused with the spendable balance (this process's free standing credits included).
   */
  async #reserve(accountId: number, min: number, want: number): Promise<{ ok: true; standing: StandingHold; took: number } | { ok: false; balance: number }> {
    for (let grown = false; ; ) {
      const s = this.#standing.get(accountId);
      const free = s && s.live ? s.size - s.used : 0;
      if (s && s.live && (free >= want || (grown && free >= min))) {
        const took = Math.min(free, want);
        s.used += took;
        if (s.timer) clearTimeout(s.timer);
        s.timer = null;
        return { ok: true, standing: s, took };
      }
      const busy = this.#growing.get(accountId);
      if (busy) {
        await busy.catch(() => {});
        continue;
      }
      let refused: number | null = null;
      const growth = (async () => {
        const at = nowSeconds(this.clock);
        if (!s || !s.live) {
          const r = await this.ledger.hold(accountId, min, STANDING_HOLD_OPERATION, null, this.owner, at, want > min ? want : undefined);
          if (!r.ok) refused = r.balance;
          else this.#standing.set(accountId, { accountId, holdId: r.holdId, size: r.held ?? min, used: 0, live: true, timer: null });
          return;
        }
        // the most this request may take, else what it needs at least
        for (const more of want - free > Math.max(min - free, 0) && min > free ? [want - free, min - free] : [want - free]) {
          const r = await this.ledger.extendHold(s.holdId, more);
          if (r === null) return this.#drop(s); // swept meanwhile: a new one is opened
          if (r.ok) {
            s.size += more;
            refused = null;
            return;
          }
          refused = r.balance + (s.live ? s.size - s.used : 0);
        }
        // the free part covers the least it needs: taken below
        if (free >= min) refused = null;
      })();
      this.#growing.set(accountId, growth);
      try {
        await growth;
      } finally {
        if (this.#growing.get(accountId) === growth) this.#growing.delete(accountId);
      }
      if (refused !== null) return { ok: false, balance: refused };
      grown = true;
    }
  }

  /** Grows a request's reservation to `amount` (402 when the balance cannot cover it). */
  async #growReservation(scope: Settlement, mine: ScopeHold, amount: number): Promise<void> {
    const s = mine.standing!;
    // settled while this was reserved (the client went away): what was just taken goes back
    const late = (r: { standing: StandingHold; took: number }) => {
      if (!scope.settled) return false;
      r.standing.used -= r.took;
      this.#maybeTrim(r.standing);
      return true;
    };
    if (s.live) {
      const r = await this.#reserve(mine.accountId, amount - mine.held, amount - mine.held);
      if (!r.ok) throw insufficient(amount, r.balance + mine.held);
      if (late(r)) return;
      if (r.standing === s) {
        mine.held = amount;
        return;
      }
      r.standing.used -= r.took; // s was swept meanwhile: the whole price from the new one below
      this.#maybeTrim(r.standing);
    }
    // Its standing hold was swept (this process looked dead): the whole price afresh.
    const r = await this.#reserve(mine.accountId, amount, amount);
    if (!r.ok) throw insufficient(amount, r.balance);
    if (late(r)) return;
    mine.standing = r.standing;
    mine.holdId = r.standing.holdId;
    mine.held = r.took;
  }

  /** Forgets a standing hold that is gone from the store or being released. */
  #drop(s: StandingHold): void {
    s.live = false;
    if (s.timer) clearTimeout(s.timer);
    s.timer = null;
    if (this.#standing.get(s.accountId) === s) this.#standing.delete(s.accountId);
  }

  /** After a request let go of its reservation: a standing hold no request uses is released after the idle time. */
  #maybeTrim(s: StandingHold): void {
    if (!s.live || s.used > 0 || s.timer) return;
    const idleMs = this.#options.standingHoldIdleMs ?? 1_000;
    s.timer = setTimeout(() => {
      s.timer = null;
      if (s.used === 0 && !this.#growing.has(s.accountId)) this.#trim(s);
    }, idleMs);
    s.timer.unref();
  }

  /** Releases a standing hold now (no request uses it). */
  #trim(s: StandingHold): void {
    if (!s.live || s.used > 0) return;
    this.#drop(s);
    const done = (async () => {
      try {
        await this.ledger.release(s.holdId);
      } catch (e) {
        // left to the sweep if this process dies; reported otherwise
        this.#options.report?.(e, `releasing standing credit hold ${s.holdId}`);
      }
    })();
    this.#settling.add(done);
    void done.finally(() => this.#settling.delete(done));
  }

  /** Settles a reservation of a standing hold: its charge drawn from the hold when delivered (one op). */
  async #settleStanding(h: ScopeHold, s: StandingHold, delivered: boolean): Promise<void> {
    try {
      if (!(delivered && h.final !== null && h.final > 0)) return; // released: in memory only
      // The draw is idempotent by its settlement key, made once before the first attempt and recorded
      // on the entry (unique): an attempt that finds it written returns that outcome and writes nothing.
      // So it is retried after any failure, of known outcome or not (a connection lost around COMMIT):
      // charged once, never doubled, never lost to an unknown outcome.
      const key = this.#settlementKey();
      for (let attempt = 0; attempt < SETTLE_ATTEMPTS; attempt++) {
        try {
          const r = s.live ? await this.ledger.drawFromHold(s.holdId, h.final, h.operation, h.reference, nowSeconds(this.clock), key) : null;
          if (r) {
            if (!r.kept) s.size -= h.final;
            // drawn whole (only this request's reservation was in it): the row is gone. The store says so,
            // not this process's count, which may not yet include a growth committed before the draw.
            if (r.held === 0) this.#drop(s);
            return;
          }
          // Swept (this process looked dead to another one): delivered, so a plain debit, which never
          // overdraws; with the same key, so that it finds an earlier attempt's draw or debit.
          this.#drop(s);
          const d = await this.ledger.debit(h.accountId, h.final, h.operation, h.reference, nowSeconds(this.clock), key);
          if (!d.ok) this.#options.report?.(new Error(`standing hold ${s.holdId} was swept and the balance no longer covers ${h.final}`), 'settling credit hold');
          return;
        } catch (e) {
          if (attempt === SETTLE_ATTEMPTS - 1) this.#options.report?.(e, `charging ${h.final} for ${h.operation} ${h.reference ?? ''} from standing hold ${s.holdId}`);
        }
      }
    } finally {
      s.used -= h.held;
      this.#maybeTrim(s);
    }
  }

  /** A settlement key unique to one charge: this process's id and a counter (ascending here, so a key's index entry lands next to the previous one). */
  #settlementKey(): string {
    return `${this.owner}:${(this.#settlements++).toString(36).padStart(8, '0')}`;
  }

  async #captureOrRelease(h: ScopeHold, delivered: boolean): Promise<void> {
    if (h.standing) return this.#settleStanding(h, h.standing, delivered);
    // One retry: a capture that still fails leaves the hold, released by the sweep if this process
    // dies, otherwise reported (the operator's reconciliation finds it by its reference).
    // The charge's settlement key (ADR 0332) is on the capture's entry: a retry after a capture of
    // unknown outcome that committed finds the hold gone, and its debit finds the key (no second charge).
    const key = delivered && h.final !== null && h.final > 0 ? this.#settlementKey() : null;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        if (delivered && h.final !== null && h.final > 0) {
          const captured = await this.ledger.capture(h.holdId, h.final, nowSeconds(this.clock), key);
          // The hold was swept (this process looked dead to another one): the response was delivered,
          // so it is charged as a plain debit, which never overdraws.
          if (!captured) {
            const r = await this.ledger.debit(h.accountId, h.final, h.operation, h.reference, nowSeconds(this.clock), key);
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
