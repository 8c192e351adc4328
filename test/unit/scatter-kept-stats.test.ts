// Kept DFS statistics (ADR 0260): the coordinator keeps each replica's statistics under its snapshot
// stamp and skips the statistics round trip when they cover a query; the replica checks the stamp (and
// that the statistics cover its terms) before it searches, so the ranking stays the one index's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryIndexDirectory, SearchIndex, type EngineQuery, type EngineResult } from '../../src/engine/index.js';
import { shardOfWork } from '../../src/domain/shard-routing.js';
import { InProcessShardClient, ShardSearcher } from '../../src/search/shard-searcher.js';
import { ScatterGather } from '../../src/search/scatter-gather.js';
import type { ShardCallOptions, ShardClient, ShardSearchRequest, ShardStatsRequest, ShardVectorRequest, ShardDocumentVectorRequest, ShardSuggestRequest, ShardScorePartsRequest, ShardCitedByRequest, ShardRecordsRequest } from '../../src/ports/shard-client.js';

const WORDS = ['heat', 'shock', 'protein', 'cell', 'yeast', 'stress', 'fold', 'cold'];
const doc = (i: number) => ({ id: `d${i}`, title: `${WORDS[i % 8]} ${WORDS[(i * 3) % 8]}`, abstract: `${WORDS[(i * 5) % 8]} ${WORDS[(i * 7) % 8]} ${WORDS[i % 5]}`, workKey: `w${i}` });

/** Counts the calls that reach a replica. */
class Counting implements ShardClient {
  statsCalls = 0;
  searches = 0;
  stale = 0;
  constructor(private readonly inner: ShardClient) {}
  get shard() {
    return this.inner.shard;
  }
  get node() {
    return this.inner.node;
  }
  async stats(req: ShardStatsRequest, o?: ShardCallOptions) {
    this.statsCalls++;
    return this.inner.stats(req, o);
  }
  async search(req: ShardSearchRequest, o?: ShardCallOptions) {
    this.searches++;
    const r = await this.inner.search(req, o);
    if (r.stale) this.stale++;
    return r;
  }
  vectors(req: ShardVectorRequest, o?: ShardCallOptions) {
    return this.inner.vectors(req, o);
  }
  documentVector(req: ShardDocumentVectorRequest, o?: ShardCallOptions) {
    return this.inner.documentVector(req, o);
  }
  suggest(req: ShardSuggestRequest, o?: ShardCallOptions) {
    return this.inner.suggest(req, o);
  }
  scoreParts(req: ShardScorePartsRequest, o?: ShardCallOptions) {
    return this.inner.scoreParts(req, o);
  }
  citedBy(req: ShardCitedByRequest, o?: ShardCallOptions) {
    return this.inner.citedBy(req, o);
  }
  records(req: ShardRecordsRequest, o?: ShardCallOptions) {
    return this.inner.records(req, o);
  }
}

function cluster() {
  const one = SearchIndex.open(new MemoryIndexDirectory());
  const parts = [SearchIndex.open(new MemoryIndexDirectory()), SearchIndex.open(new MemoryIndexDirectory())];
  for (let i = 0; i < 300; i++) {
    one.add(doc(i));
    parts[shardOfWork(doc(i).workKey, 2)]!.add(doc(i));
  }
  one.commit('1');
  parts.forEach((p) => p.commit('1'));
  const clients = parts.map((p, s) => new Counting(new InProcessShardClient(new ShardSearcher(s, { get: () => p }), `local-${s}`)));
  const sg = new ScatterGather({ shards: 2, replicas: (s) => [clients[s]!] });
  return { one, parts, clients, sg };
}

const key = (r: EngineResult) => JSON.stringify([r.totalHits, r.hasMore, r.hits.map((h) => [h.id, h.score])]);
const Q: EngineQuery = { text: 'heat shock "protein fold"', limit: 10, exactTotal: true, collapseByWorkKey: true };
const statsCalls = (c: Counting[]) => c.reduce((n, x) => n + x.statsCalls, 0);

