// Traceability of the 92 auth requirements (../shared/guides/auth-requirements.md): each item, who
// owns it, and the test files whose test titles cite its number (`test('[59] ...')`).
// test/auth/requirements.test.ts fails when an item has no citing test, or when a listed file does not
// cite it. Items 1-24 (the MCP resource server) are proved by branch `mcp`; until that branch is merged
// they are listed in PENDING_IN_BRANCH_MCP, which must be empty once it is (the lead empties it when
// merging, and the check then covers all 92).

export interface Requirement {
  /** `auth`: the authorization server (branch auth); `mcp`: the resource server (branch mcp). */
  owner: 'auth' | 'mcp';
  title: string;
  /** Test files (relative to test/) with a test whose title cites this item. */
  tests: readonly string[];
}

export const REQUIREMENTS: Readonly<Record<number, Requirement>> = {
  1: { owner: 'mcp', title: "Every request to {mcp_url} without a credential gets 401", tests: ["mcp/third-party-clients.test.ts", "mcp/transport.test.ts"] },
  2: { owner: 'mcp', title: "The 401 carries WWW-Authenticate: Bearer resource_metadata", tests: ["mcp/socket.test.ts", "mcp/third-party-clients.test.ts", "mcp/transport.test.ts"] },
  3: { owner: 'mcp', title: "The challenge includes scope=\"search\"", tests: ["mcp/third-party-clients.test.ts", "mcp/transport.test.ts"] },
  4: { owner: 'mcp', title: "The challenge is syntactically valid (RFC 9110 §11.2)", tests: ["mcp/transport.test.ts"] },
  5: { owner: 'mcp', title: "No token: a challenge without an error code", tests: ["mcp/transport.test.ts"] },
  6: { owner: 'mcp', title: "Invalid, expired or revoked token: 401 error=\"invalid_token\" with resource_metadata", tests: ["mcp/transport.test.ts"] },
  7: { owner: 'mcp', title: "401 body is ApiError Unauthorized with X-Request-Id; 429 adds Retry-After", tests: ["mcp/socket.test.ts", "mcp/transport.test.ts"] },
  8: { owner: 'mcp', title: "Insufficient scope: 403 with error=\"insufficient_scope\"", tests: ["mcp/transport.test.ts"] },
  9: { owner: 'mcp', title: "Audience binding: only tokens issued for this resource", tests: ["auth/token.test.ts", "mcp/socket.test.ts", "mcp/third-party-clients.test.ts", "mcp/transport.test.ts"] },
  10: { owner: 'mcp', title: "No token passthrough to upstreams", tests: ["mcp/transport.test.ts"] },
  11: { owner: 'mcp', title: "Tokens only from the Authorization header, never the query string", tests: ["auth/token.test.ts", "mcp/transport.test.ts"] },
  12: { owner: 'mcp', title: "Sessions are not authentication", tests: ["mcp/transport.test.ts"] },
  13: { owner: 'mcp', title: "Session ids are random visible ASCII", tests: ["mcp/transport.test.ts"] },
  14: { owner: 'mcp', title: "Origin validated: 403 when present and not allowed", tests: ["mcp/transport.test.ts"] },
  15: { owner: 'mcp', title: "Invalid MCP-Protocol-Version: 400", tests: ["mcp/transport.test.ts"] },
  16: { owner: 'mcp', title: "Streamable HTTP answers (JSON or SSE; 202 for notifications)", tests: ["mcp/socket.test.ts", "mcp/third-party-clients.test.ts", "mcp/transport.test.ts"] },
  17: { owner: 'mcp', title: "A 401 always points at current metadata; stale client_id recoverable", tests: ["mcp/transport.test.ts"] },
  18: { owner: 'mcp', title: "PRM at {mcp_url}/.well-known/oauth-protected-resource", tests: ["mcp/protected-resource.test.ts", "mcp/third-party-clients.test.ts"] },
  19: { owner: 'mcp', title: "PRM also at the RFC 9728 path-inserted and root locations", tests: ["mcp/protected-resource.test.ts", "mcp/socket.test.ts", "mcp/third-party-clients.test.ts"] },
  20: { owner: 'mcp', title: "PRM resource is exactly the URL the client used", tests: ["mcp/protected-resource.test.ts", "mcp/third-party-clients.test.ts"] },
  21: { owner: 'mcp', title: "authorization_servers string-equals the AS issuer", tests: ["auth/metadata.test.ts", "mcp/protected-resource.test.ts", "mcp/third-party-clients.test.ts"] },
  22: { owner: 'mcp', title: "scopes_supported = [\"search\"] without offline_access", tests: ["mcp/protected-resource.test.ts"] },
  23: { owner: 'mcp', title: "bearer_methods_supported = [\"header\"]", tests: ["mcp/protected-resource.test.ts"] },
  24: { owner: 'mcp', title: "The legacy resource address has its own PRM and accepts its tokens", tests: ["auth/auto-consent.test.ts", "mcp/protected-resource.test.ts", "mcp/third-party-clients.test.ts"] },
  25: { owner: 'auth', title: "AS metadata at {auth_url}/.well-known/oauth-authorization-server (and path-inserted)", tests: ["auth/metadata.test.ts"] },
  26: { owner: 'auth', title: "issuer string-identical to {auth_url}", tests: ["auth/metadata.test.ts", "auth/openid-client.test.ts"] },
  27: { owner: 'auth', title: "issuer, authorization_endpoint, token_endpoint, response_types_supported", tests: ["auth/metadata.test.ts"] },
  28: { owner: 'auth', title: "code_challenge_methods_supported includes S256, not plain", tests: ["auth/metadata.test.ts"] },
  29: { owner: 'auth', title: "registration_endpoint advertised", tests: ["auth/metadata.test.ts"] },
  30: { owner: 'auth', title: "revocation_endpoint with auth methods including none", tests: ["auth/metadata.test.ts"] },
  31: { owner: 'auth', title: "token_endpoint_auth_methods_supported includes none", tests: ["auth/metadata.test.ts"] },
  32: { owner: 'auth', title: "grant_types_supported lists code, refresh, jwt-bearer and the claim grant", tests: ["auth/metadata.test.ts"] },
  33: { owner: 'auth', title: "authorization_response_iss_parameter_supported: true", tests: ["auth/metadata.test.ts", "auth/openid-client.test.ts"] },
  34: { owner: 'auth', title: "scopes_supported: [\"search\"]", tests: ["auth/metadata.test.ts"] },
  35: { owner: 'auth', title: "Every endpoint https in production and on the {auth_url} origin", tests: ["auth/metadata.test.ts"] },
  36: { owner: 'auth', title: "agent_auth object with its addresses and types", tests: ["auth/metadata.test.ts"] },
  37: { owner: 'auth', title: "client_id_metadata_document_supported omitted (decision 6)", tests: ["auth/metadata.test.ts"] },
  38: { owner: 'auth', title: "Metadata endpoints answer CORS preflight", tests: ["auth/metadata.test.ts", "mcp/protected-resource.test.ts", "mcp/socket.test.ts"] },
  39: { owner: 'auth', title: "DCR: 201 Created with client_id", tests: ["auth/openid-client.test.ts", "auth/registration.test.ts"] },
  40: { owner: 'auth', title: "DCR echoes the registered metadata; no secret for public clients", tests: ["auth/registration.test.ts"] },
  41: { owner: 'auth', title: "URL-valued metadata absent or a valid URL, never \"\"", tests: ["auth/registration.test.ts"] },
  42: { owner: 'auth', title: "redirect_uris validated: invalid_redirect_uri / invalid_client_metadata", tests: ["auth/registration.test.ts", "auth/units.test.ts"] },
  43: { owner: 'auth', title: "Unknown metadata ignored", tests: ["auth/registration.test.ts"] },
  44: { owner: 'auth', title: "Public clients by default; confidential on request (decision 3)", tests: ["auth/registration.test.ts"] },
  45: { owner: 'auth', title: "Consent page shows client_name and callback host; warns on localhost-only", tests: ["auth/authorize.test.ts"] },
  46: { owner: 'auth', title: "iss in every authorization response", tests: ["auth/authorize.test.ts", "auth/openid-client.test.ts"] },
  47: { owner: 'auth', title: "response_type=code only", tests: ["auth/authorize.test.ts"] },
  48: { owner: 'auth', title: "PKCE enforced (S256 only)", tests: ["auth/authorize.test.ts", "auth/openid-client.test.ts", "auth/units.test.ts"] },
  49: { owner: 'auth', title: "Exact redirect matching with the loopback-port exception", tests: ["auth/authorize.test.ts", "auth/openid-client.test.ts", "auth/units.test.ts"] },
  50: { owner: 'auth', title: "Unknown client or redirect: error page, no redirect", tests: ["auth/authorize.test.ts", "auth/openid-client.test.ts"] },
  51: { owner: 'auth', title: "Other errors redirect with error, state and iss", tests: ["auth/authorize.test.ts"] },
  52: { owner: 'auth', title: "resource = {mcp_url} or legacy; default {mcp_url}; recorded with the code", tests: ["auth/authorize.test.ts", "auth/openid-client.test.ts"] },
  53: { owner: 'auth', title: "scope ⊆ {search}, else invalid_scope", tests: ["auth/authorize.test.ts"] },
  54: { owner: 'auth', title: "state byte-exact; code, state, iss once each", tests: ["auth/authorize.test.ts", "auth/openid-client.test.ts"] },
  55: { owner: 'auth', title: "Sign-in and consent; deny = access_denied; CSRF and clickjacking protection", tests: ["auth/authorize.test.ts"] },
  56: { owner: 'auth', title: "Codes short-lived, single use, bound", tests: ["auth/authorize.test.ts"] },
  57: { owner: 'auth', title: "Token responses JSON with Cache-Control: no-store; errors 400 {error}", tests: ["auth/token.test.ts"] },
  58: { owner: 'auth', title: "Unknown client: 401 invalid_client; registrations survive restarts", tests: ["auth/claim-e2e.test.ts", "auth/openid-client.test.ts", "auth/registration.test.ts", "auth/token.test.ts"] },
  59: { owner: 'auth', title: "authorization_code: PKCE verifier, redirect_uri, client, single use", tests: ["auth/claim-e2e.test.ts", "auth/openid-client.test.ts", "auth/token.test.ts", "auth/units.test.ts"] },
  60: { owner: 'auth', title: "resource in the token request must match: invalid_target", tests: ["auth/openid-client.test.ts", "auth/token.test.ts"] },
  61: { owner: 'auth', title: "Success response fields (Bearer, 3600, search, refresh_token)", tests: ["auth/openid-client.test.ts", "auth/token.test.ts"] },
  62: { owner: 'auth', title: "Refresh tokens rotate; replay revokes the family", tests: ["auth/claim-e2e.test.ts", "auth/openid-client.test.ts", "auth/token.test.ts"] },
  63: { owner: 'auth', title: "Grace window for concurrent refreshes", tests: ["auth/claim-e2e.test.ts", "auth/token.test.ts"] },
  64: { owner: 'auth', title: "Refresh keeps audience and client; scope only narrows", tests: ["auth/token.test.ts"] },
  65: { owner: 'auth', title: "Removed and unknown grants: unsupported_grant_type", tests: ["auth/token.test.ts"] },
  66: { owner: 'auth', title: "Access tokens live 3600 s", tests: ["auth/token.test.ts"] },
  67: { owner: 'auth', title: "Revocation: 200 for valid, unknown and revoked tokens", tests: ["auth/openid-client.test.ts", "auth/revoke.test.ts"] },
  68: { owner: 'auth', title: "Wrong or missing hint: other types searched", tests: ["auth/revoke.test.ts"] },
  69: { owner: 'auth', title: "A revoked access token is refused at once", tests: ["auth/claim-e2e.test.ts", "auth/openid-client.test.ts", "auth/revoke.test.ts", "auth/token.test.ts"] },
  70: { owner: 'auth', title: "Revoking a refresh token ends the grant's access tokens", tests: ["auth/revoke.test.ts"] },
  71: { owner: 'auth', title: "Revoking an access token ends that token only", tests: ["auth/claim-e2e.test.ts", "auth/revoke.test.ts"] },
  72: { owner: 'auth', title: "unsupported_token_type; 503 with Retry-After when unable", tests: ["auth/revoke.test.ts"] },
  73: { owner: 'auth', title: "Revocation without client authentication for service_auth tokens", tests: ["auth/revoke.test.ts"] },
  74: { owner: 'auth', title: "service_auth registration record", tests: ["auth/claim-e2e.test.ts", "auth/claim.test.ts"] },
  75: { owner: 'auth', title: "Anonymous registration, other types, external assertions: 4xx", tests: ["auth/claim.test.ts"] },
  76: { owner: 'auth', title: "verification_uri with its own attempt token; matching verified email; browser-only completion", tests: ["auth/claim.test.ts"] },
  77: { owner: 'auth', title: "Pending claim: authorization_pending", tests: ["auth/claim-e2e.test.ts", "auth/claim.test.ts"] },
  78: { owner: 'auth', title: "slow_down; interval + 5 s is not slowed again", tests: ["auth/claim-e2e.test.ts", "auth/claim.test.ts"] },
  79: { owner: 'auth', title: "Approved claim: access_token and identity_assertion", tests: ["auth/claim-e2e.test.ts", "auth/claim.test.ts"] },
  80: { owner: 'auth', title: "Deny: access_denied; expiry: expired_token", tests: ["auth/claim.test.ts"] },
  81: { owner: 'auth', title: "Terminal states before rate limits; redeemed: invalid_grant", tests: ["auth/claim.test.ts"] },
  82: { owner: 'auth', title: "Claim errors JSON with Cache-Control: no-store", tests: ["auth/claim.test.ts"] },
  83: { owner: 'auth', title: "Wrong-code attempts limited per attempt token", tests: ["auth/claim.test.ts"] },
  84: { owner: 'auth', title: "POST /v2/agent/identity/claim documented and implemented", tests: ["auth/claim.test.ts"] },
  85: { owner: 'auth', title: "jwt-bearer renewal with the identity assertion", tests: ["auth/claim-e2e.test.ts", "auth/claim.test.ts"] },
  86: { owner: 'auth', title: "Assertion validation (signature, iss, sub, aud, exp, iat)", tests: ["auth/claim.test.ts"] },
  87: { owner: 'auth', title: "Only our assertions; survive access-token revocation until the connection is revoked", tests: ["auth/claim.test.ts", "auth/revoke.test.ts"] },
  88: { owner: 'auth', title: "https outside loopback", tests: ["auth/metadata.test.ts", "auth/security.test.ts"] },
  89: { owner: 'auth', title: "Secrets never logged, stored hashed", tests: ["auth/security.test.ts"] },
  90: { owner: 'auth', title: "Secrets with >= 128 bits", tests: ["auth/security.test.ts", "auth/units.test.ts"] },
  91: { owner: 'auth', title: "Rate limits on registration, identity, token, revoke: 429 + Retry-After + rate_limited", tests: ["auth/registration.test.ts", "auth/security.test.ts"] },
  92: { owner: 'auth', title: "CORS for browser clients; never * with credentials", tests: ["auth/metadata.test.ts", "auth/revoke.test.ts", "auth/security.test.ts", "mcp/socket.test.ts", "mcp/transport.test.ts"] },
};

/**
 * Items whose proving tests are on branch `mcp`, not merged here yet. After merging `mcp`, empty this
 * list and add the mcp test files to the items above: requirements.test.ts then demands all 92.
 */
export const PENDING_IN_BRANCH_MCP: readonly number[] = [];
