// Operator tasks on accounts: create with credits and a first API key, top up, inspect.
import type { Account, AccountStore } from '../ports/account-store.js';
import type { Clock } from '../ports/clock.js';
import { nowSeconds } from '../ports/clock.js';
import type { CreditLedger } from '../ports/credit-ledger.js';
import { AppError } from '../domain/errors.js';
import type { ApiKeyService } from './api-keys.js';

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export class AccountService {
  constructor(
    private readonly accounts: AccountStore,
    private readonly ledger: CreditLedger,
    private readonly apiKeys: ApiKeyService,
    private readonly clock: Clock,
  ) {}

  /** Creates an account, grants `credits` (a ledger top-up) and returns a new API key (shown once). */
  async create(input: { email: string; credits?: number; eligible?: boolean; emailVerified?: boolean }): Promise<{ account: Account; apiKey: string; balance: number }> {
    if (!EMAIL_RE.test(input.email)) throw new AppError('bad_request', `Not an email address: ${input.email}`);
    const credits = input.credits ?? 0;
    if (!Number.isSafeInteger(credits) || credits < 0) throw new AppError('bad_request', 'credits must be a non-negative integer');
    const account = await this.accounts.create({ email: input.email, eligibleForOriginals: input.eligible ?? false, emailVerified: input.emailVerified ?? true });
    let balance = 0;
    if (credits > 0) balance = (await this.ledger.credit(account.id, credits, 'topup', 'account created', nowSeconds(this.clock))).balance;
    const { key } = await this.apiKeys.create(account.id, 'default');
    return { account, apiKey: key, balance };
  }

  async find(idOrEmail: string): Promise<Account | null> {
    return /^\d+$/.test(idOrEmail) ? this.accounts.get(Number(idOrEmail)) : this.accounts.getByEmail(idOrEmail);
  }

  async topUp(accountId: number, credits: number, note: string | null = null): Promise<number> {
    if (!Number.isSafeInteger(credits) || credits <= 0) throw new AppError('bad_request', 'credits must be a positive integer');
    return (await this.ledger.credit(accountId, credits, 'topup', note, nowSeconds(this.clock))).balance;
  }
}