test('a query whose terms are kept skips the statistics round trip and ranks as one index', async () => {
  const { one, clients, sg } = cluster();
  const first = await sg.search('documents', Q);
  assert.equal(statsCalls(clients), 2, 'the first search gathers statistics');
  assert.equal(key(first.result), key(one.search(Q)));
  const again = await sg.search('documents', Q);
  assert.equal(statsCalls(clients), 2, 'no statistics call the second time');
  assert.equal(key(again.result), key(one.search(Q)));
  assert.deepEqual(sg.keptStats, { searches: 1, stale: 0 });
  // a query made only of kept terms (another order, a subset) needs no statistics call either
  const sub: EngineQuery = { ...Q, text: 'protein heat' };
  const r = await sg.search('documents', sub);
  assert.equal(statsCalls(clients), 2);
  assert.equal(key(r.result), key(one.search(sub)));
  // a term not seen yet: the DFS phase
  const other: EngineQuery = { ...Q, text: 'yeast cold' };
  assert.equal(key((await sg.search('documents', other)).result), key(one.search(other)));
  assert.equal(statsCalls(clients), 4);
});

test('a replica whose snapshot changed answers stale; the coordinator gathers statistics again: same ranking as one index', async () => {
  const { one, parts, clients, sg } = cluster();
  await sg.search('documents', Q);
  // new documents on one shard only: its document count, field totals and frequencies change
  for (let i = 300; i < 340; i++) {
    one.add(doc(i));
    if (shardOfWork(doc(i).workKey, 2) === 0) parts[0]!.add(doc(i));
  }
  for (let i = 300; i < 340; i++) if (shardOfWork(doc(i).workKey, 2) === 1) parts[1]!.add(doc(i));
  one.commit('2');
  parts[0]!.commit('2');
  parts[1]!.commit('2');
  const before = statsCalls(clients);
  const r = await sg.search('documents', Q);
  assert.equal(key(r.result), key(one.search(Q)));
  assert.ok(clients[0]!.stale + clients[1]!.stale >= 1, 'a replica said its statistics no longer hold');
  assert.equal(sg.keptStats.stale, 1);
  assert.equal(statsCalls(clients), before + 2, 'then the DFS phase ran');
  // kept again under the new stamps
  const again = await sg.search('documents', Q);
  assert.equal(key(again.result), key(one.search(Q)));
  assert.equal(statsCalls(clients), before + 2);
  // a deletion changes the snapshot too
  one.delete('d3');
  parts[shardOfWork('w3', 2)]!.delete('d3');
  one.commit('3');
  parts[shardOfWork('w3', 2)]!.commit('3');
  assert.equal(key((await sg.search('documents', Q)).result), key(one.search(Q)));
  assert.equal(sg.keptStats.stale, 2);
});

test('a replica refuses kept statistics that miss a term of its query, and stamps tell index objects apart', () => {
  const a = SearchIndex.open(new MemoryIndexDirectory());
  const b = SearchIndex.open(new MemoryIndexDirectory());
  for (const i of [0, 1, 2]) {
    a.add(doc(i));
    b.add(doc(i + 3));
  }
  a.commit('1');
  b.commit('1');
  const sa = new ShardSearcher(0, { get: () => a });
  const sb = new ShardSearcher(0, { get: () => b });
  const stA = sa.stats({ index: 'documents', query: { text: 'heat shock' } });
  const stB = sb.stats({ index: 'documents', query: { text: 'heat shock' } });
  assert.equal(a.snapshotGeneration, b.snapshotGeneration, 'the same number of snapshots published');
  assert.notEqual(stA.generation, stB.generation, 'two index objects never share a stamp');
  const q = { text: 'heat shock', limit: 10 };
  // the right stamp and every term: searched
  assert.equal(sa.search({ index: 'documents', query: q, globalStats: stA.stats, statsGeneration: stA.generation! }).stale, undefined);
  // another index's stamp: stale, with this replica's statistics
  const wrong = sa.search({ index: 'documents', query: q, globalStats: stA.stats, statsGeneration: stB.generation! });
  assert.equal(wrong.result.hits.length, 0);
  assert.deepEqual(wrong.stale, { stats: stA.stats, generation: stA.generation });
  // the right stamp but a term of the query missing (a coordinator that analysed differently): stale
  const df = { ...stA.stats.df };
  delete df[Object.keys(df)[0]!];
  assert.ok(sa.search({ index: 'documents', query: q, globalStats: { ...stA.stats, df }, statsGeneration: stA.generation! }).stale);
});

test('keepStats: false gathers statistics on every search', async () => {
  const { one, clients } = cluster();
  const sg = new ScatterGather({ shards: 2, replicas: (s) => [clients[s]!] }, { keepStats: false });
  await sg.search('documents', Q);
  const r = await sg.search('documents', Q);
  assert.equal(statsCalls(clients), 4);
  assert.equal(key(r.result), key(one.search(Q)));
});
