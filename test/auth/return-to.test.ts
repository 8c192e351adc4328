// return_to is resolved like a browser resolves it and must stay on Lectern's origin (issue 13: the
// open redirect through `/%09/evil.example` and the 500 on CR/LF).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { safeReturnPath } from '../../src/http/routes/auth/web.js';
import { testApp } from '../helpers/app.js';

const BASE = 'http://127.0.0.1:8080';

test('same-origin paths are kept; anything a browser would take elsewhere is refused', () => {
  assert.equal(safeReturnPath('/v2/oauth/authorize?client_id=x&state=y#f', BASE), '/v2/oauth/authorize?client_id=x&state=y#f');
  assert.equal(safeReturnPath('/a/../v2/auth/account', BASE), '/v2/auth/account');
  for (const bad of ['//evil.example', '/\t/evil.example', '/\n/evil.example', '/\\evil.example', '\\\\evil.example', '/\\/evil.example', 'https://evil.example/', 'javascript:alert(1)', '/x\r\nSet-Cookie: a=b', ' /x', '', 'x'.repeat(5000), 42, null]) {
    assert.equal(safeReturnPath(bad, BASE), null, JSON.stringify(bad));
  }
});

test('the sign-in page never redirects off-site and never fails on control characters', async () => {
  const app = await testApp();
  try {
    for (const rt of ['/%09/evil.example', '/%0d%0aSet-Cookie:%20a=b', '//evil.example', '/%5Cevil.example']) {
      const res = await app.http.inject({ method: 'GET', url: `/v2/auth/sign-in?return_to=${rt}` });
      assert.ok(res.statusCode < 500, `${rt}: ${res.statusCode}`);
      const hidden = /name="return_to" value="([^"]*)"/.exec(res.body)?.[1];
      if (hidden !== undefined) assert.ok(!hidden.includes('evil') && !hidden.includes('\r'), `${rt}: ${hidden}`);
    }
  } finally {
    await app.dispose();
  }
});

// Issue 25: the origin check passed, then the emitted path began with `//` (`/.//evil.example` normalises
// to the path `//evil.example`, which a browser reads as another host). The property feeds the WHATWG
// parser's tricky pieces and checks what a browser would do with the emitted Location.
import fc from 'fast-check';
import { authApp, Browser, person } from './helpers.js';

const PIECES = ['/', '\\', '.', '..', '%2E', '%2e', '%2E%2E', '%2F', '%5C', '%2f', '\t', '\n', '\r', '%09', '%0a', ' ', '@', ':', '?', '#', 'evil.example', 'a', 'v2', 'x:y', '%00', '%40', '\u3002', 'ｅ'];

test('property: an accepted return_to never leaves the origin, wherever the browser resolves it', () => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 10 }), (parts) => {
      const value = parts.join('');
      const out = safeReturnPath(value, BASE);
      if (out === null) return;
      assert.ok(out.startsWith('/'), `${JSON.stringify(value)} -> ${JSON.stringify(out)}`);
      assert.ok(!out.startsWith('//') && !out.startsWith('/\\'), `${JSON.stringify(value)} -> ${JSON.stringify(out)}`);
      assert.ok(!/[\u0000-\u001f\u007f\\]/.test(out), `${JSON.stringify(value)} -> ${JSON.stringify(out)}`);
      // A browser resolves the Location against the page's URL: it must stay on that host whatever it is.
      for (const page of [BASE + '/v2/auth/sign-in', 'https://lectern.example/deep/path/x']) {
        assert.equal(new URL(out, page).origin, new URL(page).origin, `${JSON.stringify(value)} -> ${JSON.stringify(out)}`);
      }
      // Emitting it again is a fixed point (what we emit is already normal).
      assert.equal(safeReturnPath(out, BASE), out);
    }),
    { numRuns: 3000, examples: [[['/', '.', '/', '/', 'evil.example']], [['/', '..', '/', '/', 'evil.example']], [['/', 'a', '/', '..', '/', '/', 'evil.example']], [['/', '%2E', '/', '/', 'evil.example']], [['/', '.', '/', '\\', 'evil.example']]] },
  );
});

test('the named inputs of issue 25 are refused', () => {
  for (const bad of ['/.//evil.example', '/..//evil.example', '/a/..//evil.example', '/%2E//evil.example', '/./\\evil.example', '/.\\/evil.example', '/%2e%2e//evil.example', '/.\t//evil.example']) {
    assert.equal(safeReturnPath(bad, BASE), null, JSON.stringify(bad));
  }
});

test('signed in, the sign-in page never answers with a Location another host', async () => {
  const app = await authApp();
  try {
    const who = await person(app);
    const browser = new Browser(app);
    await browser.signIn(who.email, who.password);
    for (const rt of ['/.//evil.example', '/..//evil.example', '/a/..//evil.example', '/%2E//evil.example', '/./%5Cevil.example', '/.%2F/evil.example']) {
      const res = await browser.get(`/v2/auth/sign-in?return_to=${encodeURIComponent(rt)}`);
      const res2 = await browser.get(`/v2/auth/sign-in?return_to=${rt}`);
      for (const r of [res, res2]) {
        assert.equal(r.statusCode, 302, `${rt}: ${r.statusCode}`);
        const loc = String(r.headers.location);
        assert.ok(loc.startsWith('/') && !loc.startsWith('//') && !loc.startsWith('/\\'), `${rt}: ${loc}`);
        assert.equal(new URL(loc, 'http://127.0.0.1:8080/v2/auth/sign-in').host, '127.0.0.1:8080', `${rt}: ${loc}`);
      }
    }
  } finally {
    await app.dispose();
  }
});
