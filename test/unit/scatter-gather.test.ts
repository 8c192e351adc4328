// The coordinator's fault handling (ADR 0202): a dead replica (a closed port) and a slow one are hedged
// to the next replica, with the same ranking as one index; a shard with no live replica is reported
// missing and the result flagged partial, never silently smaller.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer } from 'node:net';
import { MemoryIndexDirectory, SearchIndex, type EngineQuery } from '../../src/engine/index.js';
import { shardOfWork } from '../../src/domain/shard-routing.js';
import { InProcessShardClient, ShardSearcher } from '../../src/search/shard-searcher.js';
import { ScatterGather } from '../../src/search/scatter-gather.js';
import { citedByCount } from '../../src/ranking/sources.js';
import { HttpShardClient } from '../../src/adapters/cluster/http-shard-client.js';
import { FrameShardClient } from '../../src/adapters/cluster/frame-shard-client.js';
import type { ShardCallOptions, ShardClient, ShardSearchRequest, ShardStatsRequest, ShardVectorRequest, ShardDocumentVectorRequest, ShardSuggestRequest, ShardScorePartsRequest, ShardCitedByRequest, ShardRecordsRequest } from '../../src/ports/shard-client.js';

const WORDS = ['heat', 'shock', 'protein', 'cell', 'yeast', 'stress', 'fold', 'cold'];
function corpus() {
  const one = SearchIndex.open(new MemoryIndexDirectory());
  const parts = [SearchIndex.open(new MemoryIndexDirectory()), SearchIndex.open(new MemoryIndexDirectory())];
  for (let i = 0; i < 300; i++) {
    const d = { id: `d${i}`, title: `${WORDS[i % 8]} ${WORDS[(i * 3) % 8]}`, abstract: `${WORDS[(i * 5) % 8]} ${WORDS[(i * 7) % 8]} ${WORDS[i % 5]}`, workKey: `w${i}` };
    one.add(d);
    parts[shardOfWork(d.workKey, 2)]!.add(d);
  }
  one.commit('1');
  parts.forEach((p) => p.commit('1'));
  return { one, clients: parts.map((p, s) => new InProcessShardClient(new ShardSearcher(s, { get: () => p }))) };
}

/** A port nothing listens on (bound, then closed). */
async function deadUrl(): Promise<string> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

/** A replica that answers after `ms` (or when aborted, rejects at once). */
class Slow implements ShardClient {
  aborted = 0;
  constructor(
    private readonly inner: ShardClient,
    private readonly ms: number,
    readonly node = 'slow',
  ) {}
  get shard() {
    return this.inner.shard;
  }
  #wait(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const t = setTimeout(resolve, this.ms);
      signal?.addEventListener('abort', () => {
        clearTimeout(t);
        this.aborted++;
        reject(new Error('aborted'));
      });
    });
  }
  async stats(req: ShardStatsRequest, o: ShardCallOptions = {}) {
    await this.#wait(o.signal);
    return this.inner.stats(req);
  }
  async search(req: ShardSearchRequest, o: ShardCallOptions = {}) {
    await this.#wait(o.signal);
    return this.inner.search(req);
  }
  async vectors(req: ShardVectorRequest, o: ShardCallOptions = {}) {
    await this.#wait(o.signal);
    return this.inner.vectors(req);
  }
  async documentVector(req: ShardDocumentVectorRequest, o: ShardCallOptions = {}) {
    await this.#wait(o.signal);
    return this.inner.documentVector(req);
  }
  async records(req: ShardRecordsRequest, o: ShardCallOptions = {}) {
    await this.#wait(o.signal);
    return this.inner.records(req);
  }
  async suggest(req: ShardSuggestRequest, o: ShardCallOptions = {}) {
    await this.#wait(o.signal);
    return this.inner.suggest(req);
  }
  async scoreParts(req: ShardScorePartsRequest, o: ShardCallOptions = {}) {
    await this.#wait(o.signal);
    return this.inner.scoreParts(req);
  }
  async citedBy(req: ShardCitedByRequest, o: ShardCallOptions = {}) {
    await this.#wait(o.signal);
    return this.inner.citedBy(req);
  }
}

