// Authorization server metadata (RFC 8414), with Lectern's `agent_auth` object (interface: Discovery).
// Client ID metadata documents are not supported, and nothing is said about them (decision 6).
import { authUrl, CLAIM_GRANT, JWT_BEARER_GRANT, SCOPE, type AuthSettings } from './settings.js';

export function authorizationServerMetadata(settings: AuthSettings): Record<string, unknown> {
  const u = (p: Parameters<typeof authUrl>[1]) => authUrl(settings, p);
  return {
    issuer: settings.issuer,
    authorization_endpoint: u('authorize'),
    token_endpoint: u('token'),
    registration_endpoint: u('register'),
    revocation_endpoint: u('revoke'),
    jwks_uri: u('jwks'),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', JWT_BEARER_GRANT, CLAIM_GRANT],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: [SCOPE],
    authorization_response_iss_parameter_supported: true,
    service_documentation: u('skill'),
    agent_auth: {
      skill: u('skill'),
      identity_endpoint: u('identity'),
      claim_endpoint: u('claim'),
      claim_complete_uri: u('claimComplete'),
      revocation_uri: u('revoke'),
      identity_types_supported: ['service_auth'],
      credential_types_supported: ['access_token'],
    },
  };
}
