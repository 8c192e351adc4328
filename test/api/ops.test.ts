import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';

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
    assert.equal(ready.json().checks.indexes, 'ok');
    assert.equal(ready.json().index_seq, await app.storage.documents.maxSeq());
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

  test('/readyz: a server that listens before its indexes caught up says so (503) until they have, then 200 with index_seq', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lectern-ready-'));
    try {
      // documents the indexes have not seen: stored by a first process whose indexes never caught up
      const first = await testApp({ dataDir: dir });
      await seed(first, Array.from({ length: 30 }, (_, i) => doc(`r${i}`, { title: `Readiness note ${i}` })));
      const target = await first.storage.documents.maxSeq();
      await first.close();
      const server = await testApp({ dataDir: dir }, { deferIndexCatchUp: true });
      try {
        const before = await server.http.inject({ url: '/readyz' });
        assert.equal(before.statusCode, 503);
        assert.equal(before.headers['retry-after'], '1');
        assert.match(before.json().detail.message, /indexes: catching up with the store \(indexed through change 0 of \d+\)/);
        assert.equal(before.json().detail.index_seq, 0);
        assert.equal((await server.http.inject({ url: '/healthz' })).statusCode, 200, 'live while not ready');
        server.startBackgroundWork();
        let ready = before;
        for (let i = 0; i < 600 && ready.statusCode !== 200; i++) {
          await new Promise((r) => setTimeout(r, 50));
          ready = await server.http.inject({ url: '/readyz' });
        }
        assert.equal(ready.statusCode, 200, ready.body);
        assert.equal(ready.json().checks.indexes, 'ok');
        assert.equal(ready.json().index_seq, target);
        // what /readyz called caught up is searchable
        const key = (await server.account({ credits: 1000 })).key;
        const hits = await server.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': key }, payload: { query: 'readiness note', limit: 50 } });
        assert.equal(hits.statusCode, 200);
        assert.equal((hits.json() as { total_hits: number }).total_hits, 30);
      } finally {
        await server.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
