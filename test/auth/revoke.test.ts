// Revocation (RFC 7009): auth requirements 67-73.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { apiStatus, approvedAgent, authApp, codeFlowTokens, JWT_BEARER, registerClient, revoke, token, type AuthTestApp } from './helpers.js';

describe('revocation endpoint', () => {
  let app: AuthTestApp;
  before(async () => {
    app = await authApp();
  });
  after(() => app.dispose());

  test('[67] 200 for a valid, an unknown and an already revoked token alike', async () => {
    const { tokens } = await codeFlowTokens(app);
    for (const t of [tokens.access_token, tokens.access_token, 'garbage', 'lrt_0000000000000000_' + 'a'.repeat(43), 'a.b.c']) {
      const res = await revoke(app, { token: t, token_type_hint: 'access_token' });
      assert.equal(res.statusCode, 200, t);
      assert.equal(res.headers['cache-control'], 'no-store');
    }
    const missing = await revoke(app, {});
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().error, 'invalid_request');
  });

  test('[68] a wrong or missing hint does not hide the token', async () => {
    const a = await codeFlowTokens(app);
    assert.equal((await revoke(app, { token: a.tokens.access_token, token_type_hint: 'refresh_token' })).statusCode, 200);
    assert.equal(await apiStatus(app, a.tokens.access_token), 401);
    const b = await codeFlowTokens(app);
    assert.equal((await revoke(app, { token: b.tokens.refresh_token, token_type_hint: 'access_token' })).statusCode, 200);
    assert.equal((await token(app, { grant_type: 'refresh_token', refresh_token: b.tokens.refresh_token, client_id: b.client.client_id })).json().error, 'invalid_grant');
    const c = await codeFlowTokens(app);
    assert.equal((await revoke(app, { token: c.tokens.access_token, token_type_hint: 'something_else' })).statusCode, 200);
    assert.equal(await apiStatus(app, c.tokens.access_token), 401);
  });

  test('[69] a revoked access token is refused at once (401)', async () => {
    const { tokens } = await codeFlowTokens(app);
    assert.equal(await apiStatus(app, tokens.access_token), 404);
    await revoke(app, { token: tokens.access_token });
    assert.equal(await apiStatus(app, tokens.access_token), 401);
    assert.equal(await app.auth.accessTokens.verify(tokens.access_token), null);
  });

  test('[70] revoking a refresh token ends it and the access tokens of the same grant', async () => {
    const { tokens, client } = await codeFlowTokens(app);
    await revoke(app, { token: tokens.refresh_token, token_type_hint: 'refresh_token', client_id: client.client_id });
    assert.equal((await token(app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id })).json().error, 'invalid_grant');
    assert.equal(await apiStatus(app, tokens.access_token), 401);
  });

  test('[71] revoking an access token ends that token only: a sibling keeps working and the assertion mints more', async () => {
    const { tokens } = await approvedAgent(app);
    const sibling = (await token(app, { grant_type: JWT_BEARER, assertion: tokens.identity_assertion })).json();
    await revoke(app, { token: tokens.access_token, token_type_hint: 'access_token' });
    assert.equal(await apiStatus(app, tokens.access_token), 401);
    assert.equal(await apiStatus(app, sibling.access_token), 404);
    const renewed = await token(app, { grant_type: JWT_BEARER, assertion: tokens.identity_assertion });
    assert.equal(renewed.statusCode, 200);
    assert.equal(await apiStatus(app, renewed.json().access_token), 404);
  });

  test('[72] unsupported_token_type (400) for what cannot be revoked here; 503 with Retry-After when the store is down', async () => {
    const { who } = await approvedAgent(app);
    for (const t of [who.apiKey, 'lac_0123456789abcdef_' + 'a'.repeat(43), 'lct_0123456789abcdef_' + 'a'.repeat(43)]) {
      const res = await revoke(app, { token: t });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().error, 'unsupported_token_type');
    }
    const broken = await authApp({}, {});
    try {
      const t = await codeFlowTokens(broken);
      broken.auth.store.oauth.getAccessToken = async () => {
        throw new Error('database is down');
      };
      const res = await revoke(broken, { token: t.tokens.access_token });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().error, 'temporarily_unavailable');
      assert.ok(Number(res.headers['retry-after']) >= 1);
      assert.doesNotMatch(res.body, /database is down/);
    } finally {
      await broken.dispose();
    }
  });

  test('[73] service_auth tokens are revoked without client authentication; DCR clients may send client_id', async () => {
    const { tokens } = await approvedAgent(app);
    const res = await revoke(app, { token: tokens.access_token, token_type_hint: 'access_token' });
    assert.equal(res.statusCode, 200);
    assert.equal(await apiStatus(app, tokens.access_token), 401);
    const dcr = await codeFlowTokens(app);
    assert.equal((await revoke(app, { token: dcr.tokens.access_token, client_id: dcr.client.client_id })).statusCode, 200);
    assert.equal(await apiStatus(app, dcr.tokens.access_token), 401);
    const unknownClient = await revoke(app, { token: 'x', client_id: 'lc_nobody' });
    assert.equal(unknownClient.statusCode, 401);
    assert.equal(unknownClient.json().error, 'invalid_client');
  });

  test('[73] a client cannot revoke another client\'s token (silently nothing)', async () => {
    const victim = await codeFlowTokens(app);
    const other = await registerClient(app);
    assert.equal((await revoke(app, { token: victim.tokens.access_token, client_id: other.client_id })).statusCode, 200);
    assert.equal(await apiStatus(app, victim.tokens.access_token), 404);
  });

  test('[87] revoking the identity assertion ends the whole agent connection', async () => {
    const { tokens } = await approvedAgent(app);
    assert.equal((await revoke(app, { token: tokens.identity_assertion })).statusCode, 200);
    assert.equal(await apiStatus(app, tokens.access_token), 401);
    const renewed = await token(app, { grant_type: JWT_BEARER, assertion: tokens.identity_assertion });
    assert.equal(renewed.statusCode, 400);
    assert.equal(renewed.json().error, 'invalid_grant');
  });

  test('[92] the revocation endpoint answers CORS preflight', async () => {
    const res = await app.http.inject({ method: 'OPTIONS', url: '/v2/oauth/revoke', headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.match(String(res.headers['access-control-allow-methods']), /POST/);
  });
});
