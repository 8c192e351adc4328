import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.js';

describe('operations endpoints', () => {
  let app: TestApp;
  before(async () => {
    app = await testApp();
  });
  after(() => app.dispose());

  test('/healthz and /readyz need no credential', async () => {
    assert.deepEqual((await app.http.inject({ url: '/healthz' })).json(), { status: 'ok' });
    const ready = await app.http.inject({ url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.equal(ready.json().checks.storage, 'ok');
  });

  test('/readyz answers 503 ApiError when storage is gone', async () => {
    const other = await (await import('../helpers/app.js')).testApp();
    await other.storage.close();
    const res = await other.http.inject({ url: '/readyz' });
    assert.equal(res.statusCode, 503);
    assert.equal(res.json().detail.code, 'service_unavailable');
    await other.http.close();
  });

  test('/metrics counts requests by route and status', async () => {
    await app.http.inject({ url: '/v2/documents/x' });
    const text = (await app.http.inject({ url: '/metrics' })).body;
    assert.match(text, /lectern_http_requests_total\{method="GET",route="\/v2\/documents\/:document_id",status="401"\} 1/);
    assert.match(text, /lectern_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/healthz",status="200"\}/);
  });
});
