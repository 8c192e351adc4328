// CSRF tokens for every form (RFC 9700 §4.7): HMAC-SHA-256 under a subkey of the server secret over a
// binding the attacker cannot read: the session id when signed in, else the browser's random
// `lectern_browser` cookie (so the sign-in form itself is protected against login CSRF). Stateless;
// compared in constant time.
import { createHmac } from 'node:crypto';
import { sameString, subkey } from './secrets.js';

export class Csrf {
  readonly #key: Buffer;
  constructor(secret: string) {
    this.#key = subkey(secret, 'csrf');
  }
  token(binding: string): string {
    return createHmac('sha256', this.#key).update(`csrf|${binding}`).digest('base64url');
  }
  check(binding: string, presented: unknown): boolean {
    return typeof presented === 'string' && sameString(this.token(binding), presented);
  }
}
