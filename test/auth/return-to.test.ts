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
