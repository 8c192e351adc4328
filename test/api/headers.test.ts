// Headers as clients meet them (issue 13): the API's 401 carries a Bearer challenge (RFC 6750 §3), and a
// well-formed client X-Request-Id is kept and echoed so a request can be traced from the client's logs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';

describe('headers', () => {
  let app: TestApp;
  before(async () => {
    app = await testApp();
  });
  after(() => app.dispose());

  test('401 names the Bearer scheme; invalid_token when a credential was refused', async () => {
    const none = await app.http.inject({ method: 'GET', url: '/v2/conversations/' });
    assert.equal(none.statusCode, 401);
    assert.equal(none.headers['www-authenticate'], 'Bearer realm="lectern"');
    const bad = await app.http.inject({ method: 'GET', url: '/v2/conversations/', headers: { 'x-api-key': 'lk_nope' } });
    assert.match(String(bad.headers['www-authenticate']), /^Bearer realm="lectern", error="invalid_token"/);
  });

  test('a well-formed client X-Request-Id is kept; a malformed one is replaced', async () => {
    const kept = await app.http.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'client-trace-0001' } });
    assert.equal(kept.headers['x-request-id'], 'client-trace-0001');
    for (const bad of ['short', 'has spaces in it', 'x'.repeat(200), 'evil\u00e9id-123']) {
      const res = await app.http.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': bad } });
      assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/, bad);
    }
  });
});
