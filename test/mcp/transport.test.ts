// The HTTP side of the MCP endpoint, in-process: challenges, credentials, audience binding, sessions,
// Origin, protocol versions, status codes, CORS and rate limits (auth requirements 1-17 and 92; test
// names cite the item numbers, listed in test/auth/requirements.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { doc, seed } from '../helpers/documents.js';
import { MCP_HEADERS, callTool, initializeMessage, mcpTestApp, parseChallenge, rpc, type McpTestApp } from './helpers.js';

describe('MCP transport rules', () => {
  let app: McpTestApp;
  let a: { id: number; key: string };
  let b: { id: number; key: string };
  let mcpUrl: string;
  let legacyUrl: string;
  let prmUrl: string;
  before(async () => {
    app = await mcpTestApp({ mcpAllowedOrigins: 'https://agent.example.com' });
    a = await app.account({ credits: 10_000 });
    b = await app.account({ credits: 10_000 });
    mcpUrl = app.config.mcpUrl;
    legacyUrl = app.config.legacyMcpUrl;
    prmUrl = `${mcpUrl}/.well-known/oauth-protected-resource`;
    await seed(app, [doc('W1', { uris: ['doi://10.1234/one'] })]);
  });
  after(() => app.dispose());

  const tokenA = () => app.tokens.issue(a.id, mcpUrl);
  const listTools = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

  test('[1] every request without a credential gets 401: POST, GET and DELETE, at both addresses', async () => {
    for (const url of ['/mcp', '/v2/mcp']) {
      for (const method of ['POST', 'GET', 'DELETE'] as const) {
        const res = await app.http.inject({ method, url, headers: method === 'POST' ? { ...MCP_HEADERS } : { accept: 'text/event-stream' }, ...(method === 'POST' ? { payload: JSON.stringify(listTools) } : {}) });
        assert.equal(res.statusCode, 401, `${method} ${url}`);
      }
    }
    // Whatever the body: authentication comes before parsing.
    const res = await app.http.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json' }, payload: '{not json' });
    assert.equal(res.statusCode, 401);
  });

  test('[2] the 401 carries WWW-Authenticate: Bearer resource_metadata with the absolute metadata URL', async () => {
    for (const [url, resource] of [
      ['/mcp', mcpUrl],
      ['/v2/mcp', legacyUrl],
    ] as const) {
      const res = await rpc(app, listTools, { url });
      const c = parseChallenge(String(res.headers['www-authenticate']));
      assert.equal(c.scheme, 'Bearer');
      assert.equal(c.params.resource_metadata, `${resource}/.well-known/oauth-protected-resource`);
      assert.ok(new URL(c.params.resource_metadata!).protocol.startsWith('http'));
      const prm = await app.http.inject({ method: 'GET', url: new URL(c.params.resource_metadata!).pathname });
      assert.equal(prm.statusCode, 200);
      assert.equal(prm.json().resource, resource);
    }
  });

  test('[3] the challenge asks for scope="search"', async () => {
    const res = await rpc(app, listTools);
    assert.equal(parseChallenge(String(res.headers['www-authenticate'])).params.scope, 'search');
  });

  test('[4] the challenge is valid RFC 9110 syntax: comma-separated auth-params, URLs as quoted strings', async () => {
    const none = String((await rpc(app, listTools)).headers['www-authenticate']);
    assert.match(none, /^Bearer resource_metadata="[^"]+", scope="search"$/);
    const bad = String((await rpc(app, listTools, { token: 'nope' })).headers['www-authenticate']);
    const c = parseChallenge(bad);
    assert.deepEqual(Object.keys(c.params), ['error', 'error_description', 'resource_metadata', 'scope']);
    assert.match(bad, /resource_metadata="http/);
  });

  test('[5] a request without a token gets a challenge without an error code', async () => {
    for (const headers of [{}, { authorization: 'Basic dXNlcjpwYXNz' }] as Record<string, string>[]) {
      const res = await rpc(app, listTools, { headers });
      assert.equal(res.statusCode, 401);
      assert.equal(parseChallenge(String(res.headers['www-authenticate'])).params.error, undefined);
    }
  });

  test('[6] an invalid, expired or revoked token gets 401 error="invalid_token" and still resource_metadata', async () => {
    const revoked = tokenA();
    assert.equal((await rpc(app, listTools, { token: revoked })).statusCode, 200);
    app.tokens.revoke(revoked);
    for (const token of ['garbage-token', revoked]) {
      const res = await rpc(app, listTools, { token });
      assert.equal(res.statusCode, 401);
      const c = parseChallenge(String(res.headers['www-authenticate']));
      assert.equal(c.params.error, 'invalid_token');
      assert.equal(c.params.resource_metadata, prmUrl);
    }
    const malformed = await rpc(app, listTools, { headers: { authorization: 'Bearer two words' } });
    assert.equal(malformed.statusCode, 401);
    assert.equal(parseChallenge(String(malformed.headers['www-authenticate'])).params.error, 'invalid_token');
  });

  test('[7] the 401 body is ApiError {"status":"error","detail":"Unauthorized"} with X-Request-Id', async () => {
    for (const token of [undefined, 'garbage-token']) {
      const res = await rpc(app, listTools, token ? { token } : {});
      assert.deepEqual(res.json(), { status: 'error', detail: 'Unauthorized' });
      assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/);
      assert.match(String(res.headers['content-type']), /^application\/json/);
    }
  });

  test('[7] 429 from the MCP endpoint carries Retry-After and the rate_limited detail', async () => {
    const limited = await mcpTestApp({ rateLimits: { default: { capacity: 2, refillPerSecond: 0.01 } } as never });
    try {
      const acct = await limited.account();
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 3; i++) {
        last = await rpc(limited, listTools, { token: acct.key });
        statuses.push(last.statusCode);
      }
      assert.deepEqual(statuses, [200, 200, 429]);
      assert.ok(Number(last!.headers['retry-after']) >= 1);
      assert.equal(last!.json().detail.code, 'rate_limited');
      assert.equal(last!.json().detail.scope, 'default');
      assert.ok(last!.headers['x-request-id']);
    } finally {
      await limited.dispose();
    }
  });

  test('[7] tool calls draw from the bucket of their HTTP twin (documents for fetch_document)', async () => {
    const limited = await mcpTestApp({ rateLimits: { documents: { capacity: 1, refillPerSecond: 0.01 } } as never });
    try {
      const acct = await limited.account();
      await seed(limited, [doc('W1')]);
      const call = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'fetch_document', arguments: { document_id: 'W1', max_tokens: 3 } } };
      assert.equal((await rpc(limited, call, { token: acct.key })).statusCode, 200);
      const second = await rpc(limited, call, { token: acct.key });
      assert.equal(second.statusCode, 429);
      assert.equal(second.json().detail.scope, 'documents');
      // Other messages still pass: they use the default bucket.
      assert.equal((await rpc(limited, listTools, { token: acct.key })).statusCode, 200);
    } finally {
      await limited.dispose();
    }
  });

  test('[8] a valid token without the scope search gets 403 insufficient_scope with scope and resource_metadata', async () => {
    const token = app.tokens.issue(a.id, mcpUrl, ['comments']);
    const res = await rpc(app, listTools, { token });
    assert.equal(res.statusCode, 403);
    const c = parseChallenge(String(res.headers['www-authenticate']));
    assert.equal(c.params.error, 'insufficient_scope');
    assert.equal(c.params.scope, 'search');
    assert.equal(c.params.resource_metadata, prmUrl);
  });

  test('[9] audience binding: only tokens issued for this resource are accepted', async () => {
    assert.equal((await rpc(app, listTools, { token: app.tokens.issue(a.id, mcpUrl) })).statusCode, 200);
    for (const audience of ['https://other.example.org/mcp', `${mcpUrl}/`, mcpUrl.toUpperCase(), legacyUrl, app.config.baseUrl]) {
      const res = await rpc(app, listTools, { token: app.tokens.issue(a.id, audience) });
      assert.equal(res.statusCode, 401, audience);
      assert.equal(parseChallenge(String(res.headers['www-authenticate'])).params.error, 'invalid_token');
    }
  });

  test('[9] API keys carry no audience and work at both addresses (decision 7)', async () => {
    assert.equal((await rpc(app, listTools, { token: a.key })).statusCode, 200);
    assert.equal((await rpc(app, listTools, { token: a.key, url: '/v2/mcp' })).statusCode, 200);
  });

  test('[10] no token passthrough: services receive the principal, never the token, and nothing goes upstream', async () => {
    const token = tokenA();
    const seen: unknown[] = [];
    const original = app.documents.fetchById.bind(app.documents);
    const originalFetch = globalThis.fetch;
    let outbound = 0;
    app.documents.fetchById = async (...args) => {
      seen.push(args);
      return original(...args);
    };
    globalThis.fetch = (async (...args: Parameters<typeof fetch>) => {
      outbound++;
      return originalFetch(...args);
    }) as typeof fetch;
    try {
      const r = await callTool(app, token, 'fetch_document', { document_id: 'W1', max_tokens: 2 });
      assert.equal(r.isError, undefined);
    } finally {
      app.documents.fetchById = original;
      globalThis.fetch = originalFetch;
    }
    assert.equal(seen.length, 1);
    assert.ok(!JSON.stringify(seen).includes(token), 'the token reached a service');
    assert.equal(outbound, 0);
  });

  test('[11] tokens are never read from the query string', async () => {
    const token = tokenA();
    const res = await app.http.inject({ method: 'POST', url: `/mcp?access_token=${token}`, headers: { ...MCP_HEADERS }, payload: JSON.stringify(listTools) });
    assert.equal(res.statusCode, 401);
    assert.equal(parseChallenge(String(res.headers['www-authenticate'])).params.error, undefined);
  });

  test('[11] X-Api-Key and Authorization: Bearer both carry API keys (decision 7)', async () => {
    const viaHeader = await app.http.inject({ method: 'POST', url: '/mcp', headers: { ...MCP_HEADERS, 'x-api-key': a.key }, payload: JSON.stringify(listTools) });
    assert.equal(viaHeader.statusCode, 200);
    assert.equal((await rpc(app, listTools, { token: a.key })).statusCode, 200);
  });

  test('[12] a session is not authentication: every request needs its own valid credential', async () => {
    const init = await rpc(app, initializeMessage(), { token: tokenA() });
    assert.equal(init.statusCode, 200);
    const sid = String(init.headers['mcp-session-id']);
    const withSession = (token?: string) => rpc(app, listTools, { ...(token ? { token } : {}), headers: { 'mcp-session-id': sid } });
    assert.equal((await withSession(tokenA())).statusCode, 200);
    assert.equal((await withSession()).statusCode, 401);
    const bad = await withSession('garbage-token');
    assert.equal(bad.statusCode, 401);
    assert.equal(parseChallenge(String(bad.headers['www-authenticate'])).params.error, 'invalid_token');
  });

  test("[12] a session created by account A and presented with B's token is rejected", async () => {
    const init = await rpc(app, initializeMessage(), { token: tokenA() });
    const sid = String(init.headers['mcp-session-id']);
    const tokenB = app.tokens.issue(b.id, mcpUrl);
    const res = await rpc(app, listTools, { token: tokenB, headers: { 'mcp-session-id': sid } });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().status, 'error');
    // ... and so is B's API key, and a session id of A used at the legacy address.
    assert.equal((await rpc(app, listTools, { token: b.key, headers: { 'mcp-session-id': sid } })).statusCode, 404);
    assert.equal((await rpc(app, listTools, { token: a.key, url: '/v2/mcp', headers: { 'mcp-session-id': sid } })).statusCode, 404);
    // A's other credentials keep the session (a refreshed token, the API key).
    assert.equal((await rpc(app, listTools, { token: a.key, headers: { 'mcp-session-id': sid } })).statusCode, 200);
    // A forged or tampered session id is unknown.
    assert.equal((await rpc(app, listTools, { token: tokenA(), headers: { 'mcp-session-id': sid.slice(0, -2) + 'AA' } })).statusCode, 404);
  });

  test('[13] session ids are cryptographically random and visible ASCII', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const res = await rpc(app, initializeMessage(i), { token: a.key });
      const sid = String(res.headers['mcp-session-id']);
      assert.match(sid, /^[\x21-\x7E]+$/);
      assert.ok(sid.length >= 32);
      ids.add(sid);
    }
    assert.equal(ids.size, 20);
    // 128 random bits per id: the nonces differ everywhere, not just in a counter.
    const nonces = [...ids].map((s) => Buffer.from(s.split('.')[1]!, 'base64url'));
    assert.ok(nonces.every((n) => n.length === 16));
  });

  test('[14] a present Origin that is not allowed gets 403; allowed origins pass', async () => {
    for (const origin of ['https://evil.example', 'http://evil.localhost.example.com', 'null']) {
      const res = await rpc(app, listTools, { token: a.key, headers: { origin } });
      assert.equal(res.statusCode, 403, origin);
      assert.equal(res.json().status, 'error');
      assert.equal(res.headers['access-control-allow-origin'], undefined);
    }
    // Checked before authentication: a DNS-rebinding page learns nothing.
    assert.equal((await rpc(app, listTools, { headers: { origin: 'https://evil.example' } })).statusCode, 403);
    for (const origin of [new URL(app.config.baseUrl).origin, 'http://localhost:6274', 'http://127.0.0.1:3000', 'https://agent.example.com']) {
      const res = await rpc(app, listTools, { token: a.key, headers: { origin } });
      assert.equal(res.statusCode, 200, origin);
      assert.equal(res.headers['access-control-allow-origin'], origin);
    }
    // No Origin (non-browser clients): allowed.
    assert.equal((await rpc(app, listTools, { token: a.key })).statusCode, 200);
  });

  test('[15] an invalid or unsupported MCP-Protocol-Version gets 400; supported ones pass', async () => {
    for (const v of ['1999-01-01', 'banana', '2025-11-25x', '']) {
      const res = await rpc(app, listTools, { token: a.key, headers: { 'mcp-protocol-version': v } });
      assert.equal(res.statusCode, 400, v);
      assert.ok(Array.isArray(res.json().detail.supported_versions));
    }
    for (const v of ['2025-11-25', '2025-06-18', '2025-03-26']) {
      assert.equal((await rpc(app, listTools, { token: a.key, headers: { 'mcp-protocol-version': v } })).statusCode, 200, v);
    }
  });

  test('[15] initialize negotiates: 2025-11-25 when asked, the latest for an unknown version', async () => {
    const current = (await rpc(app, initializeMessage(1, '2025-11-25'), { token: a.key, headers: {} })).json();
    assert.equal(current.result.protocolVersion, '2025-11-25');
    const older = (await rpc(app, initializeMessage(1, '2025-06-18'), { token: a.key })).json();
    assert.equal(older.result.protocolVersion, '2025-06-18');
    const unknown = await app.http.inject({ method: 'POST', url: '/mcp', headers: { ...MCP_HEADERS, authorization: `Bearer ${a.key}` }, payload: JSON.stringify(initializeMessage(1, '2099-01-01')) });
    assert.equal(unknown.json().result.protocolVersion, '2025-11-25');
  });

  test('[16] requests get application/json; notifications and responses get 202', async () => {
    const req = await rpc(app, listTools, { token: a.key });
    assert.equal(req.statusCode, 200);
    assert.match(String(req.headers['content-type']), /^application\/json/);
    assert.equal(req.json().id, 2);
    const note = await rpc(app, { jsonrpc: '2.0', method: 'notifications/initialized' }, { token: a.key });
    assert.equal(note.statusCode, 202);
    assert.equal(note.body, '');
    const response = await rpc(app, { jsonrpc: '2.0', id: 99, result: {} }, { token: a.key });
    assert.equal(response.statusCode, 202);
  });

  test('[16] GET and DELETE are answered 405 after authentication (no server stream, no session state)', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await app.http.inject({ method, url: '/mcp', headers: { accept: 'text/event-stream', authorization: `Bearer ${a.key}` } });
      assert.equal(res.statusCode, 405, method);
      assert.match(String(res.headers.allow), /POST/);
    }
  });

  test('[17] a 401 always points at current metadata, whose resource is this endpoint', async () => {
    const res = await rpc(app, listTools, { token: 'stale-token' });
    const url = parseChallenge(String(res.headers['www-authenticate'])).params.resource_metadata!;
    const prm = (await app.http.inject({ method: 'GET', url: new URL(url).pathname })).json();
    assert.equal(prm.resource, mcpUrl);
    assert.deepEqual(prm.authorization_servers, [app.config.authUrl]);
  });

  test('[92] browser clients: CORS exposes WWW-Authenticate and Mcp-Session-Id, never * with credentials', async () => {
    const origin = 'http://localhost:6274';
    const denied = await rpc(app, listTools, { headers: { origin } });
    assert.equal(denied.statusCode, 401);
    assert.equal(denied.headers['access-control-allow-origin'], origin);
    const exposed = String(denied.headers['access-control-expose-headers']).split(/\s*,\s*/).map((h) => h.toLowerCase());
    assert.ok(exposed.includes('www-authenticate') && exposed.includes('mcp-session-id'));
    const init = await rpc(app, initializeMessage(), { token: a.key, headers: { origin } });
    assert.ok(init.headers['mcp-session-id']);
    assert.equal(init.headers['access-control-allow-origin'], origin);
    assert.match(String(init.headers.vary), /Origin/);
    const pre = await app.http.inject({
      method: 'OPTIONS',
      url: '/mcp',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version, mcp-session-id' },
    });
    assert.equal(pre.statusCode, 204);
    assert.equal(pre.headers['access-control-allow-origin'], origin);
    for (const h of ['authorization', 'content-type', 'mcp-protocol-version', 'mcp-session-id']) assert.match(String(pre.headers['access-control-allow-headers']).toLowerCase(), new RegExp(h));
    assert.match(String(pre.headers['access-control-allow-methods']), /POST/);
    for (const r of [denied, init, pre]) assert.notEqual(r.headers['access-control-allow-credentials'], 'true');
    const evil = await app.http.inject({ method: 'OPTIONS', url: '/mcp', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    assert.equal(evil.statusCode, 403);
  });

  test('[92] mcpAllowedOrigins=* allows any origin but still echoes it, never *', async () => {
    const any = await mcpTestApp({ mcpAllowedOrigins: '*' });
    try {
      const acct = await any.account();
      const res = await rpc(any, listTools, { token: acct.key, headers: { origin: 'https://anything.example' } });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['access-control-allow-origin'], 'https://anything.example');
    } finally {
      await any.dispose();
    }
  });
});
