#!/usr/bin/env node
// The official MCP TypeScript SDK client (@modelcontextprotocol/sdk from the npm registry, installed in
// this folder) against a running Lectern: discovery from the 401 challenge (RFC 9728 metadata, RFC 8414
// metadata), dynamic client registration, authorization code with PKCE (the browser step is a plain
// HTTP GET: Lectern runs with LECTERN_AUTO_CONSENT), the token exchange with `resource`, tools/list, a
// tools/call of search_documents that returns real hits, a refresh after the access token stops
// working, and the audience binding (the token is refused at the legacy address).
//
// Environment: LECTERN_MCP_URL, LECTERN_LEGACY_MCP_URL, LECTERN_AUTH_URL (from lectern.mjs).
// Prints one line per check and exits 1 when any fails.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { randomBytes } from 'node:crypto';

const mcpUrl = process.env.LECTERN_MCP_URL;
const legacyUrl = process.env.LECTERN_LEGACY_MCP_URL;
const authUrl = process.env.LECTERN_AUTH_URL;
if (!mcpUrl || !legacyUrl || !authUrl) {
  console.error('set LECTERN_MCP_URL, LECTERN_LEGACY_MCP_URL and LECTERN_AUTH_URL (see lectern.mjs)');
  process.exit(2);
}

let failures = 0;
function check(name, ok, detail) {
  if (!ok) failures++;
  console.log(`${ok ? 'PASS' : 'FAIL'} ${name}${detail === undefined ? '' : `: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`}`);
  return ok;
}

/** Every request the SDK makes, to check what it discovered and sent. */
const seen = [];
const recordingFetch = async (input, init) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const res = await fetch(input, init);
  seen.push({ method: init?.method ?? 'GET', url, status: res.status, body: typeof init?.body === 'string' ? init.body : init?.body instanceof URLSearchParams ? init.body.toString() : undefined });
  return res;
};

/** An in-memory OAuthClientProvider whose "browser" is an HTTP GET that stops at the redirect. */
class HeadlessProvider {
  constructor(name) {
    this.name = name;
    this.redirect = 'http://127.0.0.1:53682/callback';
    this.code = null;
    this.returnedState = null;
    this.returnedIss = null;
  }
  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata() {
    return {
      client_name: `Lectern CI: ${this.name} (MCP TypeScript SDK client)`,
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: 'search',
    };
  }
  state() {
    this.sentState = randomBytes(16).toString('base64url');
    return this.sentState;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info) {
    this.client = info;
  }
  tokens() {
    return this.savedTokens;
  }
  saveTokens(tokens) {
    this.history = [...(this.history ?? []), tokens];
    this.savedTokens = tokens;
  }
  saveCodeVerifier(v) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(url) {
    this.authorizationUrl = url;
    const res = await fetch(url, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) throw new Error(`the authorization endpoint answered ${res.status} without a redirect: ${(await res.text()).slice(0, 300)}`);
    const back = new URL(location, url);
    if (!back.href.startsWith(this.redirect)) throw new Error(`redirected to ${back.origin}${back.pathname}, not to the registered callback`);
    if (back.searchParams.get('error')) throw new Error(`authorization error ${back.searchParams.get('error')}: ${back.searchParams.get('error_description')}`);
    this.code = back.searchParams.get('code');
    this.returnedState = back.searchParams.getAll('state');
    this.returnedIss = back.searchParams.getAll('iss');
  }
}

