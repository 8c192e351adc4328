// People in the browser: sign-up, email confirmation, sign-in, sessions, password links, sign-out,
// CSRF on every form and clickjacking protection on every page (issue 4 item 1).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { authApp, Browser, csrfOf, person, PASSWORD, uniqueEmail, type AuthTestApp } from './helpers.js';

const linkIn = (text: string) => /(https?:\/\/\S+)/.exec(text)![1]!;
const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

describe('people: sign-up, sign-in, sessions', () => {
  let app: AuthTestApp;
  before(async () => {
    app = await authApp();
  });
  after(() => app.dispose());

  test('sign-up creates an unverified account and emails a confirmation link; confirming verifies it', async () => {
    const b = new Browser(app);
    const email = uniqueEmail('signup');
    const page = await b.get('/v2/auth/sign-up');
    assert.equal(page.statusCode, 200);
    const res = await b.post('/v2/auth/sign-up', { csrf: csrfOf(page.body), email, password: PASSWORD });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /Check your email/);
    const account = await app.accounts.find(email);
    assert.equal(account?.emailVerified, false);
    const msg = app.mail.find((m) => m.to === email)!;
    assert.match(msg.subject, /Confirm/);
    const confirm = await b.get(pathOf(linkIn(msg.text)));
    assert.equal(confirm.statusCode, 200, 'GET shows a form (mail scanners do not consume the link)');
    assert.equal((await app.accounts.find(email))?.emailVerified, false);
    const done = await b.post('/v2/auth/verify-email', { csrf: csrfOf(confirm.body), token: /name="token" value="([^"]+)"/.exec(confirm.body)![1] });
    assert.match(done.body, /confirmed/);
    assert.equal((await app.accounts.find(email))?.emailVerified, true);
    const reuse = await b.get(pathOf(linkIn(msg.text)));
    assert.equal(reuse.statusCode, 400, 'links are single use');
  });

  test('sign-up with a taken email does not reveal it: same answer, and the owner gets a password link', async () => {
    const who = await person(app);
    const b = new Browser(app);
    const page = await b.get('/v2/auth/sign-up');
    const res = await b.post('/v2/auth/sign-up', { csrf: csrfOf(page.body), email: who.email, password: PASSWORD });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /Check your email/);
    assert.match(app.mail.at(-1)!.text, /already has an account/);
  });

  test('sign-in sets an HttpOnly, SameSite=Lax session cookie; wrong passwords get one generic answer', async () => {
    const who = await person(app);
    const b = new Browser(app);
    const bad = await b.signIn(who.email, 'wrong password!!');
    assert.equal(bad.statusCode, 401);
    assert.match(bad.body, /Wrong email or password/);
    const unknown = await b.signIn('nobody@example.org', 'whatever password');
    assert.match(unknown.body, /Wrong email or password/);
    const ok = await b.signIn(who.email, who.password);
    assert.equal(ok.statusCode, 303);
    const cookie = [ok.headers['set-cookie']].flat().find((c) => c!.startsWith('lectern_session='))!;
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
    assert.doesNotMatch(cookie, /Secure/, 'plain http on loopback');
    const account = await b.get('/v2/auth/account');
    assert.equal(account.statusCode, 200);
    assert.match(account.body, new RegExp(who.email.replace(/[.+]/g, '\\$&')));
  });

  test('on https the cookies are Secure and __Host- prefixed', async () => {
    const a = await authApp({ baseUrl: 'https://lectern.example.org' });
    try {
      const who = await person(a);
      const b = new Browser(a);
      const page = await b.get('/v2/auth/sign-in');
      assert.match(String([page.headers['set-cookie']].flat()[0]), /^__Host-lectern_browser=.*; Secure/);
      const res = await b.post('/v2/auth/sign-in', { csrf: csrfOf(page.body), email: who.email, password: who.password });
      const cookie = [res.headers['set-cookie']].flat().find((c) => c!.startsWith('__Host-lectern_session='))!;
      assert.match(cookie, /Secure/);
      assert.match(cookie, /HttpOnly/);
      assert.match(cookie, /SameSite=Lax/);
      assert.match(cookie, /Path=\//);
    } finally {
      await a.dispose();
    }
  });

  test('every form needs its CSRF token (sign-in, sign-up, sign-out, password, account)', async () => {
    const who = await person(app);
    const b = new Browser(app);
    await b.get('/v2/auth/sign-in');
    for (const [url, fields] of [
      ['/v2/auth/sign-in', { email: who.email, password: who.password }],
      ['/v2/auth/sign-up', { email: uniqueEmail(), password: PASSWORD }],
      ['/v2/auth/forgot-password', { email: who.email }],
    ] as const) {
      const res = await b.post(url, { ...fields, csrf: 'forged' });
      assert.equal(res.statusCode, 403, url);
    }
    await b.signIn(who.email, who.password);
    for (const url of ['/v2/auth/sign-out', '/v2/auth/account/revoke', '/v2/auth/verify-email/resend']) {
      const res = await b.post(url, { csrf: 'forged', grant: 'x' });
      assert.equal(res.statusCode, 403, url);
    }
    assert.equal((await b.get('/v2/auth/account')).statusCode, 200, 'still signed in');
  });

  test('every page carries clickjacking and content protections', async () => {
    const b = new Browser(app);
    for (const url of ['/v2/auth/sign-in', '/v2/auth/sign-up', '/v2/auth/forgot-password', '/v2/auth/set-password?token=x', '/v2/oauth/authorize?client_id=nope']) {
      const res = await b.get(url);
      assert.match(String(res.headers['content-type']), /text\/html/, url);
      assert.equal(res.headers['x-frame-options'], 'DENY', url);
      assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/, url);
      assert.equal(res.headers['cache-control'], 'no-store', url);
      assert.equal(res.headers['referrer-policy'], 'no-referrer', url);
    }
  });

  test('sign-out ends the session server-side', async () => {
    const who = await person(app);
    const b = new Browser(app);
    await b.signIn(who.email, who.password);
    const session = b.cookies.get('lectern_session')!;
    const account = await b.get('/v2/auth/account');
    const res = await b.post('/v2/auth/sign-out', { csrf: csrfOf(account.body) });
    assert.equal(res.statusCode, 303);
    const replay = await app.http.inject({ url: '/v2/auth/account', headers: { cookie: `lectern_session=${session}` } });
    assert.equal(replay.statusCode, 302, 'the old cookie no longer signs anyone in');
  });

  test('password links set a password, verify the email, and revoke what an earlier impostor connected', async () => {
    const email = uniqueEmail('owner');
    const b = new Browser(app);
    const page = await b.get('/v2/auth/forgot-password');
    await app.accounts.create({ email, emailVerified: false });
    const res = await b.post('/v2/auth/forgot-password', { csrf: csrfOf(page.body), email });
    assert.match(res.body, /If that address has a Lectern account/);
    const nobody = await b.post('/v2/auth/forgot-password', { csrf: csrfOf(page.body), email: 'nobody-here@example.org' });
    assert.equal(nobody.body.replace(/value="[^"]*"/g, ''), res.body.replace(/value="[^"]*"/g, ''), 'same answer for unknown addresses');
    const link = linkIn(app.mail.filter((m) => m.to === email).at(-1)!.text);
    const form = await b.get(pathOf(link));
    const token = /name="token" value="([^"]+)"/.exec(form.body)![1]!;
    const short = await b.post('/v2/auth/set-password', { csrf: csrfOf(form.body), token, password: 'short' });
    assert.equal(short.statusCode, 400);
    assert.match(short.body, /at least 10 characters/);
    const done = await b.post('/v2/auth/set-password', { csrf: csrfOf(form.body), token, password: 'a much better password' });
    assert.match(done.body, /Password set/);
    assert.equal((await app.accounts.find(email))?.emailVerified, true);
    const b2 = new Browser(app);
    assert.equal((await b2.signIn(email, 'a much better password')).statusCode, 303);
  });

  test('return_to never leaves the site (no open redirect)', async () => {
    const who = await person(app);
    for (const target of ['https://evil.example/', '//evil.example/x', '/\\evil.example']) {
      const b = new Browser(app);
      const res = await b.signIn(who.email, who.password, target);
      assert.equal(res.headers.location, '/v2/auth/account', target);
    }
  });

  test('sign-in attempts are rate limited per address (429 page with Retry-After)', async () => {
    const a = await authApp({ rateLimits: { signin: { capacity: 2, refillPerSecond: 0.01 } } as never });
    try {
      const b = new Browser(a);
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await b.signIn('x@example.org', 'wrong password 123')).statusCode);
      assert.deepEqual(statuses, [401, 401, 429]);
    } finally {
      await a.dispose();
    }
  });

  test('sign-up can be closed by configuration', async () => {
    const a = await authApp({ auth: { allowSignUp: false } as never });
    try {
      const res = await new Browser(a).get('/v2/auth/sign-up');
      assert.equal(res.statusCode, 403);
    } finally {
      await a.dispose();
    }
  });
});
