// PKCE (RFC 7636) with the S256 method only (OAuth 2.1 §4.1.1; interface: mandatory S256).
import { createHash } from 'node:crypto';
import { sameString } from './secrets.js';

/** A code_challenge of S256: base64url of a SHA-256 digest, 43 characters. */
export const CHALLENGE_RE = /^[A-Za-z0-9_-]{43}$/;
/** A code_verifier: 43 to 128 unreserved characters (RFC 7636 §4.1). */
export const VERIFIER_RE = /^[A-Za-z0-9\-._~]{43,128}$/;

export const s256 = (verifier: string): string => createHash('sha256').update(verifier, 'ascii').digest('base64url');

/** True when BASE64URL(SHA256(verifier)) equals the challenge (RFC 7636 §4.6), compared in constant time. */
export function verifyPkce(verifier: string, challenge: string): boolean {
  if (!VERIFIER_RE.test(verifier) || !CHALLENGE_RE.test(challenge)) return false;
  return sameString(s256(verifier), challenge);
}