async function connectWithOAuth(url, provider) {
  const first = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: recordingFetch });
  const probe = new Client({ name: 'lectern-ci-sdk-client', version: '1.0.0' });
  try {
    await probe.connect(first);
    throw new Error('connected without authorization: the server accepted a request without a token');
  } catch (e) {
    if (!(e instanceof UnauthorizedError)) throw e;
  }
  if (!provider.code) throw new Error('no authorization code came back');
  await first.finishAuth(provider.code);
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: recordingFetch });
  const client = new Client({ name: 'lectern-ci-sdk-client', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

async function main() {
  // 1. Discovery, registration, PKCE, token.
  const provider = new HeadlessProvider('current address');
  const { client, transport } = await connectWithOAuth(mcpUrl, provider);
  const urls = seen.map((s) => `${s.method} ${new URL(s.url).pathname}`);
  check('401 first, without a token', seen[0]?.status === 401, seen[0]);
  check('protected resource metadata fetched', urls.some((u) => u.startsWith('GET /.well-known/oauth-protected-resource') || u.startsWith('GET /mcp/.well-known/oauth-protected-resource')), urls);
  check('authorization server metadata fetched', urls.some((u) => u.startsWith('GET /.well-known/oauth-authorization-server') || u.startsWith('GET /.well-known/openid-configuration')), urls);
  check('dynamic client registration (201)', seen.some((s) => s.method === 'POST' && s.url.endsWith('/v2/oauth/register') && s.status === 201));
  check('client registered as public client', provider.client?.token_endpoint_auth_method === 'none' && !provider.client?.client_secret, provider.client);
  const authz = provider.authorizationUrl;
  check('authorization request uses PKCE S256', authz?.searchParams.get('code_challenge_method') === 'S256' && (authz?.searchParams.get('code_challenge') ?? '').length >= 43);
  check('authorization request names the resource', authz?.searchParams.get('resource') === mcpUrl, authz?.searchParams.get('resource'));
  check('authorization request asks for scope search', authz?.searchParams.get('scope') === 'search', authz?.searchParams.get('scope'));
  check('state came back exactly once, unchanged', provider.returnedState?.length === 1 && provider.returnedState[0] === provider.sentState);
  check('iss came back exactly once, equal to the issuer', provider.returnedIss?.length === 1 && provider.returnedIss[0] === authUrl, provider.returnedIss);
  const tokenCall = seen.find((s) => s.method === 'POST' && s.url.endsWith('/v2/oauth/token'));
  const tokenBody = new URLSearchParams(tokenCall?.body ?? '');
  check('token request carries code_verifier and resource', tokenBody.has('code_verifier') && tokenBody.get('resource') === mcpUrl, tokenCall?.body?.replace(/(code|code_verifier)=[^&]+/g, '$1=…'));
  const tokens = provider.tokens();
  check('token response: Bearer, 3600 s, scope search, a refresh token', /^bearer$/i.test(tokens?.token_type ?? '') && tokens?.expires_in === 3600 && tokens?.scope === 'search' && !!tokens?.refresh_token, { ...tokens, access_token: '…', refresh_token: tokens?.refresh_token ? '…' : undefined });

  // 2. Tools.
  check('negotiated protocol 2025-11-25', transport.protocolVersion === '2025-11-25', transport.protocolVersion);
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  check('tools/list has the search and document tools', ['search_documents', 'search_social', 'fetch_document', 'search_in_document', 'works_citing', 'works_cited'].every((n) => names.includes(n)), names);
  const result = await client.callTool({ name: 'search_documents', arguments: { query: 'corpus', limit: 5 } });
  const hits = result.structuredContent?.hits ?? [];
  check('tools/call search_documents returns real hits', result.isError !== true && hits.length > 0 && typeof hits[0].document?.title === 'string', hits.map((h) => h.document?.title));
  const fetched = await client.callTool({ name: 'fetch_document', arguments: { document_id: hits[0].id, max_tokens: 30 } });
  check('tools/call fetch_document returns the cut text', fetched.isError !== true && fetched.structuredContent?.document?.content_tokens === 30);

  // 3. Refresh: the access token stops working (as if expired); the SDK refreshes on the 401.
  const before = provider.tokens();
  provider.savedTokens = { ...before, access_token: `${before.access_token.slice(0, -4)}AAAA` };
  const again = await client.callTool({ name: 'search_documents', arguments: { query: 'summarization', limit: 2 } });
  const after = provider.tokens();
  check('a refused access token is refreshed with the refresh token, then the call succeeds', again.isError !== true && after.access_token !== before.access_token && !!after.refresh_token);
  check('refresh tokens rotate', after.refresh_token !== before.refresh_token);
  const refreshCall = seen.find((s) => s.method === 'POST' && s.url.endsWith('/v2/oauth/token') && new URLSearchParams(s.body ?? '').get('grant_type') === 'refresh_token');
  check('the refresh_token grant named the resource', new URLSearchParams(refreshCall?.body ?? '').get('resource') === mcpUrl);
  await client.close();

  // 4. Audience binding: this token is for {mcp_url}; the legacy address refuses it.
  const legacyRes = await fetch(legacyUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${after.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  check('the token is refused at the legacy address (401 invalid_token)', legacyRes.status === 401 && /error="invalid_token"/.test(legacyRes.headers.get('www-authenticate') ?? ''), legacyRes.headers.get('www-authenticate'));

  // 5. The legacy address: its own metadata, its own audience.
  const legacyProvider = new HeadlessProvider('legacy address');
  const legacy = await connectWithOAuth(legacyUrl, legacyProvider);
  check('legacy address: the authorization request names the legacy resource', legacyProvider.authorizationUrl?.searchParams.get('resource') === legacyUrl, legacyProvider.authorizationUrl?.searchParams.get('resource'));
  check('legacy address: tools/list works with its token', (await legacy.client.listTools()).tools.length > 0);
  await legacy.client.close();
}

try {
  await main();
} catch (e) {
  check('the flow completed', false, e instanceof Error ? `${e.name}: ${e.message}` : String(e));
}
console.log(failures === 0 ? 'mcp-sdk-client: all checks passed' : `mcp-sdk-client: ${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);
