// LECTERN_AUTO_CONSENT (TEST ONLY, issue 4 item 5): off by default, refused unless base_url is
// loopback; when set, that account is signed in and consents to authorization requests and claims.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { authApp, authorizeUrl, CLAIM_GRANT, pathOf, pkce, registerAgent, registerClient, token, type AuthTestApp } from './helpers.js';

describe('automatic consent (tests only)', () => {
  test('off by default; refused at start when base_url is not loopback', () => {
    assert.equal(loadConfig({}).autoConsent, undefined);
    assert.throws(() => loadConfig({ LECTERN_AUTO_CONSENT: 'ci@example.org' }, { baseUrl: 'https://lectern.example.org' }), (e: unknown) => e instanceof ConfigError && /loopback/.test(e.message));
    assert.equal(loadConfig({ LECTERN_AUTO_CONSENT: 'ci@example.org' }).autoConsent, 'ci@example.org');
    assert.doesNotThrow(() => loadConfig({ LECTERN_AUTO_CONSENT: 'ci@example.org' }, { baseUrl: 'http://localhost:3000' }));
  });

  describe('when on', () => {
    let app: AuthTestApp;
    before(async () => {
      app = await authApp({ autoConsent: 'CI@example.org' });
      await app.accounts.create({ email: 'ci@example.org', credits: 100 });
    });
    after(() => app.dispose());

    test('an authorization request is approved without a page: the redirect carries code, state and iss', async () => {
      const client = await registerClient(app);
      const p = pkce();
      const res = await app.http.inject({ url: authorizeUrl({ response_type: 'code', client_id: client.client_id, redirect_uri: client.redirect_uris[0], code_challenge: p.challenge, code_challenge_method: 'S256', state: 's' }) });
      assert.equal(res.statusCode, 302);
      const loc = new URL(res.headers.location as string);
      assert.equal(loc.searchParams.get('state'), 's');
      assert.equal(loc.searchParams.get('iss'), app.config.authUrl);
      const t = await token(app, { grant_type: 'authorization_code', code: loc.searchParams.get('code')!, code_verifier: p.verifier, client_id: client.client_id, redirect_uri: client.redirect_uris[0] });
      assert.equal(t.statusCode, 200);
      const principal = await app.auth.accessTokens.verify(t.json().access_token);
      assert.equal(principal?.accountId, (await app.accounts.find('ci@example.org'))!.id);
    });

    test('a claim for that account is approved when its verification_uri is fetched', async () => {
      const r = (await registerAgent(app, { type: 'service_auth', login_hint: 'ci@example.org' })).json();
      assert.equal((await token(app, { grant_type: CLAIM_GRANT, claim_token: r.claim_token })).json().error, 'authorization_pending');
      const page = await app.http.inject({ url: pathOf(r.claim.verification_uri) });
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /TEST MODE/);
      app.clock.advance(5000);
      const t = await token(app, { grant_type: CLAIM_GRANT, claim_token: r.claim_token });
      assert.equal(t.statusCode, 200);
      assert.ok(t.json().identity_assertion);
    });

    test('claims for other accounts are not approved', async () => {
      const r = (await registerAgent(app, { type: 'service_auth', login_hint: 'someone-else@example.org' })).json();
      const page = await app.http.inject({ url: pathOf(r.claim.verification_uri) });
      assert.equal(page.statusCode, 403);
      assert.equal((await token(app, { grant_type: CLAIM_GRANT, claim_token: r.claim_token })).json().error, 'authorization_pending');
    });
  });
});

describe('legacy MCP resource address', () => {
  test('[24] default {base_url}/v2/mcp, configurable, must differ from mcp_url', () => {
    assert.equal(loadConfig({}).legacyMcpUrl, 'http://127.0.0.1:8080/v2/mcp');
    assert.equal(loadConfig({ LECTERN_LEGACY_MCP_URL: 'http://127.0.0.1:8080/old/mcp/' }).legacyMcpUrl, 'http://127.0.0.1:8080/old/mcp');
    assert.throws(() => loadConfig({ LECTERN_LEGACY_MCP_URL: 'http://127.0.0.1:8080/mcp' }), ConfigError);
  });
});