const Q: EngineQuery = { text: 'heat shock protein', limit: 10, exactTotal: true, collapseByWorkKey: true };

test('a dead replica is hedged to the next one: same ranking as one index, the hedge in the trace', async () => {
  const { one, clients } = corpus();
  const dead = new HttpShardClient(0, await deadUrl(), 'x'.repeat(20));
  const sg = new ScatterGather({ shards: 2, replicas: (s) => (s === 0 ? [dead, clients[0]!] : [clients[1]!]) }, { hedgeAfterMs: 10_000, deadlineMs: 30_000 });
  for (let i = 0; i < 2; i++) {
    // both rotations of the replica order (the dead one first on one of them)
    const r = await sg.search('documents', Q);
    assert.deepEqual(r.missingShards, []);
    assert.deepEqual(r.result.hits.map((h) => [h.id, h.score]), one.search(Q).hits.map((h) => [h.id, h.score]));
    assert.equal(r.result.totalHits, one.search(Q).totalHits);
    assert.equal(r.shards[0]!.node, 'local');
  }
});

test('a dead replica on the framed transport (ADR 0291) is hedged to the next one as well', async () => {
  const { one, clients } = corpus();
  const dead = new FrameShardClient(0, await deadUrl(), 'x'.repeat(20));
  try {
    const sg = new ScatterGather({ shards: 2, replicas: (s) => (s === 0 ? [dead, clients[0]!] : [clients[1]!]) }, { hedgeAfterMs: 10_000, deadlineMs: 30_000 });
    for (let i = 0; i < 2; i++) {
      const r = await sg.search('documents', Q);
      assert.deepEqual(r.missingShards, []);
      assert.deepEqual(r.result.hits.map((h) => [h.id, h.score]), one.search(Q).hits.map((h) => [h.id, h.score]));
    }
  } finally {
    dead.close();
  }
});

test('a slow replica is hedged after the deadline to another; the slow call is aborted', async () => {
  const { one, clients } = corpus();
  const slow = new Slow(clients[1]!, 60_000);
  const sg = new ScatterGather({ shards: 2, replicas: (s) => (s === 0 ? [clients[0]!] : [slow, clients[1]!]) }, { hedgeAfterMs: 20, deadlineMs: 30_000 });
  const r1 = await sg.search('documents', Q); // turn 0: slow first for shard 1
  assert.deepEqual(r1.result.hits.map((h) => h.id), one.search(Q).hits.map((h) => h.id));
  assert.ok(r1.shards[1]!.hedged >= 1, JSON.stringify(r1.shards));
  assert.ok(slow.aborted >= 1);
});

test('a shard with no live replica is reported missing; the result is partial, not silently smaller', async () => {
  const { clients } = corpus();
  const dead = new HttpShardClient(1, await deadUrl(), 'x'.repeat(20));
  const sg = new ScatterGather({ shards: 2, replicas: (s) => (s === 0 ? [clients[0]!] : [dead]) }, { hedgeAfterMs: 20, deadlineMs: 30_000 });
  const r = await sg.search('documents', Q);
  assert.deepEqual(r.missingShards, [1]);
  assert.equal(r.result.totalHitsExact, false);
  assert.match(r.shards[1]!.error!, /statistics/);
  assert.ok(r.result.hits.length > 0);
  const none = new ScatterGather({ shards: 2, replicas: (s) => (s === 0 ? [clients[0]!] : []) });
  assert.deepEqual((await none.search('documents', Q)).missingShards, [1]);
});

test('a shard that never answers is left out at the deadline', async () => {
  const { clients } = corpus();
  const hung = new Slow(clients[1]!, 600_000, 'hung');
  const sg = new ScatterGather({ shards: 2, replicas: (s) => (s === 0 ? [clients[0]!] : [hung]) }, { hedgeAfterMs: 10, deadlineMs: 100 });
  const r = await sg.search('documents', Q);
  assert.deepEqual(r.missingShards, [1]);
  assert.match(r.shards[1]!.error!, /within 100 ms/);
  assert.equal(hung.aborted, 1);
});

