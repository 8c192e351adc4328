// Secrets the authorization server hands out (codes, refresh tokens, claim and attempt tokens,
// sessions, email links, client secrets): `<prefix>_<id>_<secret>` where `id` (16 hex, public, the
// lookup key, safe to log) finds the record and `secret` (43 base64url characters = 256 bits, auth
// requirement 90) is never stored: only the SHA-256 of the whole token is, compared in constant time
// (the same scheme as API keys, accounts/api-keys.ts).
import { createHash, createHmac, hkdfSync, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

export interface IssuedSecret {
  /** Public lookup id. */
  id: string;
  /** The whole token, shown once. */
  token: string;
  /** SHA-256 of the token, hex: what is stored. */
  hash: string;
}

export const digest = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Constant-time comparison of a presented token with a stored digest. */
export function matchesDigest(token: string, hash: string): boolean {
  const a = Buffer.from(digest(token), 'hex');
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && a.length > 0 && timingSafeEqual(a, b);
}

/** Constant-time equality of two strings (lengths may differ; that alone is not secret). */
export function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const shape = (id: string, secret: string, prefix: string): IssuedSecret => {
  const token = `${prefix}_${id}_${secret}`;
  return { id, token, hash: digest(token) };
};

/** A new random secret with the given prefix (e.g. `lrt` for refresh tokens). */
export function issueSecret(prefix: string): IssuedSecret {
  return shape(randomBytes(8).toString('hex'), randomBytes(32).toString('base64url'), prefix);
}

/**
 * The secret deterministically derived from `from` under `key` (HMAC-SHA-512): unpredictable without
 * the key, yet recomputable from the presented token. Refresh-token rotation uses it to answer a
 * concurrent refresh with the successor already issued, without storing any token in the clear.
 */
export function deriveSecret(key: Buffer, prefix: string, from: string): IssuedSecret {
  const mac = createHmac('sha512', key).update(`successor|${from}`).digest();
  return shape(mac.subarray(0, 8).toString('hex'), mac.subarray(8, 40).toString('base64url'), prefix);
}

/** The public id of a token with this prefix, or null when the token does not have the shape. */
export function secretId(prefix: string, token: string): string | null {
  const m = new RegExp(`^${prefix}_([0-9a-f]{16})_[A-Za-z0-9_-]{43}$`).exec(token);
  return m ? m[1]! : null;
}

/** A random identifier (not a secret) with a prefix, e.g. `reg_…`, `gr_…`. */
export const randomId = (prefix: string): string => `${prefix}_${randomBytes(12).toString('base64url')}`;

/** A six-digit user code, uniformly drawn. */
export const userCode = (): string => String(randomInt(0, 1_000_000)).padStart(6, '0');

/** A 32-byte subkey of the server secret for one purpose (HKDF-SHA-256). */
export const subkey = (secret: string, purpose: string): Buffer => Buffer.from(hkdfSync('sha256', secret, 'lectern', `lectern auth ${purpose}`, 32));
