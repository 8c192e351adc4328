// API keys: `lk_<id>_<secret>` where id is 12 hex characters (the lookup key, safe to log) and secret
// is 43 base64url characters (256 bits). Only the SHA-256 of the whole key is stored; a presented key
// is found by id and its hash compared in constant time. API keys are random, not passwords, so a
// fast hash is enough (no dictionary to guess from).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Principal } from '../domain/principal.js';
import type { AccountStore, ApiKeyRecord, ApiKeyStore } from '../ports/account-store.js';
import type { Clock } from '../ports/clock.js';
import { nowSeconds } from '../ports/clock.js';

const KEY_RE = /^lk_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** Constant-time comparison of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** A new random key; the caller shows `key` once and stores only `hash`. */
export function generateApiKey(): { id: string; key: string; hash: string } {
  const id = randomBytes(6).toString('hex');
  const key = `lk_${id}_${randomBytes(32).toString('base64url')}`;
  return { id, key, hash: hashSecret(key) };
}

/** Every scope an API key carries (an API key is the account itself). */
export const API_KEY_SCOPES: readonly string[] = ['search'];

export class ApiKeyService {
  constructor(
    private readonly keys: ApiKeyStore,
    private readonly accounts: AccountStore,
    private readonly clock: Clock,
  ) {}

  /** Creates a key for the account and returns it once. */
  async create(accountId: number, label: string | null = null): Promise<{ key: string; record: ApiKeyRecord }> {
    const account = await this.accounts.get(accountId);
    if (!account) throw new Error(`no account ${accountId}`);
    const g = generateApiKey();
    const record = await this.keys.create({ id: g.id, accountId, hash: g.hash, label, createdAt: nowSeconds(this.clock) });
    return { key: g.key, record };
  }

  async revoke(keyIdOrKey: string): Promise<boolean> {
    const m = KEY_RE.exec(keyIdOrKey);
    return this.keys.revoke(m ? m[1]! : keyIdOrKey, nowSeconds(this.clock));
  }

  /** The principal for a presented key, or null when it is malformed, unknown or revoked. */
  async verify(presented: string): Promise<Principal | null> {
    const m = KEY_RE.exec(presented);
    if (!m) return null;
    const record = await this.keys.get(m[1]!);
    const ok = sameDigest(hashSecret(presented), record?.hash ?? '0'.repeat(64));
    if (!record || !ok || record.revokedAt !== null) return null;
    return { accountId: record.accountId, credential: 'api_key', credentialId: record.id, scopes: API_KEY_SCOPES, clientId: null, isAgent: false, audience: null };
  }

  /** True when the string has the shape of an API key (so other verifiers can skip it). */
  static looksLikeKey(s: string): boolean {
    return KEY_RE.test(s);
  }
}
