// Helpers for the MCP tests: stand-in OAuth access tokens (a CredentialVerifier that returns the
// principal the auth capability would: credential 'oauth', isAgent, audience, scopes), JSON-RPC
// requests through `inject`, and a strict parser for WWW-Authenticate challenges (RFC 9110 §11.2).
import { randomBytes } from 'node:crypto';
import type { CredentialVerifier } from '../../src/accounts/credentials.js';
import type { Principal } from '../../src/domain/principal.js';
import type { ConfigInput } from '../../src/config/index.js';
import { testApp, type TestApp } from '../helpers/app.js';

export interface FakeTokens extends CredentialVerifier {
  /** A bearer token for `accountId` issued for `audience` with `scopes` (default ['search']). */
  issue(accountId: number, audience: string, scopes?: string[]): string;
  revoke(token: string): void;
  /** Every principal handed out (to check what reaches the services). */
  readonly issued: Map<string, Principal>;
}

export function fakeTokens(): FakeTokens {
  const issued = new Map<string, Principal>();
  const revoked = new Set<string>();
  return {
    issued,
    issue(accountId, audience, scopes = ['search']) {
      const token = `at_${randomBytes(24).toString('base64url')}`;
      issued.set(token, { accountId, credential: 'oauth', credentialId: `tok-${issued.size + 1}`, scopes, clientId: 'client-1', isAgent: true, audience });
      return token;
    },
    revoke(token) {
      revoked.add(token);
    },
    async verify(credential) {
      if (revoked.has(credential)) return null;
      return issued.get(credential) ?? null;
    },
  };
}

export interface McpTestApp extends TestApp {
  tokens: FakeTokens;
}

export async function mcpTestApp(config: Partial<ConfigInput> = {}): Promise<McpTestApp> {
  const tokens = fakeTokens();
  const app = await testApp(config, { credentialVerifiers: [tokens] });
  return Object.assign(app, { tokens });
}

export const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' } as const;

export const initializeMessage = (id: number | string = 1, protocolVersion = '2025-11-25') => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'lectern-tests', version: '1.0.0' } },
});

/** POSTs a JSON-RPC message to `url` (default /mcp) with a bearer credential and extra headers. */
export function rpc(app: TestApp, message: unknown, opts: { token?: string; headers?: Record<string, string>; url?: string } = {}) {
  return app.http.inject({
    method: 'POST',
    url: opts.url ?? '/mcp',
    headers: { ...MCP_HEADERS, ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), 'mcp-protocol-version': '2025-11-25', ...opts.headers } as Record<string, string>,
    payload: JSON.stringify(message),
  });
}

/** Calls a tool and returns the JSON-RPC result. */
export async function callTool(app: TestApp, token: string, name: string, args: Record<string, unknown>, opts: { url?: string } = {}) {
  const res = await rpc(app, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args } }, { token, ...opts });
  if (res.statusCode !== 200) throw new Error(`tools/call ${name}: HTTP ${res.statusCode} ${res.body}`);
  const body = res.json() as { result?: { content: { type: string; text: string }[]; structuredContent?: any; isError?: boolean }; error?: { code: number; message: string } };
  if (!body.result) throw new Error(`tools/call ${name}: ${JSON.stringify(body.error)}`);
  return body.result;
}

/**
 * Parses one challenge strictly by RFC 9110 §11.2 (`auth-scheme [ 1*SP ( token68 / #auth-param ) ]`,
 * auth-param = token BWS "=" BWS ( token / quoted-string )). Throws on any syntax error.
 */
export function parseChallenge(header: string): { scheme: string; params: Record<string, string> } {
  const tchar = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]";
  const m = new RegExp(`^(${tchar}+)(?: +(.*))?$`).exec(header);
  if (!m) throw new Error(`not a challenge: ${header}`);
  const params: Record<string, string> = {};
  let rest = m[2] ?? '';
  const param = new RegExp(`^(${tchar}+)[ \\t]*=[ \\t]*(?:(${tchar}+)|"((?:[^"\\\\]|\\\\.)*)")`);
  while (rest.length > 0) {
    const p = param.exec(rest);
    if (!p) throw new Error(`bad auth-param at ${JSON.stringify(rest)}`);
    const name = p[1]!.toLowerCase();
    if (name in params) throw new Error(`repeated auth-param ${name}`);
    params[name] = p[2] ?? p[3]!.replace(/\\(.)/g, '$1');
    rest = rest.slice(p[0].length);
    const sep = /^[ \t]*,[ \t]*/.exec(rest);
    if (sep) {
      rest = rest.slice(sep[0].length);
      if (rest.length === 0) throw new Error('trailing comma');
    } else if (rest.length > 0) throw new Error(`expected "," at ${JSON.stringify(rest)}`);
  }
  return { scheme: m[1]!, params };
}
