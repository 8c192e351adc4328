// The ShardClient contract against both transports: in-process, and HTTP to a shard server on loopback.
// Plus what only the network transport has: the cluster secret, the shard a node does not hold, bad bodies.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { randomBytes } from 'node:crypto';
import { InProcessShardClient, ShardSearcher } from '../../src/search/shard-searcher.js';
import { HttpShardClient } from '../../src/adapters/cluster/http-shard-client.js';
import { buildShardServer } from '../../src/http/shard-server.js';
import { MemoryIndexDirectory, SearchIndex } from '../../src/engine/index.js';
import { SHARD_DOCS, shardClientContract } from './shard-client.contract.js';

shardClientContract('in-process', async (searcher) => ({ client: new InProcessShardClient(searcher), dispose: async () => {} }));

shardClientContract('http', async (searcher) => {
  const secret = randomBytes(24).toString('base64url');
  const app = await buildShardServer({ searchers: [searcher], secret });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { client: new HttpShardClient(searcher.shard, url, secret), dispose: () => app.close() };
});

test('http shard server: the cluster secret is required, wrong shards and bad bodies are 4xx ApiErrors', async () => {
  const idx = SearchIndex.open(new MemoryIndexDirectory());
  for (const d of SHARD_DOCS) idx.add(d);
  idx.commit('1');
  const secret = randomBytes(24).toString('base64url');
  const app = await buildShardServer({ searchers: [new ShardSearcher(3, { get: () => idx })], secret });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const post = (path: string, body: unknown, auth: string | null = `Bearer ${secret}`) =>
      fetch(new URL(path, url), { method: 'POST', headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) }, body: JSON.stringify(body) });
    const stats = { index: 'documents', query: { text: 'heat' } };
    for (const auth of [null, 'Bearer wrong-secret-of-some-length', `Bearer ${secret}x`, 'Basic abc']) {
      const r = await post('/internal/v1/shards/3/stats', stats, auth);
      assert.equal(r.status, 401, String(auth));
      assert.ok(r.headers.get('x-request-id'));
      assert.equal(((await r.json()) as { status: string }).status, 'error');
    }
    assert.equal((await post('/internal/v1/shards/3/stats', stats)).status, 200);
    const other = await post('/internal/v1/shards/2/stats', stats);
    assert.equal(other.status, 404);
    assert.match(JSON.stringify(await other.json()), /holds 3/);
    const bad = await post('/internal/v1/shards/3/search', { index: 'documents', query: { text: 'x', limit: 100000 }, globalStats: { docCount: 1, segmentDocs: 1, fieldTotals: [1, 1, 1], df: {} } });
    assert.equal(bad.status, 422); // validation_failed, as on the public API
    const extra = await post('/internal/v1/shards/3/stats', { ...stats, sneaky: true });
    assert.equal(extra.status, 422);
    const notJson = await fetch(new URL('/internal/v1/shards/3/stats', url), { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` }, body: '{' });
    assert.equal(notJson.status, 400);
    const health = await fetch(new URL('/internal/v1/health', url), { headers: { authorization: `Bearer ${secret}` } });
    assert.deepEqual(await health.json(), { status: 'ok', shards: [3] });
    const client = new HttpShardClient(3, url, 'not-the-secret-at-all');
    await assert.rejects(client.stats({ index: 'documents', query: { text: 'heat' } }), /HTTP 401/);
  } finally {
    await app.close();
    idx.close();
  }
});

test('a shard server refuses a short cluster secret', async () => {
  await assert.rejects(buildShardServer({ searchers: [], secret: 'short' }));
});
