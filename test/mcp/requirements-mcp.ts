// Traceability of the auth requirements this branch proves (../shared/guides/auth-requirements.md):
// the resource-server items 1-24, and the MCP sides of 38 (CORS preflight of the protected-resource
// metadata) and 92 (CORS of the MCP endpoint). Each item lists the test files (relative to test/, `/`
// separators) with a test whose title starts by citing it: `test('[12] ...')` or `test('[2, 7] ...')`,
// the same convention as test/auth/requirements.ts on branch `auth`.
//
// Merging with branch auth: for every item below, add these files to the item's `tests` in
// test/auth/requirements.ts (items 9, 11, 21, 24, 38 and 92 keep their auth files too), empty
// PENDING_IN_BRANCH_MCP there, and delete this file and requirements-mcp.test.ts; the auth check then
// covers all 92 items, including every citation in test/mcp/.

export const MCP_REQUIREMENTS: Readonly<Record<number, { title: string; tests: readonly string[] }>> = {
  1: { title: 'Every request to {mcp_url} without a credential gets 401', tests: ['mcp/third-party-clients.test.ts', 'mcp/transport.test.ts'] },
  2: { title: 'The 401 carries WWW-Authenticate: Bearer resource_metadata', tests: ['mcp/socket.test.ts', 'mcp/third-party-clients.test.ts', 'mcp/transport.test.ts'] },
  3: { title: 'The challenge includes scope="search"', tests: ['mcp/third-party-clients.test.ts', 'mcp/transport.test.ts'] },
  4: { title: 'The challenge is syntactically valid (RFC 9110 §11.2)', tests: ['mcp/transport.test.ts'] },
  5: { title: 'No token: a challenge without an error code', tests: ['mcp/transport.test.ts'] },
  6: { title: 'Invalid, expired or revoked token: 401 error="invalid_token" with resource_metadata', tests: ['mcp/transport.test.ts'] },
  7: { title: '401 body is ApiError Unauthorized with X-Request-Id; 429 adds Retry-After', tests: ['mcp/socket.test.ts', 'mcp/transport.test.ts'] },
  8: { title: 'Insufficient scope: 403 with error="insufficient_scope"', tests: ['mcp/transport.test.ts'] },
  9: { title: 'Audience binding: only tokens issued for this resource', tests: ['mcp/socket.test.ts', 'mcp/third-party-clients.test.ts', 'mcp/transport.test.ts'] },
  10: { title: 'No token passthrough to upstreams', tests: ['mcp/transport.test.ts'] },
  11: { title: 'Tokens only from the Authorization header, never the query string', tests: ['mcp/transport.test.ts'] },
  12: { title: 'Sessions are not authentication', tests: ['mcp/transport.test.ts'] },
  13: { title: 'Session ids are random visible ASCII', tests: ['mcp/transport.test.ts'] },
  14: { title: 'Origin validated: 403 when present and not allowed', tests: ['mcp/transport.test.ts'] },
  15: { title: 'Invalid MCP-Protocol-Version: 400', tests: ['mcp/transport.test.ts'] },
  16: { title: 'Streamable HTTP answers (JSON or SSE; 202 for notifications)', tests: ['mcp/socket.test.ts', 'mcp/third-party-clients.test.ts', 'mcp/transport.test.ts'] },
  17: { title: 'A 401 always points at current metadata', tests: ['mcp/transport.test.ts'] },
  18: { title: 'PRM at {mcp_url}/.well-known/oauth-protected-resource', tests: ['mcp/protected-resource.test.ts', 'mcp/third-party-clients.test.ts'] },
  19: { title: 'PRM also at the RFC 9728 path-inserted and root locations', tests: ['mcp/protected-resource.test.ts', 'mcp/socket.test.ts', 'mcp/third-party-clients.test.ts'] },
  20: { title: 'PRM resource is exactly the URL the client used', tests: ['mcp/protected-resource.test.ts', 'mcp/third-party-clients.test.ts'] },
  21: { title: 'authorization_servers string-equals the AS issuer', tests: ['mcp/protected-resource.test.ts', 'mcp/third-party-clients.test.ts'] },
  22: { title: 'scopes_supported = ["search"] without offline_access', tests: ['mcp/protected-resource.test.ts'] },
  23: { title: 'bearer_methods_supported = ["header"]', tests: ['mcp/protected-resource.test.ts'] },
  24: { title: 'The legacy resource address has its own PRM and accepts its tokens', tests: ['mcp/protected-resource.test.ts', 'mcp/third-party-clients.test.ts'] },
  38: { title: 'Metadata endpoints answer CORS preflight (the protected-resource metadata)', tests: ['mcp/protected-resource.test.ts', 'mcp/socket.test.ts'] },
  92: { title: 'CORS for browser clients at the MCP endpoint; never * with credentials', tests: ['mcp/socket.test.ts', 'mcp/transport.test.ts'] },
};
