// Feedback tokens (interface: SearchTrajectory.feedback_token): a bounded, expiring capability to rate
// the results of one retrieval. `<payload>.<mac>`: payload is base64url JSON {t: trajectory id,
// a: account id, e: expiry (Unix s)}, mac is HMAC-SHA256 over the payload with the server secret.
// Verification is constant-time. Tokens are stateless, so nothing is stored per search.
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface FeedbackClaims {
  trajectoryId: string;
  accountId: number;
  /** Unix seconds. */
  expiresAt: number;
}

/** Lifetime of a feedback token: 7 days. */
export const FEEDBACK_TOKEN_TTL_S = 7 * 86_400;

const mac = (secret: string, payload: string) => createHmac('sha256', `lectern-feedback:${secret}`).update(payload).digest('base64url');

export function signFeedbackToken(secret: string, c: FeedbackClaims): string {
  const payload = Buffer.from(JSON.stringify({ t: c.trajectoryId, a: c.accountId, e: c.expiresAt })).toString('base64url');
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
    const p = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { t?: unknown; a?: unknown; e?: unknown };
    if (typeof p.t !== 'string' || typeof p.a !== 'number' || typeof p.e !== 'number' || p.e < now) return null;
    return { trajectoryId: p.t, accountId: p.a, expiresAt: p.e };
  } catch {
    return null;
  }
}
