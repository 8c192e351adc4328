// The service_auth claim flow: registration, verification page, polling, terminal states, new
// attempts, and renewal with the identity assertion: auth requirements 74-87.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT, decodeJwt, decodeProtectedHeader, generateKeyPair } from 'jose';
import {
  apiStatus,
  approveInPage,
  approvedAgent,
  authApp,
  Browser,
  CLAIM_GRANT,
  hiddenFields,
  JWT_BEARER,
  pathOf,
  person,
  registerAgent,
  token,
  type AuthTestApp,
} from './helpers.js';

describe('service_auth claim flow', () => {
  let app: AuthTestApp;
  before(async () => {
    app = await authApp();
  });
  after(() => app.dispose());

  const poll = (claimToken: string) => token(app, { grant_type: CLAIM_GRANT, claim_token: claimToken });

  test('[74] registration returns the record: id, type, claim_url, claim_token (>= 128 bits), expiry ~now+900 s, scopes, claim', async () => {
    const res = await registerAgent(app, { type: 'service_auth', login_hint: 'Ada@Example.org' });
    assert.equal(res.statusCode, 201);
    const r = res.json();
    assert.equal(typeof r.registration_id, 'string');
    assert.equal(r.registration_type, 'service_auth');
    assert.equal(r.claim_url, `${app.config.authUrl}/v2/agent/identity/claim`);
    assert.match(r.claim_token, /^lct_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/, '256 random bits');
    assert.match(r.claim_token_expires, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(Date.parse(r.claim_token_expires), app.clock.nowMs() + 900_000);
    assert.ok(r.post_claim_scopes.includes('search'));
    assert.match(r.claim.user_code, /^\d{6}$/);
    assert.equal(r.claim.expires_in, 900);
    assert.equal(r.claim.interval, 5);
    assert.match(r.claim.verification_uri, new RegExp(`^${app.config.authUrl}/v2/agent/verify\\?attempt=`));
    assert.equal(res.headers['cache-control'], 'no-store');
  });

  test('[75] anonymous registration, other types and external identity assertions get 4xx', async () => {
    const bodies: unknown[] = [
      { type: 'service_auth' },
      { type: 'service_auth', login_hint: '' },
      { type: 'anonymous' },
      { type: 'anonymous', login_hint: 'a@example.org' },
      { type: 'id_token', login_hint: 'a@example.org', assertion: 'eyJ...' },
      { type: 'service_auth', login_hint: 'a@example.org', assertion: 'eyJ.x.y' },
      { type: 'service_auth', login_hint: 'not an email' },
      {},
    ];
    for (const b of bodies) {
      const res = await registerAgent(app, b);
      assert.ok(res.statusCode >= 400 && res.statusCode < 500, JSON.stringify(b));
      assert.equal(res.json().status, 'error', 'the identity endpoint answers ApiError');
    }
    const form = await app.http.inject({ method: 'POST', url: '/v2/agent/identity', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'type=service_auth&login_hint=a@example.org' });
    assert.equal(form.statusCode, 415);
  });

  test('[76] verification_uri carries its own attempt token (not the claim token, not the user code); nothing is emailed', async () => {
    const who = await person(app);
    const before = app.mail.length;
    const r = (await registerAgent(app, { type: 'service_auth', login_hint: who.email })).json();
    const uri = new URL(r.claim.verification_uri);
    const attempt = uri.searchParams.get('attempt')!;
    assert.match(attempt, /^lat_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    assert.ok(!r.claim.verification_uri.includes(r.claim_token));
    assert.ok(!r.claim.verification_uri.includes(r.claim.user_code));
    assert.ok(!r.claim.verification_uri.includes(r.claim_token.slice(-43)));
    assert.equal(app.mail.length, before, 'no email on registration');
    const b = new Browser(app);
    await b.signIn(who.email, who.password);
    await approveInPage(b, r.claim.verification_uri);
    assert.ok(!app.mail.slice(before).some((m) => m.text.includes(r.claim.user_code)), 'the code is never emailed');
  });

  test('[76] approval needs a sign-in with the matching, verified email', async () => {
    const owner = await person(app);
    const r = (await registerAgent(app, { type: 'service_auth', login_hint: owner.email })).json();
    const anon = new Browser(app);
    const redirect = await anon.get(pathOf(r.claim.verification_uri));
    assert.equal(redirect.statusCode, 302);
    assert.match(redirect.headers.location as string, /^\/v2\/auth\/sign-in\?return_to=/);
    const stranger = await person(app);
    const sb = new Browser(app);
    await sb.signIn(stranger.email, stranger.password);
    const other = await sb.get(pathOf(r.claim.verification_uri));
    assert.equal(other.statusCode, 403);
    assert.match(other.body, /another account/);
    assert.doesNotMatch(other.body, new RegExp(r.claim.user_code), 'another account never sees the code');
    const unverified = await person(app, { verified: false });
    const r2 = (await registerAgent(app, { type: 'service_auth', login_hint: unverified.email })).json();
    const ub = new Browser(app);
    await ub.signIn(unverified.email, unverified.password);
    const page = await ub.get(pathOf(r2.claim.verification_uri));
    assert.equal(page.statusCode, 403);
    assert.match(page.body, /Confirm your email address first/);
    assert.equal((await poll(r2.claim_token)).json().error, 'authorization_pending');
  });

  test('[76] claim_complete_uri accepts only the signed-in browser with its CSRF token, never the agent', async () => {
    const who = await person(app);
    const r = (await registerAgent(app, { type: 'service_auth', login_hint: who.email })).json();
    const attempt = new URL(r.claim.verification_uri).searchParams.get('attempt')!;
    // The agent, with its claim token as a bearer, posting the form.
    const agent = await app.http.inject({
      method: 'POST',
      url: '/v2/agent/verify/complete',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${r.claim_token}` },
      payload: new URLSearchParams({ attempt, decision: 'approve', user_code: r.claim.user_code }).toString(),
    });
    assert.equal(agent.statusCode, 401);
    const b = new Browser(app);
    await b.signIn(who.email, who.password);
    const page = await b.get(pathOf(r.claim.verification_uri));
    const forged = await b.post('/v2/agent/verify/complete', { ...hiddenFields(page.body), csrf: 'nope', decision: 'approve', user_code: r.claim.user_code });
    assert.equal(forged.statusCode, 403);
    assert.equal((await poll(r.claim_token)).json().error, 'authorization_pending');
    assert.equal(page.headers['x-frame-options'], 'DENY');
  });

  test('[77] before the person decides, a poll gets 400 authorization_pending', async () => {
    const r = (await registerAgent(app, { type: 'service_auth', login_hint: 'pending@example.org' })).json();
    const res = await poll(r.claim_token);
    assert.equal(res.statusCode, 400);
    assert.deepEqual(Object.keys(res.json()).sort(), ['error', 'error_description']);
    assert.equal(res.json().error, 'authorization_pending');
  });

  test('[78] a poll faster than the interval gets slow_down; a client that adds 5 s is not slowed again', async () => {
    const r = (await registerAgent(app, { type: 'service_auth', login_hint: 'fast@example.org' })).json();
    assert.equal((await poll(r.claim_token)).json().error, 'authorization_pending');
    app.clock.advance(1000);
    const slowed = await poll(r.claim_token);
    assert.equal(slowed.statusCode, 400);
    assert.equal(slowed.json().error, 'slow_down');
    app.clock.advance(10_000);
    assert.equal((await poll(r.claim_token)).json().error, 'authorization_pending', 'interval + 5 s is fine');
    app.clock.advance(10_000);
    assert.equal((await poll(r.claim_token)).json().error, 'authorization_pending', 'and stays fine');
    app.clock.advance(6_000);
    assert.equal((await poll(r.claim_token)).json().error, 'slow_down', 'the lengthened interval is enforced');
  });

  test('[79] after approval the next poll gets 200 with access_token, Bearer, 3600, search and identity_assertion', async () => {
    const { tokens } = await approvedAgent(app);
    assert.equal(typeof tokens.access_token, 'string');
    assert.equal(tokens.token_type, 'Bearer');
    assert.equal(tokens.expires_in, 3600);
    assert.equal(tokens.scope, 'search');
    assert.equal(typeof tokens.identity_assertion, 'string');
    assert.equal(tokens.refresh_token, undefined, 'no refresh token for service_auth (decision 8)');
    assert.equal(await apiStatus(app, tokens.access_token), 404);
  });

  test('[80] deny gives access_denied, lifetime elapsed gives expired_token; both terminal', async () => {
    const who = await person(app);
    const r = (await registerAgent(app, { type: 'service_auth', login_hint: who.email })).json();
    const b = new Browser(app);
    await b.signIn(who.email, who.password);
    const page = await b.get(pathOf(r.claim.verification_uri));
    const denied = await b.post('/v2/agent/verify/complete', { ...hiddenFields(page.body), decision: 'deny' });
    assert.equal(denied.statusCode, 200);
    assert.match(denied.body, /Request denied/);
    for (let i = 0; i < 2; i++) {
      const res = await poll(r.claim_token);
      assert.equal(res.json().error, 'access_denied');
      app.clock.advance(6000);
    }
    const late = (await registerAgent(app, { type: 'service_auth', login_hint: who.email })).json();
    app.clock.advance(900_000);
    assert.equal((await poll(late.claim_token)).json().error, 'expired_token');
    const afterExpiry = await b.get(pathOf(late.claim.verification_uri));
    assert.equal(afterExpiry.statusCode, 410);
  });

  test('[81] terminal states come before rate limits; a redeemed claim is invalid_grant, never a second token', async () => {
    const { reg } = await approvedAgent(app);
    for (let i = 0; i < 3; i++) {
      const res = await poll(reg.claim_token);
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().error, 'invalid_grant', 'redeemed, even when polled too fast');
    }
    assert.equal((await poll('lct_0123456789abcdef_' + 'a'.repeat(43))).json().error, 'invalid_grant');
    assert.equal((await poll('nonsense')).json().error, 'invalid_grant');
    // The address-wide OAuth budget (ADR 0083: the per-client buckets are separate) holds three requests.
    const limited = await authApp({ rateLimits: { oauthAddress: { capacity: 3, refillPerSecond: 0.001 } } as never });
    try {
      const r = (await registerAgent(limited, { type: 'service_auth', login_hint: 'x@example.org' })).json();
      await token(limited, { grant_type: 'authorization_code', client_id: 'drain' });
      const who = await person(limited, { email: 'y@example.org' });
      void who;
      const r2 = (await registerAgent(limited, { type: 'service_auth', login_hint: 'y@example.org' })).json();
      void r2;
      // The bucket is empty now: a pending claim is rate limited...
      const pending = await token(limited, { grant_type: CLAIM_GRANT, claim_token: r.claim_token });
      assert.equal(pending.statusCode, 429);
      assert.ok(Number(pending.headers['retry-after']) >= 1);
      // ...but terminal answers are given first.
      limited.clock.advance(901_000);
      const expired = await token(limited, { grant_type: CLAIM_GRANT, claim_token: r.claim_token });
      assert.equal(expired.json().error, 'expired_token');
    } finally {
      await limited.dispose();
    }
  });

  test('[82] claim-flow errors are JSON {error} with Cache-Control: no-store', async () => {
    const r = (await registerAgent(app, { type: 'service_auth', login_hint: 'json@example.org' })).json();
    const res = await poll(r.claim_token);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(typeof res.json().error, 'string');
    const missing = await token(app, { grant_type: CLAIM_GRANT });
    assert.equal(missing.json().error, 'invalid_request');
  });

  test('[83] wrong codes are limited per attempt: the last allowed wrong code denies it; the attempt token is required', async () => {
    const who = await person(app);
    const r = (await registerAgent(app, { type: 'service_auth', login_hint: who.email })).json();
    const b = new Browser(app);
    await b.signIn(who.email, who.password);
    const wrong = r.claim.user_code === '000000' ? '111111' : '000000';
    for (let i = 1; i <= 4; i++) {
      const res = await approveInPage(b, r.claim.verification_uri, wrong);
      assert.equal(res.statusCode, 400);
      assert.match(res.body, new RegExp(`${5 - i} tr(y|ies) left`));
    }
    const last = await approveInPage(b, r.claim.verification_uri, wrong);
    assert.match(last.body, /Request denied/);
    assert.equal((await poll(r.claim_token)).json().error, 'access_denied');
    const page = await b.get('/v2/agent/verify');
    assert.equal(page.statusCode, 404, 'no attempt token, no page');
    const guessed = await b.get('/v2/agent/verify?attempt=lat_0123456789abcdef_' + 'a'.repeat(43));
    assert.equal(guessed.statusCode, 404);
  });

  test('[84] POST /v2/agent/identity/claim starts a new attempt for an unexpired claim token (documented shape)', async () => {
    const who = await person(app);
    const r = (await registerAgent(app, { type: 'service_auth', login_hint: who.email })).json();
    const res = await app.http.inject({ method: 'POST', url: '/v2/agent/identity/claim', payload: { claim_token: r.claim_token } });
    assert.equal(res.statusCode, 200);
    const again = res.json();
    assert.equal(again.registration_id, r.registration_id);
    assert.equal(again.claim_token, r.claim_token);
    assert.notEqual(again.claim.verification_uri, r.claim.verification_uri);
    const b = new Browser(app);
    await b.signIn(who.email, who.password);
    assert.equal((await b.get(pathOf(r.claim.verification_uri))).statusCode, 404, 'the old link stops working');
    await approveInPage(b, again.claim.verification_uri);
    const tokens = await poll(r.claim_token);
    assert.equal(tokens.statusCode, 200);
    const conflict = await app.http.inject({ method: 'POST', url: '/v2/agent/identity/claim', payload: { claim_token: r.claim_token } });
    assert.equal(conflict.statusCode, 409);
    const unknown = await app.http.inject({ method: 'POST', url: '/v2/agent/identity/claim', payload: { claim_token: 'lct_0123456789abcdef_' + 'a'.repeat(43) } });
    assert.equal(unknown.statusCode, 401);
    assert.equal(unknown.json().detail, 'Unauthorized');
  });

  test('[84] a denied registration can start again, at most 5 attempts', async () => {
    const r = (await registerAgent(app, { type: 'service_auth', login_hint: 'retry@example.org' })).json();
    for (let i = 2; i <= 5; i++) assert.equal((await app.http.inject({ method: 'POST', url: '/v2/agent/identity/claim', payload: { claim_token: r.claim_token } })).statusCode, 200);
    assert.equal((await app.http.inject({ method: 'POST', url: '/v2/agent/identity/claim', payload: { claim_token: r.claim_token } })).statusCode, 409);
  });

  test('[85] jwt-bearer with the identity assertion returns a new access token (3600 s, search)', async () => {
    const { tokens } = await approvedAgent(app);
    const res = await token(app, { grant_type: JWT_BEARER, assertion: tokens.identity_assertion });
    assert.equal(res.statusCode, 200);
    const t = res.json();
    assert.equal(t.token_type, 'Bearer');
    assert.equal(t.expires_in, 3600);
    assert.equal(t.scope, 'search');
    assert.notEqual(t.access_token, tokens.access_token);
    assert.equal(await apiStatus(app, t.access_token), 404);
    app.clock.advance(7200_000);
    assert.equal((await token(app, { grant_type: JWT_BEARER, assertion: tokens.identity_assertion })).statusCode, 200, 'renewal works after the access token expired');
  });

  test('[86] the assertion is a JWT with iss, sub, aud, exp, iat, jti; tampering, expiry and a missing assertion are refused', async () => {
    const { tokens } = await approvedAgent(app);
    const claims = decodeJwt(tokens.identity_assertion);
    for (const k of ['iss', 'sub', 'aud', 'exp', 'iat', 'jti']) assert.ok(claims[k] !== undefined, k);
    assert.equal(claims.iss, app.config.authUrl);
    assert.equal(claims.aud, `${app.config.authUrl}/v2/oauth/token`);
    const [h, p, s] = tokens.identity_assertion.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'reg_someone_else' })).toString('base64url')}.${s}`;
    void p;
    assert.equal((await token(app, { grant_type: JWT_BEARER, assertion: tampered })).json().error, 'invalid_grant');
    assert.equal((await token(app, { grant_type: JWT_BEARER, assertion: 'not-a-jwt' })).json().error, 'invalid_grant');
    const missing = await token(app, { grant_type: JWT_BEARER });
    assert.equal(missing.json().error, 'invalid_request');
    app.clock.advance((claims.exp! - claims.iat! + 120) * 1000);
    assert.equal((await token(app, { grant_type: JWT_BEARER, assertion: tokens.identity_assertion })).json().error, 'invalid_grant', 'expired connection');
  });

  test('[87] only assertions this service issued: a foreign-signed or access-token JWT is refused; the assertion survives access-token revocation', async () => {
    const { tokens } = await approvedAgent(app);
    const { privateKey } = await generateKeyPair('ES256');
    const header = decodeProtectedHeader(tokens.identity_assertion);
    const claims = decodeJwt(tokens.identity_assertion);
    const foreign = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'ES256', kid: header.kid!, typ: header.typ! }).sign(privateKey);
    assert.equal((await token(app, { grant_type: JWT_BEARER, assertion: foreign })).json().error, 'invalid_grant');
    assert.equal((await token(app, { grant_type: JWT_BEARER, assertion: tokens.access_token })).json().error, 'invalid_grant', 'an access token is not an assertion');
    const asBearer = await apiStatus(app, tokens.identity_assertion);
    assert.equal(asBearer, 401, 'an assertion is not an access token');
    await app.http.inject({ method: 'POST', url: '/v2/oauth/revoke', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `token=${tokens.access_token}&token_type_hint=access_token` });
    assert.equal((await token(app, { grant_type: JWT_BEARER, assertion: tokens.identity_assertion })).statusCode, 200);
  });

  test('[87] the person can disconnect the agent on the account page: the assertion stops working', async () => {
    const { tokens, browser } = await approvedAgent(app);
    const page = await browser.get('/v2/auth/account');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Agent \(service_auth\)/);
    const grant = /name="grant" value="([^"]+)"/.exec(page.body)![1]!;
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const res = await browser.post('/v2/auth/account/revoke', { csrf, grant });
    assert.equal(res.statusCode, 200);
    assert.equal(await apiStatus(app, tokens.access_token), 401);
    assert.equal((await token(app, { grant_type: JWT_BEARER, assertion: tokens.identity_assertion })).json().error, 'invalid_grant');
  });
});
