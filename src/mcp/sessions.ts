// MCP session ids (Streamable HTTP "Session Management"). Lectern's MCP server keeps no per-session
// state: every request is authenticated on its own credential and served by a fresh server (ADR 0050),
// so a session id only has to be unguessable and bound to the account that created it:
//   s1.<nonce: 128 random bits>.<HMAC-SHA256(key, nonce | account | resource), base64url>
// Any instance can check it without a shared store. A session id presented with another account's
// credential, or for the other resource address, does not verify (auth requirements item 12: "a session
// created under user A and presented with user B's token is rejected"). It is bound to the account, not
// to the token, so a client keeps its session across token refreshes.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const PREFIX = 's1';

export class SessionIds {
  readonly #key: Buffer;

  /** @param secret the server secret; the session key is derived from it for this purpose only */
  constructor(secret: string) {
    this.#key = createHmac('sha256', secret).update('lectern mcp session id v1').digest();
  }

  #mac(nonce: string, accountId: number, resource: string): Buffer {
    return createHmac('sha256', this.#key).update(`${nonce}\n${accountId}\n${resource}`).digest();
  }

  /** A new session id for `accountId` at `resource`: visible ASCII only (base64url and dots). */
  issue(accountId: number, resource: string): string {
    const nonce = randomBytes(16).toString('base64url');
    return `${PREFIX}.${nonce}.${this.#mac(nonce, accountId, resource).toString('base64url')}`;
  }

  /** True when `sessionId` was issued by this service to `accountId` at `resource`. */
  verify(sessionId: string, accountId: number, resource: string): boolean {
    const parts = sessionId.split('.');
    if (parts.length !== 3 || parts[0] !== PREFIX || !/^[A-Za-z0-9_-]{22}$/.test(parts[1]!) || !/^[A-Za-z0-9_-]{43}$/.test(parts[2]!)) return false;
    const given = Buffer.from(parts[2]!, 'base64url');
    const expected = this.#mac(parts[1]!, accountId, resource);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