test('spelling, score parts, citation counts and term statistics report a shard with no live replica (ADR 0265)', async () => {
  const { one, clients } = corpus();
  const dead = new HttpShardClient(1, await deadUrl(), 'x'.repeat(20));
  const sg = new ScatterGather({ shards: 2, replicas: (s) => (s === 0 ? [clients[0]!] : [dead]) }, { hedgeAfterMs: 20, deadlineMs: 30_000 });
  const full = new ScatterGather({ shards: 2, replicas: (s) => [clients[s]!] });
  // every shard answers: nothing missing, one index's answers
  assert.deepEqual((await full.correctQuery('documents', 'heet shock', null)).missingShards, []);
  assert.equal((await full.correctQuery('documents', 'heet shock', null)).corrected, one.correctQuery('heet shock', null));
  const parts = await full.scoreParts('documents', { text: 'heat shock' }, ['d1', 'd2', 'd3']);
  assert.deepEqual(parts.missingShards, []);
  assert.deepEqual([...parts.parts.keys()].sort(), ['d1', 'd2', 'd3']);
  const ts = await full.termStats('documents', ['heat', 'cold']);
  assert.deepEqual(ts.missingShards, []);
  assert.equal(ts.documents, 300);
  // shard 1 dead: each call says so
  assert.deepEqual((await sg.correctQuery('documents', 'heet shock', null)).missingShards, [1]);
  const p1 = await sg.scoreParts('documents', { text: 'heat shock' }, ['d1', 'd2', 'd3']);
  assert.deepEqual(p1.missingShards, [1]);
  const t1 = await sg.termStats('documents', ['heat']);
  assert.deepEqual(t1.missingShards, [1]);
  assert.ok(t1.documents < 300);
  assert.deepEqual((await sg.citedBy('documents', [['doi://x']])).missingShards, [1]);
});

test('cited_by counts: one call per shard for every document, summed, equal to one index (ADR 0265)', async () => {
  const one = SearchIndex.open(new MemoryIndexDirectory());
  const parts = [SearchIndex.open(new MemoryIndexDirectory()), SearchIndex.open(new MemoryIndexDirectory())];
  for (let i = 0; i < 200; i++) {
    const d = { id: `d${i}`, title: `paper ${i}`, workKey: `w${i}`, uris: [`doi://10.1/${i}`], references: [`doi://10.1/${(i * 7) % 50}`, `doi://10.1/${(i * 3) % 20}`] };
    one.add(d);
    parts[shardOfWork(d.workKey, 2)]!.add(d);
  }
  one.commit('1');
  parts.forEach((p) => p.commit('1'));
  const calls = { citedBy: 0, search: 0 };
  const counting = (c: ShardClient): ShardClient =>
    Object.assign(Object.create(c) as ShardClient, {
      citedBy: (req: ShardCitedByRequest, o?: ShardCallOptions) => (calls.citedBy++, c.citedBy(req, o)),
      search: (req: ShardSearchRequest, o?: ShardCallOptions) => (calls.search++, c.search(req, o)),
    });
  const clients = parts.map((p, s) => counting(new InProcessShardClient(new ShardSearcher(s, { get: () => p }))));
  const sg = new ScatterGather({ shards: 2, replicas: (s) => [clients[s]!] });
  const docs = Array.from({ length: 60 }, (_, i) => ({ uris: [`doi://10.1/${i}`] }));
  const r = await sg.citedBy('documents', [...docs.map((d) => d.uris), []]);
  assert.deepEqual(r.missingShards, []);
  assert.deepEqual(r.counts, [...docs.map((d) => citedByCount(one, d)), 0]);
  assert.ok(r.counts.some((n) => n > 1), 'some documents are cited several times');
  assert.deepEqual(calls, { citedBy: 2, search: 0 }, 'one call per shard for all 61 documents');
});
