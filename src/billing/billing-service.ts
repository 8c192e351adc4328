// Charging credits for operations. A charge happens only after the operation succeeded (a failed
// request charges nothing); a charge the balance cannot cover is refused with 402 and leaves no entry.
import { AppError } from '../domain/errors.js';
import type { Principal } from '../domain/principal.js';
import type { Clock } from '../ports/clock.js';
import { nowSeconds } from '../ports/clock.js';
import type { CreditLedger } from '../ports/credit-ledger.js';

export class BillingService {
  constructor(
    private readonly ledger: CreditLedger,
    private readonly clock: Clock,
  ) {}

  /** Throws `insufficient_credits` (402) when the balance is below `minimum` (a cheap pre-check). */
  async requireBalance(principal: Principal, minimum: number): Promise<void> {
    if (minimum <= 0) return;
    const balance = await this.ledger.balance(principal.accountId);
    if (balance < minimum) throw insufficient(minimum, balance);
  }

  /**
   * Debits `amount` credits for `operation`; `reference` is the request id. Zero costs write nothing.
   * @returns the balance afterwards
   */
  async charge(principal: Principal, amount: number, operation: string, reference: string | null): Promise<number> {
    if (amount <= 0) return this.ledger.balance(principal.accountId);
    const r = await this.ledger.debit(principal.accountId, amount, operation, reference, nowSeconds(this.clock));
    if (!r.ok) throw insufficient(amount, r.balance);
    return r.balance;
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

  /** Gives back credits of a charge whose operation later failed (e.g. a recognition job). */
  async refund(accountId: number, amount: number, operation: string, reference: string | null): Promise<void> {
    if (amount > 0) await this.ledger.credit(accountId, amount, `refund:${operation}`, reference, nowSeconds(this.clock));
  }

  balance(accountId: number): Promise<number> {
    return this.ledger.balance(accountId);
  }
}

function insufficient(required: number, balance: number): AppError {
  return new AppError('insufficient_credits', `This operation costs ${required} credits; the balance is ${balance}.`, {
    extra: { required_credits: required, balance },
  });
}
