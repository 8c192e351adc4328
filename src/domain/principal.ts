// Who is calling: the result of authentication, carried by every authenticated request.

/** `session`: a person signed in to the web pages with the session cookie (src/http/routes/web/). */
export type CredentialKind = 'api_key' | 'oauth' | 'session';

export interface Principal {
  accountId: number;
  credential: CredentialKind;
  /** API key id or access-token id (never the secret). */
  credentialId: string;
  /** Granted scopes; API keys carry every scope. */
  scopes: readonly string[];
  /** OAuth client id for tokens from a registered client, else null. */
  clientId: string | null;
  /** True for OAuth access tokens (agents acting for a person); API keys are the account itself. */
  isAgent: boolean;
  /**
   * The resource an OAuth access token was issued for (its audience: {mcp_url} or the legacy MCP
   * address); null for API keys, which are accepted everywhere (auth requirements, decisions 5 and 7).
   */
  audience: string | null;
}
