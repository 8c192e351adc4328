// Protected Resource Metadata (RFC 9728) of {mcp_url} and the legacy address: the three locations of
// decision 1, the exact `resource`, the authorization server, scopes, bearer methods, CORS (auth
// requirements 18-24 and 38), and the HTTP API's acceptance of both audiences (decision 5).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config/index.js';
import { metadataPaths } from '../../src/http/routes/protected-resource.js';
import { doc, seed } from '../helpers/documents.js';
import { initializeMessage, mcpTestApp, rpc, type McpTestApp } from './helpers.js';

describe('protected resource metadata', () => {
  let app: McpTestApp;
  before(async () => {
    app = await mcpTestApp();
  });
  after(() => app.dispose());

  const get = (url: string, headers: Record<string, string> = {}) => app.http.inject({ method: 'GET', url, headers });

  test('[18] GET {mcp_url}/.well-known/oauth-protected-resource answers 200 JSON with the four fields', async () => {
    const res = await get('/mcp/.well-known/oauth-protected-resource');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const body = res.json();
    for (const k of ['resource', 'authorization_servers', 'scopes_supported', 'bearer_methods_supported']) assert.ok(k in body, k);
  });

  test('[19] the same document at the path-inserted RFC 9728 location and at the root', async () => {
    const docs = await Promise.all(['/mcp/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'].map((u) => get(u)));
    for (const r of docs) assert.equal(r.statusCode, 200);
    assert.deepEqual(docs[1]!.json(), docs[0]!.json());
    assert.deepEqual(docs[2]!.json(), docs[0]!.json());
    assert.equal(docs[0]!.body, docs[2]!.body);
  });

  test('[20] resource is exactly {mcp_url}: lowercase scheme and host, no trailing slash, no fragment, same everywhere', async () => {
    const body = (await get('/.well-known/oauth-protected-resource/mcp')).json();
    assert.equal(body.resource, app.config.mcpUrl);
    const u = new URL(body.resource);
    assert.equal(`${u.protocol}//${u.host}`, `${u.protocol}//${u.host}`.toLowerCase());
    assert.ok(!body.resource.endsWith('/') && !body.resource.includes('#'));
  });

  test('[20] a configured mcpUrl is canonicalised once, so metadata, challenges and audiences agree', () => {
    const c = loadConfig({}, { dataDir: '/tmp/x', baseUrl: 'https://Lectern.Example.org', mcpUrl: 'HTTPS://Lectern.Example.org:443/Agents/MCP/' } as never);
    assert.equal(c.mcpUrl, 'https://lectern.example.org/Agents/MCP');
    assert.equal(c.legacyMcpUrl, 'https://lectern.example.org/v2/mcp');
    assert.throws(() => loadConfig({}, { dataDir: '/tmp/x', mcpUrl: 'https://h.example/mcp?x=1' }), /mcpUrl/);
    assert.throws(() => loadConfig({}, { dataDir: '/tmp/x', mcpUrl: 'https://h.example/mcp#frag' }), /mcpUrl/);
    assert.throws(() => loadConfig({}, { dataDir: '/tmp/x', baseUrl: 'https://h.example', mcpUrl: 'https://h.example/v2/mcp' }), /legacyMcpUrl/);
    const env = loadConfig({ LECTERN_LEGACY_MCP_URL: 'https://h.example/old-mcp/' }, { dataDir: '/tmp/x' });
    assert.equal(env.legacyMcpUrl, 'https://h.example/old-mcp');
    assert.deepEqual(
      metadataPaths(c).map((p) => p.path),
      ['/Agents/MCP/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/Agents/MCP', '/.well-known/oauth-protected-resource', '/v2/mcp/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/v2/mcp'],
    );
  });

  test('[21] authorization_servers holds {auth_url}, string-equal to the issuer', async () => {
    const body = (await get('/mcp/.well-known/oauth-protected-resource')).json();
    assert.deepEqual(body.authorization_servers, [app.config.authUrl]);
    assert.ok(!body.authorization_servers[0].endsWith('/'));
  });

  test('[22] scopes_supported is ["search"], without offline_access', async () => {
    assert.deepEqual((await get('/mcp/.well-known/oauth-protected-resource')).json().scopes_supported, ['search']);
  });

  test('[23] bearer_methods_supported is ["header"]', async () => {
    assert.deepEqual((await get('/mcp/.well-known/oauth-protected-resource')).json().bearer_methods_supported, ['header']);
  });

  test('[24] the legacy address serves its own metadata and accepts tokens issued for it', async () => {
    const legacy = app.config.legacyMcpUrl;
    for (const url of ['/v2/mcp/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/v2/mcp']) {
      const body = (await get(url)).json();
      assert.equal(body.resource, legacy, url);
      assert.deepEqual(body.authorization_servers, [app.config.authUrl]);
    }
    const acct = await app.account();
    const legacyToken = app.tokens.issue(acct.id, legacy);
    assert.equal((await rpc(app, initializeMessage(), { token: legacyToken, url: '/v2/mcp' })).statusCode, 200);
    const challenge = String((await rpc(app, initializeMessage(), { url: '/v2/mcp' })).headers['www-authenticate']);
    assert.match(challenge, new RegExp(`resource_metadata="${legacy}/\\.well-known/oauth-protected-resource"`));
    // A token for the current address is refused at the legacy one (one audience per token).
    assert.equal((await rpc(app, initializeMessage(), { token: app.tokens.issue(acct.id, app.config.mcpUrl), url: '/v2/mcp' })).statusCode, 401);
  });

  test('[38] the metadata answers CORS preflight (MCP-Protocol-Version makes discovery preflighted) and GET with CORS', async () => {
    for (const url of ['/mcp/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource', '/v2/mcp/.well-known/oauth-protected-resource']) {
      const pre = await app.http.inject({ method: 'OPTIONS', url, headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'GET', 'access-control-request-headers': 'mcp-protocol-version' } });
      assert.equal(pre.statusCode, 204, url);
      assert.equal(pre.headers['access-control-allow-origin'], '*');
      assert.match(String(pre.headers['access-control-allow-headers']).toLowerCase(), /mcp-protocol-version/);
      assert.match(String(pre.headers['access-control-allow-methods']), /GET/);
      const res = await get(url, { origin: 'https://inspector.example', 'mcp-protocol-version': '2025-11-25' });
      assert.equal(res.headers['access-control-allow-origin'], '*');
      // `*` only where there are no credentials (item 92).
      assert.equal(res.headers['access-control-allow-credentials'], undefined);
    }
  });
});

describe('the HTTP API accepts tokens issued for either MCP address (decision 5)', () => {
  let app: McpTestApp;
  before(async () => {
    app = await mcpTestApp();
    await seed(app, [doc('W1')]);
  });
  after(() => app.dispose());

  test('[24] tokens for {mcp_url} and for the legacy address read documents; other audiences do not', async () => {
    const acct = await app.account();
    const read = (token: string) => app.http.inject({ method: 'GET', url: '/v2/documents/W1?max_tokens=1', headers: { authorization: `Bearer ${token}` } });
    assert.equal((await read(app.tokens.issue(acct.id, app.config.mcpUrl))).statusCode, 200);
    assert.equal((await read(app.tokens.issue(acct.id, app.config.legacyMcpUrl))).statusCode, 200);
    assert.equal((await read(app.tokens.issue(acct.id, 'https://elsewhere.example/mcp'))).statusCode, 401);
    assert.equal((await read(acct.key)).statusCode, 200);
  });
});
