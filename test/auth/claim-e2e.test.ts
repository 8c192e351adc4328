// The claim flow end to end over a real socket, as an agent and a person would do it: register,
// pending, slow_down, the person signs in (cookies, CSRF) and approves in the page, token, renew with
// the assertion, revoke, refused, renew again. With DATABASE_URL the same walk runs on PostgreSQL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { openTempPostgres, databaseUrl, postgresSkip } from '../helpers/storage.js';
import { authApp, codeFlowTokens, person, token, type AuthTestApp } from './helpers.js';

/** A minimal browser over fetch: a cookie jar, no automatic redirects. */
class FetchBrowser {
  readonly jar = new Map<string, string>();
  constructor(readonly base: string) {}
  async go(path: string, form?: Record<string, string>): Promise<{ status: number; location: string | null; body: string }> {
    const headers: Record<string, string> = { accept: 'text/html' };
    if (this.jar.size) headers.cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(new URL(path, this.base), { method: form ? 'POST' : 'GET', headers, body: form ? new URLSearchParams(form).toString() : undefined, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      this.jar.set(pair!.slice(0, i), pair!.slice(i + 1));
    }
    return { status: res.status, location: res.headers.get('location'), body: await res.text() };
  }
}

const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]?.replace(/&amp;/g, '&') ?? '';

async function walk(app: AuthTestApp): Promise<void> {
  await app.http.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.http.server.address() as AddressInfo).port}`;
  const post = async (path: string, body: Record<string, string>, json = false) => {
    const res = await fetch(new URL(path, base), {
      method: 'POST',
      headers: { 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' },
      body: json ? JSON.stringify(body) : new URLSearchParams(body).toString(),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
  };
  const api = async (tokenValue: string) => (await fetch(new URL('/v2/documents/none', base), { headers: { authorization: `Bearer ${tokenValue}` } })).status;
  const claimGrant = 'urn:lectern:agent-auth:grant-type:claim';
  const who = await person(app);

  // 1. The agent discovers the endpoints and registers.
  const md = (await (await fetch(new URL('/.well-known/oauth-authorization-server', base))).json()) as Record<string, any>;
  const tokenPath = new URL(md.token_endpoint).pathname;
  const reg = await post(new URL(md.agent_auth.identity_endpoint).pathname, { type: 'service_auth', login_hint: who.email }, true);
  assert.equal(reg.status, 201);
  const { claim_token: claimToken, claim } = reg.body;

  // 2. It polls: pending, then too fast: slow_down.
  const first = await post(tokenPath, { grant_type: claimGrant, claim_token: claimToken });
  assert.equal(first.body.error, 'authorization_pending');
  assert.equal(first.headers.get('cache-control'), 'no-store');
  app.clock.advance(1000);
  assert.equal((await post(tokenPath, { grant_type: claimGrant, claim_token: claimToken })).body.error, 'slow_down');

  // 3. The person opens verification_uri, is sent to sign in, signs in, comes back, sees the code, approves.
  const browser = new FetchBrowser(base);
  const verifyPath = `${new URL(claim.verification_uri).pathname}${new URL(claim.verification_uri).search}`;
  const toSignIn = await browser.go(verifyPath);
  assert.equal(toSignIn.status, 302);
  const signInPage = await browser.go(toSignIn.location!);
  assert.equal(signInPage.status, 200);
  const signedIn = await browser.go('/v2/auth/sign-in', { csrf: field(signInPage.body, 'csrf'), return_to: field(signInPage.body, 'return_to'), email: who.email, password: who.password });
  assert.equal(signedIn.status, 303);
  assert.equal(signedIn.location, verifyPath);
  const page = await browser.go(signedIn.location!);
  assert.equal(page.status, 200);
  assert.ok(page.body.includes(`${claim.user_code.slice(0, 3)} ${claim.user_code.slice(3)}`), 'the page shows the code the agent shows');
  const approved = await browser.go(new URL(md.agent_auth.claim_complete_uri).pathname, { csrf: field(page.body, 'csrf'), attempt: field(page.body, 'attempt'), decision: 'approve', user_code: claim.user_code });
  assert.equal(approved.status, 200);
  assert.match(approved.body, /Agent approved/);

  // 4. The next poll (after interval + 5 s) gets the tokens.
  app.clock.advance(10_000);
  const tokens = await post(tokenPath, { grant_type: claimGrant, claim_token: claimToken });
  assert.equal(tokens.status, 200);
  assert.equal(tokens.body.token_type, 'Bearer');
  assert.equal(tokens.body.expires_in, 3600);
  assert.equal(tokens.body.scope, 'search');
  assert.equal(await api(tokens.body.access_token), 404, 'the token works on the API');
  assert.equal((await post(tokenPath, { grant_type: claimGrant, claim_token: claimToken })).body.error, 'invalid_grant', 'redeemed once');

  // 5. Renew with the assertion.
  const renewed = await post(tokenPath, { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: tokens.body.identity_assertion });
  assert.equal(renewed.status, 200);
  assert.equal(await api(renewed.body.access_token), 404);

  // 6. Revoke the renewed token: refused at once; the first token still works.
  const revoked = await post(new URL(md.revocation_endpoint).pathname, { token: renewed.body.access_token, token_type_hint: 'access_token' });
  assert.equal(revoked.status, 200);
  assert.equal(await api(renewed.body.access_token), 401);
  assert.equal(await api(tokens.body.access_token), 404);

  // 7. Renew again with the same assertion.
  const again = await post(tokenPath, { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: tokens.body.identity_assertion });
  assert.equal(again.status, 200);
  assert.equal(await api(again.body.access_token), 404);
}

test('[74, 77, 78, 79, 85, 71, 69] the claim flow end to end over HTTP: register, pending, slow_down, approve in the page, token, renew, revoke, refused, renew again', async () => {
  const app = await authApp();
  try {
    await walk(app);
  } finally {
    await app.dispose();
  }
});

test('[58, 79, 85] the claim flow end to end on PostgreSQL', { skip: databaseUrl ? false : postgresSkip('PostgreSQL claim flow') }, async () => {
  const pg = await openTempPostgres(databaseUrl!);
  const app = await authApp({}, { storage: pg.storage });
  try {
    await walk(app);
  } finally {
    await app.dispose();
    await pg.dispose().catch(() => {});
  }
});

test('[59, 62, 63] the code flow with refresh rotation on PostgreSQL', { skip: databaseUrl ? false : postgresSkip('PostgreSQL code flow') }, async () => {
  const pg = await openTempPostgres(databaseUrl!);
  const app = await authApp({}, { storage: pg.storage });
  try {
    const { tokens, client } = await codeFlowTokens(app);
    const fields = { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id };
    const results = await Promise.all(Array.from({ length: 4 }, () => token(app, fields)));
    assert.deepEqual(results.map((r) => r.statusCode), [200, 200, 200, 200]);
    assert.equal(new Set(results.map((r) => r.json().refresh_token)).size, 1, 'one successor for concurrent refreshes');
    app.clock.advance(61_000);
    assert.equal((await token(app, fields)).json().error, 'invalid_grant');
    assert.equal((await token(app, { ...fields, refresh_token: results[0]!.json().refresh_token })).json().error, 'invalid_grant', 'family revoked');
  } finally {
    await app.dispose();
    await pg.dispose().catch(() => {});
  }
});
