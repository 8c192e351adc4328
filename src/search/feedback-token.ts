// Feedback tokens (interface: SearchTrajectory.feedback_token): a bounded, expiring capability to rate
// the results of one retrieval. `<payload>.<mac>`: payload is base64url JSON {t: trajectory id,
// a: account id, e: expiry (Unix s), q: the query and i: the searched indexes when the query is at most
// FEEDBACK_QUERY_MAX_BYTES}, mac is HMAC-SHA256 over the payload with the server secret.
// Verification is constant-time. Tokens are stateless, so nothing is stored per search; the signed query
// lets the feedback a token carries be stored with the query it judges (`lectern ranking train`, ADR 0128).
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

export interface FeedbackClaims {
  trajectoryId: string;
  accountId: number;
  /** Unix seconds. */
  expiresAt: number;
  /** The query the results answered and the indexes searched (absent for longer queries and older tokens). */
  query?: string;
  indexNames?: string[];
}

/** Longest query (UTF-8 bytes) a token carries; longer ones keep the token short and cannot train rankers. */
export const FEEDBACK_QUERY_MAX_BYTES = 1024;

/** Lifetime of a feedback token: 7 days. */
export const FEEDBACK_TOKEN_TTL_S = 7 * 86_400;

/** The HMAC key as a KeyObject, made once per secret (issue 29: a string key is imported again on every call). */
let keyOf: { secret: string; key: KeyObject } | null = null;
function feedbackKey(secret: string): KeyObject {
  if (keyOf?.secret !== secret) keyOf = { secret, key: createSecretKey(Buffer.from(`lectern-feedback:${secret}`, 'utf8')) };
  return keyOf.key;
}

const mac = (secret: string, payload: string) => createHmac('sha256', feedbackKey(secret)).update(payload).digest('base64url');

export function signFeedbackToken(secret: string, c: FeedbackClaims): string {
  const withQuery = c.query !== undefined && Buffer.byteLength(c.query, 'utf8') <= FEEDBACK_QUERY_MAX_BYTES;
  const claims = { t: c.trajectoryId, a: c.accountId, e: c.expiresAt, ...(withQuery ? { q: c.query, i: c.indexNames ?? [] } : {}) };
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${payload}.${mac(secret, payload)}`;
}

/** The claims of a valid, unexpired token, or null. */
export function verifyFeedbackToken(secret: string, token: string, now: number): FeedbackClaims | null {
  const [payload, sig, extra] = token.split('.');
  if (!payload || !sig || extra !== undefined) return null;
  const want = Buffer.from(mac(secret, payload));
  const got = Buffer.from(sig);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return null;
  try {
    const p = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { t?: unknown; a?: unknown; e?: unknown; q?: unknown; i?: unknown };
    if (typeof p.t !== 'string' || typeof p.a !== 'number' || typeof p.e !== 'number' || p.e < now) return null;
    const claims: FeedbackClaims = { trajectoryId: p.t, accountId: p.a, expiresAt: p.e };
    if (typeof p.q === 'string') {
      claims.query = p.q;
      claims.indexNames = Array.isArray(p.i) ? p.i.filter((x): x is string => typeof x === 'string') : [];
    }
    return claims;
  } catch {
    return null;
  }
}
