// The web account page (issue 11): balance and usage from the ledger, API keys created (shown once),
// listed and revoked (own keys only), password change, CSRF on every form, and the operator setting
// for the credits a self-service account starts with.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { authApp, Browser, csrfOf, person, PASSWORD, uniqueEmail, type AuthTestApp } from '../auth/helpers.js';
import { doc, seed } from '../helpers/documents.js';

const keyOf = (body: string) => /id="new-key" class="key" type="text" readonly value="(lk_[0-9a-f]{12}_[A-Za-z0-9_-]{43})"/.exec(body)?.[1];

describe('web pages: account', () => {
  let app: AuthTestApp;
  before(async () => {
    app = await authApp();
    // A search that finds something is charged (one with no hit is not: issue 25).
    await seed(app, [doc('w1', { title: 'Anything about hydrogen' })]);
    await app.indexes!.catchUp();
  });
  after(() => app.dispose());

  const signedIn = async (credits = 500) => {
    const p = await person(app, { credits });
    const b = new Browser(app);
    assert.equal((await b.signIn(p.email, p.password, '/account')).statusCode, 303);
    return { b, p };
  };

  test('signed out: the account page sends to sign-in and comes back', async () => {
    const res = await new Browser(app).get('/account');
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/v2/auth/sign-in?return_to=%2Faccount');
  });

  test('balance and usage history come from the ledger', async () => {
    const { b, p } = await signedIn(500);
    await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': p.apiKey }, payload: { query: 'anything' } });
    const page = await b.get('/account');
    assert.equal(page.statusCode, 200);
    const balance = await app.storage.ledger.balance(p.id);
    assert.ok(balance < 500);
    assert.match(page.body, new RegExp(`<strong>${balance}</strong> credits`));
    assert.match(page.body, /<td>Search<\/td><td><small>request <code>[^<]+<\/code><\/small><\/td><td class="num">-\d+<\/td>/);
    assert.match(page.body, /<td>Top-up<\/td><td>[^]*?<\/td><td class="num">\+500<\/td>/);
  });

  test('a key is created and shown once, works, is listed, and revoking it makes it fail with 401', async () => {
    const { b } = await signedIn();
    const page = await b.get('/account');
    const created = await b.post('/account/keys', { csrf: csrfOf(page.body), label: 'my script' });
    assert.equal(created.statusCode, 200);
    const key = keyOf(created.body)!;
    assert.ok(key, 'the new key is on the page');
    const status = async () => (await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': key }, payload: { query: 'x' } })).statusCode;
    assert.equal(await status(), 200);
    const again = await b.get('/account');
    assert.equal(keyOf(again.body), undefined, 'shown only once');
    const id = key.slice(3, 15);
    assert.match(again.body, new RegExp(`lk_${id}_…</code></td><td>my script</td>`));
    const revoked = await b.post('/account/keys/revoke', { csrf: csrfOf(again.body), key: id });
    assert.equal(revoked.statusCode, 200);
    assert.match(revoked.body, /is revoked/);
    assert.equal(await status(), 401);
  });

  test("someone else's key cannot be revoked; forms without the CSRF token are refused", async () => {
    const owner = await person(app);
    const ownerKey = owner.apiKey.slice(3, 15);
    const { b } = await signedIn();
    const page = await b.get('/account');
    const res = await b.post('/account/keys/revoke', { csrf: csrfOf(page.body), key: ownerKey });
    assert.equal(res.statusCode, 404);
    assert.match(res.body, /No active key with that id/);
    assert.equal((await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': owner.apiKey }, payload: { query: 'x' } })).statusCode, 200);
    const forged = await b.post('/account/keys', { label: 'x' });
    assert.equal(forged.statusCode, 403);
  });

  test('password change needs the current password and keeps this browser signed in', async () => {
    const { b, p } = await signedIn();
    const page = await b.get('/account');
    const wrong = await b.post('/account/password', { csrf: csrfOf(page.body), current: 'not it at all', next: 'a brand new password' });
    assert.equal(wrong.statusCode, 400);
    assert.match(wrong.body, /current password is wrong/);
    const ok = await b.post('/account/password', { csrf: csrfOf(wrong.body), current: PASSWORD, next: 'a brand new password' });
    assert.equal(ok.statusCode, 200);
    assert.match(ok.body, /password is changed/);
    assert.equal((await b.get('/account')).statusCode, 200, 'still signed in');
    assert.equal((await new Browser(app).signIn(p.email, 'a brand new password')).statusCode, 303);
  });
});

describe('web pages: starting credits of self-service accounts', () => {
  for (const credits of [0, 250]) {
    test(`auth.signUpCredits = ${credits}`, async () => {
      const app = await authApp({ auth: { signUpCredits: credits } } as never);
      try {
        const b = new Browser(app);
        const email = uniqueEmail('credits');
        const page = await b.get('/v2/auth/sign-up');
        assert.equal((await b.post('/v2/auth/sign-up', { csrf: csrfOf(page.body), email, password: PASSWORD })).statusCode, 200);
        const account = await app.accounts.find(email);
        assert.equal(await app.storage.ledger.balance(account!.id), credits);
      } finally {
        await app.dispose();
      }
    });
  }
});
