// The ShardClient contract against both transports: in-process, and HTTP to a shard server on loopback.
// Plus what only the network transport has: the cluster secret, the shard a node does not hold, bad bodies.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { randomBytes } from 'node:crypto';
import { InProcessShardClient, ShardSearcher } from '../../src/search/shard-searcher.js';
import { HttpShardClient } from '../../src/adapters/cluster/http-shard-client.js';
import { FrameConnections, FrameShardClient } from '../../src/adapters/cluster/frame-shard-client.js';
import { ShardSearcher as Searcher } from '../../src/search/shard-searcher.js';
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

shardClientContract('frames', async (searcher) => {
  const secret = randomBytes(24).toString('base64url');
  const app = await buildShardServer({ searchers: [searcher], secret });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const client = new FrameShardClient(searcher.shard, url, secret);
  return {
    client,
    dispose: async () => {
      client.close();
      await app.close();
    },
  };
});

test('framed shard calls: the cluster secret opens the connection, wrong shards and bad bodies are 4xx errors, one connection per node', async () => {
  const idx = SearchIndex.open(new MemoryIndexDirectory());
  for (const d of SHARD_DOCS) idx.add(d);
  idx.commit('1');
  const secret = randomBytes(24).toString('base64url');
  // one process holding two shards
  const app = await buildShardServer({ searchers: [new Searcher(3, { get: () => idx }), new Searcher(4, { get: () => idx })], secret });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const stats = { index: 'documents' as const, query: { text: 'heat' } };
  try {
    for (const wrong of ['not-the-secret-at-all', `${secret}x`]) {
      const bad = new FrameShardClient(3, url, wrong);
      await assert.rejects(bad.stats(stats), /HTTP 401/);
      bad.close();
    }
    // an upgrade without the secret, or to another protocol, is refused on the raw socket
    const raw = await fetch(new URL('/internal/v1/shard-frames', url), { headers: { connection: 'Upgrade', upgrade: 'lectern-shard-frames/1' } }).catch((e: unknown) => e);
    assert.ok(!(raw instanceof Response) || raw.status === 401 || raw.status === 400, String(raw));
    const pool = new FrameConnections();
    const c3 = new FrameShardClient(3, url, secret, pool);
    const c4 = new FrameShardClient(4, url, secret, pool);
    const c2 = new FrameShardClient(2, url, secret, pool);
    assert.equal(c3.connection, c4.connection, 'the clients of one node share its connection');
    // calls of one turn go out together; answers are matched by id
    const [a, b] = await Promise.all([c3.stats(stats), c4.stats(stats)]);
    assert.equal(a.shard, 3);
    assert.equal(b.shard, 4);
    assert.equal(a.stats.df['heat'], 3);
    await assert.rejects(c2.stats(stats), /404 not_found: .*holds 3, 4/);
    await assert.rejects(c3.search({ index: 'documents', query: { text: 'x', limit: 100000 }, globalStats: { docCount: 1, segmentDocs: 1, fieldTotals: [1, 1, 1], df: {} } }), /422 validation_failed/);
    await assert.rejects(c3.stats({ ...stats, sneaky: true } as typeof stats), /422 validation_failed/);
    await assert.rejects(c3.stats({ index: 'nope' as 'documents', query: { text: 'x' } }), /422 validation_failed/);
    // the connection survived the errors: still one, still answering
    assert.equal((await c3.stats(stats)).shard, 3);
    assert.equal(c3.connection.opened, 1);
    // an aborted call rejects at once; its late answer is dropped and the connection goes on
    const ac = new AbortController();
    const aborted = c3.search({ index: 'documents', query: { text: 'heat' }, globalStats: { docCount: 4, segmentDocs: 4, fieldTotals: [1, 1, 1], df: { heat: 3 } } }, { signal: ac.signal });
    ac.abort(new Error('hedge won'));
    await assert.rejects(aborted, /hedge won/);
    assert.equal((await c4.stats(stats)).shard, 4);
    c2.close();
    c3.close();
    c4.close();
    await assert.rejects(c4.stats(stats), /closed/);
  } finally {
    await app.close();
    idx.close();
  }
});

test('framed shard calls: a node that goes away fails the calls in flight and the next call connects again', async () => {
  const idx = SearchIndex.open(new MemoryIndexDirectory());
  for (const d of SHARD_DOCS) idx.add(d);
  idx.commit('1');
  const secret = randomBytes(24).toString('base64url');
  const app = await buildShardServer({ searchers: [new Searcher(3, { get: () => idx })], secret });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const port = Number(new URL(url).port);
  const client = new FrameShardClient(3, url, secret);
  try {
    assert.equal((await client.stats({ index: 'documents', query: { text: 'heat' } })).shard, 3);
    await app.close(); // closes the upgraded connection too
    await assert.rejects(client.stats({ index: 'documents', query: { text: 'heat' } }));
    const again = await buildShardServer({ searchers: [new Searcher(3, { get: () => idx })], secret });
    await again.listen({ host: '127.0.0.1', port });
    try {
      assert.equal((await client.stats({ index: 'documents', query: { text: 'heat' } })).shard, 3);
      assert.equal(client.connection.opened, 2);
    } finally {
      await again.close();
    }
  } finally {
    client.close();
    idx.close();
  }
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
