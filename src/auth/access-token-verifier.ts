// The CredentialVerifier for OAuth access tokens, for the CredentialChain every API and MCP request
// goes through: `Authorization: Bearer <access token>` -> Principal {credential: 'oauth', isAgent: true,
// clientId, audience, scopes}. Checks the signature, issuer, expiry and the server-side record (so a
// revoked token or a revoked connection is refused at once: requirement 69).
import type { CredentialVerifier } from '../accounts/credentials.js';
import type { Principal } from '../domain/principal.js';
import type { TokenService } from './tokens.js';

export class AccessTokenVerifier implements CredentialVerifier {
  constructor(private readonly tokens: TokenService) {}
  async verify(credential: string): Promise<Principal | null> {
    return (await this.tokens.verifyAccessToken(credential))?.principal ?? null;
  }
}
