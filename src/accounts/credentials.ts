// Authentication of a presented credential (interface, Authentication): an API key from `X-Api-Key`
// or `Authorization: Bearer`, or an OAuth access token (verifiers added by the auth capability).
import type { Principal } from '../domain/principal.js';

/** Turns a presented secret into a principal, or null when this verifier does not accept it. */
export interface CredentialVerifier {
  verify(credential: string): Promise<Principal | null>;
}

/** Tries each verifier in order; the first principal wins. */
export class CredentialChain implements CredentialVerifier {
  constructor(private readonly verifiers: readonly CredentialVerifier[]) {}
  async verify(credential: string): Promise<Principal | null> {
    for (const v of this.verifiers) {
      const p = await v.verify(credential);
      if (p) return p;
    }
    return null;
  }
}
