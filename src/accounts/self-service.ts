// What a person manages on their own account page: the balance and usage history (the credit ledger)
// and their API keys (create, shown once; list; revoke). Every operation is scoped to the caller's
// account: a key id of another account is "not found", never revoked.
import { AppError } from '../domain/errors.js';
import type { ApiKeyRecord, ApiKeyStore } from '../ports/account-store.js';
import type { CreditLedger, LedgerEntry } from '../ports/credit-ledger.js';
import type { ApiKeyService } from './api-keys.js';

/** Keys an account may hold at once (unrevoked). */
export const MAX_ACTIVE_KEYS = 20;
/** Label length limit, characters. */
export const MAX_KEY_LABEL = 80;

export class SelfService {
  constructor(
    private readonly apiKeys: ApiKeyService,
    private readonly keys: ApiKeyStore,
    private readonly ledger: CreditLedger,
  ) {}

  async balance(accountId: number): Promise<number> {
    return this.ledger.balance(accountId);
  }

  /** The newest `limit` (1..500) ledger entries, newest first. */
  async usage(accountId: number, limit = 50): Promise<LedgerEntry[]> {
    return this.ledger.entries(accountId, Math.max(1, Math.min(500, Math.floor(limit))));
  }

  /** The account's keys, newest first (revoked ones included, marked). */
  async keysOf(accountId: number): Promise<ApiKeyRecord[]> {
    return (await this.keys.listByAccount(accountId)).sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
  }

  /** A new key for the account; the key is returned once and only its hash is kept. 422 over the limits. */
  async createKey(accountId: number, label: string): Promise<{ key: string; record: ApiKeyRecord }> {
    const clean = label.trim();
    if (clean.length > MAX_KEY_LABEL) throw new AppError('validation_failed', `The key name is longer than ${MAX_KEY_LABEL} characters; shorten it.`);
    const active = (await this.keys.listByAccount(accountId)).filter((k) => k.revokedAt === null).length;
    if (active >= MAX_ACTIVE_KEYS) throw new AppError('validation_failed', `This account already has ${MAX_ACTIVE_KEYS} active keys; revoke one first.`);
    return this.apiKeys.create(accountId, clean || null);
  }

  /** Revokes one of the account's own keys; 404 when the id is not one of them or already revoked. */
  async revokeKey(accountId: number, keyId: string): Promise<void> {
    const record = /^[0-9a-f]{12}$/.test(keyId) ? await this.keys.get(keyId) : null;
    if (!record || record.accountId !== accountId || record.revokedAt !== null) throw new AppError('not_found', 'No active key with that id on this account.');
    await this.apiKeys.revoke(record.id);
  }
}
