// Authorization server metadata (RFC 8414) and JWKS: auth requirements 25-38.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { authApp, type AuthTestApp } from './helpers.js';

describe('authorization server metadata', () => {
  let app: AuthTestApp;
  let md: Record<string, any>;
  before(async () => {
    app = await authApp();
    const res = await app.http.inject({ url: '/.well-known/oauth-authorization-server' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    md = res.json();
  });
  after(() => app.dispose());

  test('[25] GET {auth_url}/.well-known/oauth-authorization-server answers 200 JSON', () => {
    assert.equal(typeof md, 'object');
  });

  test('[25, 26] with a path in auth_url, both the path-inserted and the appended locations serve it, issuer = auth_url', async () => {
    const a = await authApp({ authUrl: 'http://127.0.0.1:8080/auth' });
    try {
      for (const url of ['/.well-known/oauth-authorization-server/auth', '/auth/.well-known/oauth-authorization-server']) {
        const res = await a.http.inject({ url });
        assert.equal(res.statusCode, 200, url);
        assert.equal(res.json().issuer, 'http://127.0.0.1:8080/auth');
        assert.equal(res.json().token_endpoint, 'http://127.0.0.1:8080/auth/v2/oauth/token');
      }
      // The endpoints live under the path too.
      const reg = await a.http.inject({ method: 'POST', url: '/auth/v2/oauth/register', payload: { redirect_uris: ['http://127.0.0.1:1/cb'] } });
      assert.equal(reg.statusCode, 201);
    } finally {
      await a.dispose();
    }
  });

  test('[26, 21] issuer is string-identical to {auth_url}: no trailing slash, same case', () => {
    assert.equal(md.issuer, app.config.authUrl);
    assert.ok(!md.issuer.endsWith('/'));
  });

  test('[27] issuer, authorization_endpoint, token_endpoint and response_types_supported with code', () => {
    for (const k of ['issuer', 'authorization_endpoint', 'token_endpoint']) assert.equal(typeof md[k], 'string');
    assert.deepEqual(md.response_types_supported, ['code']);
    assert.equal(md.authorization_endpoint, `${app.config.authUrl}/v2/oauth/authorize`);
    assert.equal(md.token_endpoint, `${app.config.authUrl}/v2/oauth/token`);
  });

  test('[28] code_challenge_methods_supported is exactly S256 (no plain)', () => {
    assert.deepEqual(md.code_challenge_methods_supported, ['S256']);
  });

  test('[29] registration_endpoint is advertised', () => {
    assert.equal(md.registration_endpoint, `${app.config.authUrl}/v2/oauth/register`);
  });

  test('[30] revocation_endpoint with revocation_endpoint_auth_methods_supported including none', () => {
    assert.equal(md.revocation_endpoint, `${app.config.authUrl}/v2/oauth/revoke`);
    assert.ok(md.revocation_endpoint_auth_methods_supported.includes('none'));
  });

  test('[31] token_endpoint_auth_methods_supported includes none (and the confidential methods of decision 3)', () => {
    assert.deepEqual(md.token_endpoint_auth_methods_supported, ['none', 'client_secret_post', 'client_secret_basic']);
  });

  test('[32] grant_types_supported lists code, refresh, jwt-bearer and the claim grant (decision 9)', () => {
    assert.deepEqual(md.grant_types_supported, ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:jwt-bearer', 'urn:lectern:agent-auth:grant-type:claim']);
  });

  test('[33] authorization_response_iss_parameter_supported is true', () => {
    assert.equal(md.authorization_response_iss_parameter_supported, true);
  });

  test('[34] scopes_supported is ["search"]', () => {
    assert.deepEqual(md.scopes_supported, ['search']);
  });

  test('[35, 88] every endpoint is on the {auth_url} origin', () => {
    const origin = new URL(app.config.authUrl).origin;
    for (const k of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'revocation_endpoint', 'jwks_uri']) assert.equal(new URL(md[k]).origin, origin, k);
    for (const v of Object.values(md.agent_auth)) if (typeof v === 'string') assert.equal(new URL(v).origin, origin);
  });

  test('[35, 88] with an https base_url every advertised endpoint is https', async () => {
    const a = await authApp({ baseUrl: 'https://lectern.example.org' });
    try {
      const doc = (await a.http.inject({ url: '/.well-known/oauth-authorization-server' })).json();
      const urls = [doc.issuer, doc.authorization_endpoint, doc.token_endpoint, doc.registration_endpoint, doc.revocation_endpoint, doc.jwks_uri, ...Object.values(doc.agent_auth).filter((v) => typeof v === 'string')];
      for (const u of urls) assert.match(u as string, /^https:\/\/lectern\.example\.org(\/|$)/);
    } finally {
      await a.dispose();
    }
  });

  test('[36] agent_auth holds skill, identity, claim, claim_complete and revocation addresses and the supported types', async () => {
    const a = md.agent_auth;
    const base = app.config.authUrl;
    assert.equal(a.identity_endpoint, `${base}/v2/agent/identity`);
    assert.equal(a.claim_endpoint, `${base}/v2/agent/identity/claim`);
    assert.equal(a.claim_complete_uri, `${base}/v2/agent/verify/complete`);
    assert.equal(a.revocation_uri, `${base}/v2/oauth/revoke`);
    assert.ok(a.identity_types_supported.includes('service_auth'));
    assert.ok(a.credential_types_supported.includes('access_token'));
    const skill = await app.http.inject({ url: new URL(a.skill).pathname });
    assert.equal(skill.statusCode, 200);
    assert.match(String(skill.headers['content-type']), /text\/markdown/);
    assert.match(skill.body, /service_auth/);
  });

  test('[37] client_id_metadata_document_supported is not advertised (decision 6)', () => {
    assert.ok(!('client_id_metadata_document_supported' in md));
  });

  test('[38, 92] the metadata answers CORS preflight (MCP-Protocol-Version) without credentials', async () => {
    const res = await app.http.inject({
      method: 'OPTIONS',
      url: '/.well-known/oauth-authorization-server',
      headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'GET', 'access-control-request-headers': 'mcp-protocol-version' },
    });
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.match(String(res.headers['access-control-allow-headers']), /mcp-protocol-version/i);
    assert.equal(res.headers['access-control-allow-credentials'], undefined);
    const get = await app.http.inject({ url: '/.well-known/oauth-authorization-server', headers: { origin: 'http://localhost:6274' } });
    assert.equal(get.headers['access-control-allow-origin'], '*');
  });

  test('JWKS at jwks_uri publishes the public signing key (no private parts)', async () => {
    const res = await app.http.inject({ url: new URL(md.jwks_uri).pathname });
    assert.equal(res.statusCode, 200);
    // Issue one token so a key exists.
    await app.auth.keys.signingKey();
    const keys = (await app.http.inject({ url: new URL(md.jwks_uri).pathname })).json().keys as Record<string, unknown>[];
    assert.ok(keys.length >= 1);
    for (const k of keys) {
      assert.equal(k.alg, 'ES256');
      assert.equal(typeof k.kid, 'string');
      assert.equal(k.d, undefined);
    }
  });
});
