// The token endpoint: authorization_code, refresh_token rotation with grace window and family
// revocation, errors in RFC 6749 shape: auth requirements 57-66.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { apiStatus, authApp, Browser, codeFlowTokens, obtainCode, person, registerClient, token, type AuthTestApp } from './helpers.js';

describe('token endpoint', () => {
  let app: AuthTestApp;
  before(async () => {
    app = await authApp();
  });
  after(() => app.dispose());

  test('[57] every answer is application/json with Cache-Control: no-store; errors are 400 {error, error_description}', async () => {
    const { tokens } = await codeFlowTokens(app);
    assert.ok(tokens.access_token);
    for (const fields of [{}, { grant_type: 'authorization_code', client_id: 'lc_x' }, { grant_type: 'password', username: 'a', password: 'b' }]) {
      const res = await token(app, fields);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(typeof res.headers['x-request-id'], 'string');
      assert.ok(res.statusCode === 400 || res.statusCode === 401);
      assert.equal(typeof res.json().error, 'string');
      assert.equal(res.json().status, undefined, 'not an ApiError');
    }
    const json = await app.http.inject({ method: 'POST', url: '/v2/oauth/token', payload: { grant_type: 'authorization_code' } });
    assert.equal(json.statusCode, 400);
    assert.equal(json.json().error, 'invalid_request');
  });

  test('[59] code_verifier must match: missing or wrong verifier is invalid_grant', async () => {
    const client = await registerClient(app);
    const who = await person(app);
    const b = new Browser(app);
    await b.signIn(who.email, who.password);
    for (const verifier of [undefined, 'x'.repeat(43)]) {
      const { code, redirectUri } = await obtainCode(app, b, client);
      const res = await token(app, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: client.client_id, code_verifier: verifier });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().error, 'invalid_grant');
    }
  });

  test('[59] a wrong code_verifier burns the code: the right verifier afterwards is refused too', async () => {
    const client = await registerClient(app);
    const who = await person(app);
    const b = new Browser(app);
    await b.signIn(who.email, who.password);
    const { code, redirectUri, verifier } = await obtainCode(app, b, client);
    const wrong = await token(app, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: client.client_id, code_verifier: 'y'.repeat(43) });
    assert.equal(wrong.json().error, 'invalid_grant');
    const right = await token(app, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: client.client_id, code_verifier: verifier, resource: app.mcp });
    assert.equal(right.statusCode, 400);
    assert.equal(right.json().error, 'invalid_grant');
  });

  test('[59] a code is single use: the second use is invalid_grant and revokes the tokens of the first', async () => {
    const client = await registerClient(app);
    const who = await person(app);
    const b = new Browser(app);
    await b.signIn(who.email, who.password);
    const { code, verifier, redirectUri } = await obtainCode(app, b, client);
    const fields = { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: client.client_id, code_verifier: verifier };
    const first = await token(app, fields);
    assert.equal(first.statusCode, 200);
    assert.equal(await apiStatus(app, first.json().access_token), 404);
    const second = await token(app, fields);
    assert.equal(second.statusCode, 400);
    assert.equal(second.json().error, 'invalid_grant');
    assert.equal(await apiStatus(app, first.json().access_token), 401, 'tokens from the replayed code are revoked');
    const refreshed = await token(app, { grant_type: 'refresh_token', refresh_token: first.json().refresh_token, client_id: client.client_id });
    assert.equal(refreshed.json().error, 'invalid_grant');
  });

  test('[59] redirect_uri must equal the one of the authorization request', async () => {
    const client = await registerClient(app);
    const who = await person(app);
    const b = new Browser(app);
    await b.signIn(who.email, who.password);
    const { code, verifier } = await obtainCode(app, b, client);
    const res = await token(app, { grant_type: 'authorization_code', code, client_id: client.client_id, code_verifier: verifier });
    assert.equal(res.json().error, 'invalid_grant', 'missing redirect_uri when the request had one');
  });

  test('[60] a token request resource must match the authorized one: invalid_target; the token audience is that resource', async () => {
    const client = await registerClient(app);
    const who = await person(app);
    const b = new Browser(app);
    await b.signIn(who.email, who.password);
    const a = await obtainCode(app, b, client);
    const wrong = await token(app, { grant_type: 'authorization_code', code: a.code, redirect_uri: a.redirectUri, client_id: client.client_id, code_verifier: a.verifier, resource: app.config.legacyMcpUrl });
    assert.equal(wrong.statusCode, 400);
    assert.equal(wrong.json().error, 'invalid_target');
    const c = await obtainCode(app, b, client);
    const ok = await token(app, { grant_type: 'authorization_code', code: c.code, redirect_uri: c.redirectUri, client_id: client.client_id, code_verifier: c.verifier, resource: app.mcp });
    const p = await app.auth.accessTokens.verify(ok.json().access_token);
    assert.equal(p?.audience, app.mcp);
  });

  test('[61, 66] success: access_token, token_type Bearer, expires_in 3600 (a number), scope search, refresh_token for refresh clients', async () => {
    const { tokens } = await codeFlowTokens(app);
    assert.equal(typeof tokens.access_token, 'string');
    assert.equal(tokens.token_type, 'Bearer');
    assert.equal(tokens.expires_in, 3600);
    assert.equal(tokens.scope, 'search');
    assert.equal(typeof tokens.refresh_token, 'string');
    const noRefresh = await codeFlowTokens(app, { grant_types: ['authorization_code'] });
    assert.equal(noRefresh.tokens.refresh_token, undefined);
  });

  test('[66, 69] an access token stops working after 3600 s', async () => {
    const { tokens } = await codeFlowTokens(app);
    assert.equal(await apiStatus(app, tokens.access_token), 404);
    app.clock.advance(3601_000);
    assert.equal(await apiStatus(app, tokens.access_token), 401);
  });

  test('[9, 61] the access token is bound to its audience and scope (Principal for the MCP engineer)', async () => {
    const { tokens, who, client } = await codeFlowTokens(app);
    const p = await app.auth.accessTokens.verify(tokens.access_token);
    assert.deepEqual(
      { ...p, credentialId: typeof p?.credentialId },
      { accountId: who.id, credential: 'oauth', credentialId: 'string', scopes: ['search'], clientId: client.client_id, isAgent: true, audience: app.mcp },
    );
  });

  test('[62] refresh tokens rotate on every use; the new one works, the old one is dead after the grace window', async () => {
    const { tokens, client } = await codeFlowTokens(app);
    const r1 = await token(app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id });
    assert.equal(r1.statusCode, 200);
    const next = r1.json();
    assert.notEqual(next.refresh_token, tokens.refresh_token);
    assert.equal(next.expires_in, 3600);
    app.clock.advance(61_000);
    const r2 = await token(app, { grant_type: 'refresh_token', refresh_token: next.refresh_token, client_id: client.client_id });
    assert.equal(r2.statusCode, 200);
  });

  test('[62] replaying a rotated-out refresh token after the window is invalid_grant and revokes the whole family', async () => {
    const { tokens, client } = await codeFlowTokens(app);
    const r1 = (await token(app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id })).json();
    app.clock.advance(61_000);
    const replay = await token(app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id });
    assert.equal(replay.statusCode, 400);
    assert.equal(replay.json().error, 'invalid_grant');
    const successor = await token(app, { grant_type: 'refresh_token', refresh_token: r1.refresh_token, client_id: client.client_id });
    assert.equal(successor.json().error, 'invalid_grant', 'the family is revoked');
    assert.equal(await apiStatus(app, r1.access_token), 401);
  });

  test('[63] within the grace window a just-rotated refresh token gets the same successor (concurrent refreshes)', async () => {
    const { tokens, client } = await codeFlowTokens(app);
    const fields = { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id };
    const [a, b] = await Promise.all([token(app, fields), token(app, fields)]);
    assert.equal(a.statusCode, 200);
    assert.equal(b.statusCode, 200);
    assert.equal(a.json().refresh_token, b.json().refresh_token, 'both get the one successor');
    app.clock.advance(30_000);
    const c = await token(app, fields);
    assert.equal(c.json().refresh_token, a.json().refresh_token);
    const d = await token(app, { ...fields, refresh_token: a.json().refresh_token });
    assert.equal(d.statusCode, 200, 'the successor itself still rotates normally');
  });

  test('[63] inside the grace window a replay gets only its own successor: once that successor rotated, the replay ends the family', async () => {
    const { tokens, client } = await codeFlowTokens(app);
    const f = (rt: string) => token(app, { grant_type: 'refresh_token', refresh_token: rt, client_id: client.client_id });
    const t1 = (await f(tokens.refresh_token)).json();
    const t2 = (await f(t1.refresh_token)).json();
    assert.ok(t2.refresh_token);
    const replay = await f(tokens.refresh_token);
    assert.equal(replay.statusCode, 400, 'a stolen old token never yields the newest one');
    assert.equal(replay.json().error, 'invalid_grant');
    assert.equal((await f(t2.refresh_token)).json().error, 'invalid_grant', 'the family is revoked');
  });

  test('[64] refresh keeps audience and client; scope may only narrow; another client cannot use it', async () => {
    const { tokens, client } = await codeFlowTokens(app);
    const other = await registerClient(app);
    const stolen = await token(app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: other.client_id });
    assert.equal(stolen.json().error, 'invalid_grant');
    const wider = await token(app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id, scope: 'search admin' });
    assert.equal(wider.json().error, 'invalid_scope');
    const moved = await token(app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id, resource: app.config.legacyMcpUrl });
    assert.equal(moved.json().error, 'invalid_target');
    const ok = await token(app, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id, scope: 'search', resource: app.mcp });
    assert.equal(ok.statusCode, 200);
    const p = await app.auth.accessTokens.verify(ok.json().access_token);
    assert.equal(p?.audience, app.mcp);
    assert.equal(p?.clientId, client.client_id);
  });

  test('[65] password, implicit, client_credentials and unknown grants get unsupported_grant_type', async () => {
    for (const g of ['password', 'implicit', 'client_credentials', 'urn:example:unknown', 'urn:ietf:params:oauth:grant-type:device_code']) {
      const res = await token(app, { grant_type: g, client_id: 'x' });
      assert.equal(res.statusCode, 400, g);
      assert.equal(res.json().error, 'unsupported_grant_type', g);
    }
    assert.equal((await token(app, {})).json().error, 'invalid_request');
  });

  test('[58] a public client may send an empty secret (client_secret= or Basic "id:"); a made-up secret is invalid_client', async () => {
    const a = await codeFlowTokens(app);
    const empty = await token(app, { grant_type: 'refresh_token', refresh_token: a.tokens.refresh_token, client_id: a.client.client_id, client_secret: '' });
    assert.equal(empty.statusCode, 200);
    const basic = await token(app, { grant_type: 'refresh_token', refresh_token: empty.json().refresh_token }, { authorization: `Basic ${Buffer.from(`${a.client.client_id}:`).toString('base64')}` });
    assert.equal(basic.statusCode, 200);
    const made = await token(app, { grant_type: 'refresh_token', refresh_token: basic.json().refresh_token, client_id: a.client.client_id, client_secret: 'guess' });
    assert.equal(made.statusCode, 401);
    assert.equal(made.json().error, 'invalid_client');
  });

  test('[11] a token is read only from the Authorization header, never from the query string', async () => {
    const { tokens } = await codeFlowTokens(app);
    const res = await app.http.inject({ url: `/v2/documents/nope?access_token=${tokens.access_token}` });
    assert.equal(res.statusCode, 401);
  });
});

describe('refresh grace window of zero', () => {
  test('[63] with refreshGraceSeconds 0 any replay of a rotated-out token ends the family', async () => {
    const app = await authApp({ auth: { refreshGraceSeconds: 0 } } as never);
    try {
      const { tokens, client } = await codeFlowTokens(app);
      const f = (rt: string) => token(app, { grant_type: 'refresh_token', refresh_token: rt, client_id: client.client_id });
      const t1 = (await f(tokens.refresh_token)).json();
      assert.equal((await f(tokens.refresh_token)).json().error, 'invalid_grant');
      assert.equal((await f(t1.refresh_token)).json().error, 'invalid_grant');
    } finally {
      await app.dispose();
    }
  });
});
