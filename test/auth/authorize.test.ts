// The authorization endpoint: sign-in, consent, PKCE, redirects, iss, resource, scope, state, codes:
// auth requirements 45-56.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { authApp, authorizeUrl, Browser, hiddenFields, obtainCode, person, pkce, registerClient, token, type AuthTestApp } from './helpers.js';

describe('authorization endpoint', () => {
  let app: AuthTestApp;
  let client: Record<string, any>;
  let browser: Browser;
  before(async () => {
    app = await authApp();
    client = await registerClient(app);
    const who = await person(app);
    browser = new Browser(app);
    const res = await browser.signIn(who.email, who.password);
    assert.equal(res.statusCode, 303);
  });
  after(() => app.dispose());

  const base = (extra: Record<string, string | undefined> = {}) => ({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: client.redirect_uris[0],
    scope: 'search',
    state: 'st-1',
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    resource: app.mcp,
    ...extra,
  });
  const errorRedirect = async (extra: Record<string, string | undefined>) => {
    const res = await browser.get(authorizeUrl(base(extra)));
    assert.equal(res.statusCode, 302, res.body);
    const loc = new URL(res.headers.location as string);
    assert.equal(`${loc.origin}${loc.pathname}`, client.redirect_uris[0]);
    return loc.searchParams;
  };

  test('[45] the consent page shows the self-reported client_name and the callback host, and warns when every redirect is localhost', async () => {
    const res = await browser.get(authorizeUrl(base()));
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /Test agent \(search for citations\)/);
    assert.match(res.body, /127\.0\.0\.1:4711/);
    assert.match(res.body, /not verified by Lectern/);
    assert.match(res.body, /only returns to a program on <strong>this computer<\/strong>/);
    const https = await registerClient(app, { client_name: 'Hosted <b>agent</b>', redirect_uris: ['https://agent.example.com/oauth/cb'] });
    const page = await browser.get(authorizeUrl(base({ client_id: https.client_id, redirect_uri: https.redirect_uris[0] })));
    assert.match(page.body, /agent\.example\.com/);
    assert.match(page.body, /Hosted &lt;b&gt;agent&lt;\/b&gt;/, 'the name is escaped');
    assert.doesNotMatch(page.body, /this computer/);
  });

  test('[46, 54] success: code, state and iss exactly once; state byte-exact; iss = issuer', async () => {
    const state = 'ä ö/+?&=%20 "x"';
    const { location } = await obtainCode(app, browser, client, { state });
    const q = location.searchParams;
    for (const k of ['code', 'state', 'iss']) assert.equal(q.getAll(k).length, 1, k);
    assert.equal(q.get('state'), state);
    assert.equal(q.get('iss'), app.config.authUrl);
    assert.equal(q.has('code_challenge'), false);
  });

  test('[46, 51] errors redirect with error, state and iss', async () => {
    const q = await errorRedirect({ response_type: 'token' });
    assert.equal(q.get('error'), 'unsupported_response_type');
    assert.equal(q.get('state'), 'st-1');
    assert.equal(q.getAll('iss').length, 1);
    assert.equal(q.get('iss'), app.config.authUrl);
  });

  test('[47] response_type other than code (implicit included) gets unsupported_response_type', async () => {
    for (const rt of ['token', 'id_token', 'code token']) assert.equal((await errorRedirect({ response_type: rt })).get('error'), 'unsupported_response_type');
    assert.equal((await errorRedirect({ response_type: undefined })).get('error'), 'invalid_request');
  });

  test('[48] PKCE is enforced: no challenge, plain, or no method is invalid_request', async () => {
    assert.equal((await errorRedirect({ code_challenge: undefined, code_challenge_method: undefined })).get('error'), 'invalid_request');
    assert.equal((await errorRedirect({ code_challenge_method: 'plain' })).get('error'), 'invalid_request');
    assert.equal((await errorRedirect({ code_challenge_method: undefined })).get('error'), 'invalid_request');
    assert.equal((await errorRedirect({ code_challenge: 'short' })).get('error'), 'invalid_request');
  });

  test('[49] redirect_uri matches exactly; loopback IPs may use any port, but localhost never matches 127.0.0.1', async () => {
    const ok = await browser.get(authorizeUrl(base({ redirect_uri: 'http://127.0.0.1:5999/callback' })));
    assert.equal(ok.statusCode, 200, 'another loopback port is accepted');
    for (const uri of ['http://localhost:4711/callback', 'http://127.0.0.1:4711/callback/', 'http://127.0.0.1:4711/other', 'http://127.0.0.1:4711/callback?x=1', 'https://127.0.0.1:4711/callback', 'http://[::1]:4711/callback']) {
      const res = await browser.get(authorizeUrl(base({ redirect_uri: uri })));
      assert.equal(res.statusCode, 400, uri);
      assert.equal(res.headers.location, undefined);
    }
    const https = await registerClient(app, { redirect_uris: ['https://agent.example.com/cb'] });
    const res = await browser.get(authorizeUrl(base({ client_id: https.client_id, redirect_uri: 'https://agent.example.com:8443/cb' })));
    assert.equal(res.statusCode, 400, 'no port relaxation for non-loopback registrations');
  });

  test('[50] unknown client_id or unregistered redirect_uri: an error page, never a redirect', async () => {
    for (const extra of [{ client_id: 'lc_nope' }, { redirect_uri: 'https://evil.example/cb' }, { client_id: undefined }]) {
      const res = await browser.get(authorizeUrl(base(extra)));
      assert.equal(res.statusCode, 400);
      assert.equal(res.headers.location, undefined);
      assert.match(String(res.headers['content-type']), /text\/html/);
      assert.doesNotMatch(res.body, /evil\.example/);
    }
  });

  test('[52] resource must be {mcp_url} or the legacy address, else invalid_target; missing means {mcp_url} (decision 4)', async () => {
    assert.equal((await errorRedirect({ resource: 'https://other.example/mcp' })).get('error'), 'invalid_target');
    assert.equal((await errorRedirect({ resource: `${app.config.baseUrl}/v2/search` })).get('error'), 'invalid_target');
    for (const resource of [undefined, app.config.legacyMcpUrl]) {
      const { code, verifier, redirectUri } = await obtainCode(app, browser, client, { resource });
      const res = await token(app, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, client_id: client.client_id });
      assert.equal(res.statusCode, 200);
      const principal = await app.auth.accessTokens.verify(res.json().access_token);
      assert.equal(principal?.audience, resource ?? app.mcp, 'the authorized resource is recorded with the code');
    }
  });

  test('[53] scope must be a subset of {search}: anything else is invalid_scope; missing means search', async () => {
    assert.equal((await errorRedirect({ scope: 'search admin' })).get('error'), 'invalid_scope');
    assert.equal((await errorRedirect({ scope: 'offline_access' })).get('error'), 'invalid_scope');
    const { code, verifier, redirectUri } = await obtainCode(app, browser, client, { scope: undefined });
    const res = await token(app, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, client_id: client.client_id });
    assert.equal(res.json().scope, 'search');
  });

  test('[54] repeated parameters are refused (invalid_request), state still echoed once', async () => {
    const url = `${authorizeUrl(base())}&scope=search`;
    const res = await browser.get(url);
    const q = new URL(res.headers.location as string).searchParams;
    assert.equal(q.get('error'), 'invalid_request');
    assert.equal(q.getAll('iss').length, 1);
  });

  test('[55] not signed in: the browser is sent to sign-in and comes back to the request', async () => {
    const anon = new Browser(app);
    const res = await anon.get(authorizeUrl(base()));
    assert.equal(res.statusCode, 302);
    const loc = new URL(res.headers.location as string, 'http://x');
    assert.equal(loc.pathname, '/v2/auth/sign-in');
    assert.match(loc.searchParams.get('return_to')!, /^\/v2\/oauth\/authorize\?/);
    const who = await person(app);
    const signIn = await anon.signIn(who.email, who.password, loc.searchParams.get('return_to')!);
    assert.equal(signIn.statusCode, 303);
    assert.match(signIn.headers.location as string, /^\/v2\/oauth\/authorize\?/);
    const consent = await anon.get(signIn.headers.location as string);
    assert.equal(consent.statusCode, 200);
    assert.match(consent.body, /Allow this application\?/);
  });

  test('[55] deny redirects with access_denied, state and iss', async () => {
    const page = await browser.get(authorizeUrl(base({ state: 'deny-me' })));
    const res = await browser.post('/v2/oauth/authorize', { ...hiddenFields(page.body), decision: 'deny' });
    assert.equal(res.statusCode, 303);
    const q = new URL(res.headers.location as string).searchParams;
    assert.equal(q.get('error'), 'access_denied');
    assert.equal(q.get('state'), 'deny-me');
    assert.equal(q.get('iss'), app.config.authUrl);
    assert.equal(q.get('code'), null);
  });

  test('[55] the consent POST needs the CSRF token of this browser; the page cannot be framed', async () => {
    const page = await browser.get(authorizeUrl(base()));
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
    const fields = hiddenFields(page.body);
    const forged = await browser.post('/v2/oauth/authorize', { ...fields, csrf: 'forged', decision: 'approve' });
    assert.equal(forged.statusCode, 403);
    assert.equal(forged.headers.location, undefined);
    const other = new Browser(app);
    const who = await person(app);
    await other.signIn(who.email, who.password);
    const stolen = await other.post('/v2/oauth/authorize', { ...fields, decision: 'approve' });
    assert.equal(stolen.statusCode, 403, "another browser cannot replay this browser's form");
  });

  test('[55] an account whose email is not confirmed cannot consent', async () => {
    const who = await person(app, { verified: false });
    const b = new Browser(app);
    await b.signIn(who.email, who.password);
    const res = await b.get(authorizeUrl(base()));
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /Confirm your email address first/);
  });

  test('[56] codes live at most 60 s', async () => {
    const { code, verifier, redirectUri } = await obtainCode(app, browser, client);
    app.clock.advance(61_000);
    const res = await token(app, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri, client_id: client.client_id });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error, 'invalid_grant');
  });

  test('[56] codes are bound to client, redirect_uri and code_challenge', async () => {
    const other = await registerClient(app);
    const a = await obtainCode(app, browser, client);
    const wrongClient = await token(app, { grant_type: 'authorization_code', code: a.code, code_verifier: a.verifier, redirect_uri: a.redirectUri, client_id: other.client_id });
    assert.equal(wrongClient.json().error, 'invalid_grant');
    const b = await obtainCode(app, browser, client, { redirect_uri: 'http://127.0.0.1:5001/callback' });
    const wrongRedirect = await token(app, { grant_type: 'authorization_code', code: b.code, code_verifier: b.verifier, redirect_uri: 'http://127.0.0.1:4711/callback', client_id: client.client_id });
    assert.equal(wrongRedirect.json().error, 'invalid_grant');
    const c = await obtainCode(app, browser, client);
    const wrongVerifier = await token(app, { grant_type: 'authorization_code', code: c.code, code_verifier: pkce().verifier, redirect_uri: c.redirectUri, client_id: client.client_id });
    assert.equal(wrongVerifier.json().error, 'invalid_grant');
  });
});
