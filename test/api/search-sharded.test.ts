// POST /v2/search/ on the `api` role's coordinator (issue 24, ADR 0202), with 2 in-process shards that
// follow the store filtered by the shard routing: the same top 10 (ids, order, scores), total_hits,
// has_next, snippets and documents as one node, for word queries, phrases, filters, deduplication and
// pages; per-shard timings in the trace; a shard with no replica gives `partial_results`. Then every
// search mode with trained corpus models (sparse, short_document, binary, hybrid), similar, spelling,
// in-document passages, ranking features and a conversation turn (ADRs 0246-0249).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';
import { IndexSet } from '../../src/search/index-set.js';
import { shardOfStore } from '../../src/cluster/shard-follower.js';
import { fsIndexDirectories } from '../../src/adapters/fs/index-directories.js';
import { InProcessShardClient, ShardSearcher } from '../../src/search/shard-searcher.js';
import { StaticShardDirectory } from '../../src/search/shard-directory.js';
import type { ShardClient } from '../../src/ports/shard-client.js';
import type { DocumentRecord } from '../../src/domain/document.js';

/** Counts the fetch phase's calls and the records that came with searches instead (ADR 0292). */
class CountingClient extends InProcessShardClient {
  static recordsCalls = 0;
  static recordsWithSearch = 0;
  override async records(...a: Parameters<InProcessShardClient['records']>) {
    CountingClient.recordsCalls++;
    return super.records(...a);
  }
  override async search(...a: Parameters<InProcessShardClient['search']>) {
    const r = await super.search(...a);
    CountingClient.recordsWithSearch += Object.keys(r.records ?? {}).length;
    return r;
  }
}

const Y = (y: number) => Date.UTC(y, 0, 1) / 1000;
const v1pubIndex = -1;
const TOPICS = ['hydrogen storage in salt caverns', 'cushion gas pressure', 'sandstone porosity', 'microbial activity in reservoirs', 'natural gas economics', 'carbon dioxide injection', 'caprock integrity', 'well cement leakage'];

function corpus(): DocumentRecord[] {
  const out: DocumentRecord[] = [];
  for (let i = 0; i < 120; i++) {
    const a = TOPICS[i % TOPICS.length]!;
    const b = TOPICS[(i * 3 + 1) % TOPICS.length]!;
    out.push(doc(`d${i}`, { title: `${a} ${i % 7 === 0 ? 'review' : 'study'} ${i}`, abstract: `We examine ${a} and ${b}. Sample ${i} shows ${b} under load.`, type: i % 4 === 0 ? 'review' : 'journal-article', language: 'en', issuedAt: Y(1990 + (i % 30)), uris: [`doi://10.1000/x.${i}`] }));
  }
  // versions of one work (preprint + published) share a work key: they must land in one shard
  out.push(doc('v1', { title: 'Hydrogen storage in salt caverns (preprint)', abstract: 'Salt caverns store hydrogen.', type: 'preprint', uris: ['arxiv://2201.00001'] }));
  out.push(doc('v1pub', { title: 'Hydrogen storage in salt caverns', abstract: 'Salt caverns store hydrogen, published.', type: 'journal-article', uris: ['doi://10.5555/pub.1', 'arxiv://2201.00001'] }));
  return out;
}

describe('POST /v2/search/ over 2 shards (in-process) equals one node', () => {
  let one: TestApp;
  let sharded: TestApp;
  let partial: TestApp;
  let keyOne: string;
  let keySharded: string;
  let keyPartial: string;
  const shardSets: IndexSet[] = [];
  const dirs: string[] = [];
  before(async () => {
    one = await testApp();
    const byShard: ShardClient[][] = [[], []];
    sharded = await testApp({}, { shardDirectory: new StaticShardDirectory(2, byShard) });
    // shard 1 has no replica at all
    partial = await testApp({}, { shardDirectory: new StaticShardDirectory(2, [byShard[0]!, []]) });
    // the partial app's documents are the same records (its store serves the hits' documents)
    for (const app of [one, sharded, partial]) {
      await seed(app, corpus());
      await app.indexes!.catchUp();
    }
    for (let s = 0; s < 2; s++) {
      const dir = mkdtempSync(join(tmpdir(), 'lectern-shard-'));
      dirs.push(dir);
      const set = IndexSet.open(fsIndexDirectories(dir), shardOfStore(sharded.storage.documents, s, 2), sharded.clock);
      await set.catchUp();
      shardSets.push(set);
      byShard[s]!.push(new CountingClient(new ShardSearcher(s, set)));
    }
    keyOne = (await one.account({ credits: 100_000 })).key;
    keySharded = (await sharded.account({ credits: 100_000 })).key;
    keyPartial = (await partial.account({ credits: 100_000 })).key;
  });
  after(async () => {
    for (const s of shardSets) s.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    await one.dispose();
    await sharded.dispose();
    await partial.dispose();
  });

  const search = async (app: TestApp, key: string, body: Record<string, unknown>) => {
    const res = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': key }, payload: body });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const view = (b: { hits: { id: string; score: number; snippets: unknown[]; document: unknown }[]; total_hits: number; has_next: boolean; ranking_mode: string }) => ({
    hits: b.hits.map((h) => [h.id, h.score, h.snippets, h.document]),
    total: b.total_hits,
    next: b.has_next,
    mode: b.ranking_mode,
  });

  test('shards hold disjoint parts of the corpus, and both versions of a work are in one shard', () => {
    const docs = shardSets.map((s) => s.get('documents').stats().docs);
    assert.equal(docs[0]! + docs[1]!, 122);
    assert.ok(docs[0]! > 20 && docs[1]! > 20, docs.join(','));
    const holders = shardSets.filter((s) => s.get('documents').has('v1'));
    assert.equal(holders.length, 1);
    assert.ok(holders[0]!.get('documents').has('v1pub'));
  });

  const CASES: Record<string, unknown>[] = [
    { query: 'hydrogen storage salt caverns' },
    { query: 'sandstone porosity', limit: 20 },
    { query: '"cushion gas"', limit: 15 },
    { query: 'natural gas hydrogen', filter_types: ['review'] },
    { query: 'microbial reservoirs', offset: 10, limit: 10 },
    { query: 'hydrogen caverns', deduplicate: false },
    { query: 'natural gas economics', mode: 'fulltext', ranking_mode: 'passages' },
    { query: '', filter_types: ['journal-article'], limit: 12 },
    { query: 'carbon dioxide', filter_issued_after: Y(2005) },
  ];
  for (const body of CASES) {
    test(`same top hits as one node: ${JSON.stringify(body)}`, async () => {
      const a = await search(one, keyOne, body);
      const b = await search(sharded, keySharded, body);
      assert.ok(a.hits.length > 0);
      assert.deepEqual(view(b), view(a));
    });
  }

  test('spelling: corrected_query from the shards\' dictionaries with summed frequencies, as one node', async () => {
    for (const query of ['hydrogn storage', 'sandstne porosity', 'Microbal activty in reservoirs', 'cushion gas', 'caprok integrty']) {
      const a = await search(one, keyOne, { query });
      const b = await search(sharded, keySharded, { query });
      assert.equal(b.corrected_query, a.corrected_query, query);
    }
    assert.equal((await search(sharded, keySharded, { query: 'hydrogn storage' })).corrected_query, 'hydrogen storage');
    assert.equal((await search(sharded, keySharded, { query: 'cushion gas' })).corrected_query, null);
  });

  test('in-document passages (text_filter): the document\'s shard answers with the corpus\'s statistics, as one node', async () => {
    for (const [i, filter] of [[1, 'cushion gas'], [2, 'sandstone porosity load'], [9, '"natural gas"'], [v1pubIndex, 'salt caverns hydrogen']] as const) {
      const uri = i === v1pubIndex ? 'doi://10.5555/pub.1' : `doi://10.1000/x.${i}`;
      const get = (app: TestApp, key: string) => app.http.inject({ method: 'GET', url: `/v2/documents/by-uri/${encodeURIComponent(uri)}?text_filter=${encodeURIComponent(filter)}`, headers: { 'x-api-key': key } });
      const a = await get(one, keyOne);
      const b = await get(sharded, keySharded);
      assert.equal(a.statusCode, 200, a.body);
      assert.equal(b.statusCode, 200, b.body);
      const view2 = (x: { hits: { score: number; snippets: unknown }[] }) => x.hits.map((h) => [h.score, h.snippets]);
      assert.ok(a.json().hits.length > 0, `${uri} ${filter}`);
      assert.deepEqual(view2(b.json()), view2(a.json()), `${uri} ${filter}`);
    }
  });

  test('in-document passages of a document whose shard has no live replica: 503, nothing charged', async () => {
    // a document of shard 1 (the partial app has no replica of it)
    const i = [...Array(120).keys()].find((k) => shardSets[1]!.get('documents').has(`d${k}`))!;
    const uri = `doi://10.1000/x.${i}`;
    const res = await partial.http.inject({ method: 'GET', url: `/v2/documents/by-uri/${encodeURIComponent(uri)}?text_filter=gas`, headers: { 'x-api-key': keyPartial } });
    assert.equal(res.statusCode, 503, res.body);
    assert.ok(res.headers['x-request-id']);
  });

  test('in-document passages when another shard has no live replica: 503 (its statistics are missing), not other scores (ADR 0265)', async () => {
    const i = [...Array(120).keys()].find((k) => shardSets[0]!.get('documents').has(`d${k}`))!;
    const uri = `doi://10.1000/x.${i}`;
    const res = await partial.http.inject({ method: 'GET', url: `/v2/documents/by-uri/${encodeURIComponent(uri)}?text_filter=gas`, headers: { 'x-api-key': keyPartial } });
    assert.equal(res.statusCode, 503, res.body);
    assert.match(res.body, /statistics/);
  });

  test('the trace has a per-shard entry with timings', async () => {
    const b = await search(sharded, keySharded, { query: 'hydrogen storage', tracing: true });
    const lexical = b.retrieval_traces.find((t: { branch: string }) => t.branch === 'fulltext');
    assert.equal(lexical.shards.length, 2);
    for (const s of lexical.shards) {
      assert.equal(typeof s.search_us, 'number');
      assert.equal(typeof s.engine_us, 'number');
      assert.equal(s.node, 'local');
    }
    assert.equal(b.partial_results, undefined);
  });

  test('a shard with no live replica: partial_results names it, the other shard\'s hits come back', async () => {
    const b = await search(partial, keyPartial, { query: 'hydrogen storage salt caverns' });
    assert.deepEqual(b.partial_results, { shards: 2, missing: [{ index: 'documents', shard: 1 }] });
    const full = await search(one, keyOne, { query: 'hydrogen storage salt caverns', limit: 100 });
    assert.ok(b.hits.length > 0);
    assert.ok(b.total_hits < full.total_hits);
  });
});

test('role api: refuses to start without a cluster secret; with cluster.search_nodes, a dead replica makes results partial', async () => {
  await assert.rejects(testApp({ cluster: { role: 'api' } } as never), /need cluster.secret/);
  const app = await testApp({ cluster: { role: 'api', secret: 'a-cluster-secret-of-some-length', shards: 2, searchNodes: '0=http://127.0.0.1:1,1=http://127.0.0.1:1', hedgeAfterMs: 20, shardDeadlineMs: 5_000 } } as never);
  try {
    await seed(app, [doc('x1', { title: 'hydrogen storage', language: 'en' })]);
    await app.indexes!.catchUp();
    const { key } = await app.account({ credits: 1000 });
    const res = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': key }, payload: { query: 'hydrogen', tracing: true } });
    assert.equal(res.statusCode, 200, res.body);
    const b = res.json();
    assert.deepEqual(b.partial_results, { shards: 2, missing: [{ index: 'documents', shard: 0 }, { index: 'documents', shard: 1 }] });
    assert.equal(b.hits.length, 0);
    const lexical = b.retrieval_traces.find((t: { branch: string }) => t.branch === 'fulltext');
    assert.match(lexical.shards[0].error, /statistics: .*127\.0\.0\.1:1/);
  } finally {
    await app.dispose();
  }
});

// Every search mode over 2 shards (ADR 0246): the sparse channel's query and sub-queries are DFS-then-query
// searches on the shards; the dense channels' query vector goes to every shard, whose top k by cosine
// are merged; the api node fuses them (RRF) as one node does. The corpus models are trained once from
// the store and every node loads the same files (here: the shards install the api node's trained models).
describe('every search mode over 2 shards (in-process) equals one node, with trained corpus models', () => {
  const heart = ['Heart attack outcomes in adults', 'Myocardial infarction after surgery', 'Cardiac arrest and heart failure', 'Coronary artery disease and myocardial damage'];
  const heartAbs = ['Myocardial infarction (heart attack) follows coronary occlusion; cardiac troponin rises.', 'Patients with heart failure after myocardial infarction; coronary reperfusion and cardiac outcomes.'];
  const rock = ['Sandstone porosity', 'Reservoir rock permeability', 'Sediment and sandstone diagenesis', 'Porous rock reservoir pressure'];
  const rockAbs = ['Sandstone porosity and permeability of reservoir rock; sediment compaction.', 'Diagenesis of sediment reduces porosity; reservoir rock pressure and permeability.'];
  const docs = Array.from({ length: 90 }, (_, i) => {
    const h = i % 2 === 0;
    return doc(`c${i}`, { title: `${(h ? heart : rock)[(i >> 1) % 4]} ${i}`, abstract: `${(h ? heartAbs : rockAbs)[(i >> 3) % 2]} Study ${i} of ${(h ? rock : heart)[i % 4]!.toLowerCase()}.`, type: i % 4 === 0 ? 'review' : 'journal-article', language: 'en', uris: [`doi://10.1000/c.${i}`], references: [`doi://10.1000/c.${(i * 7) % 30}`, `doi://10.1000/c.${(i * 3 + 1) % 12}`] });
  });
  let one: TestApp;
  let sharded: TestApp;
  let keyOne: string;
  let keySharded: string;
  const shardSets: IndexSet[] = [];
  const dirs: string[] = [];
  before(async () => {
    one = await testApp();
    const byShard: ShardClient[][] = [[], []];
    sharded = await testApp({}, { shardDirectory: new StaticShardDirectory(2, byShard) });
    for (const app of [one, sharded]) {
      await seed(app, docs);
      await app.indexes!.catchUp();
      await app.corpusModels.train('documents');
      app.refreshModels();
    }
    for (let s = 0; s < 2; s++) {
      const dir = mkdtempSync(join(tmpdir(), 'lectern-shard-'));
      dirs.push(dir);
      const set = IndexSet.open(fsIndexDirectories(dir), shardOfStore(sharded.storage.documents, s, 2), sharded.clock);
      await set.catchUp();
      // the shard loads the models trained from the store (the same files every node reads)
      set.setModels('documents', sharded.corpusModels.load('documents'));
      shardSets.push(set);
      byShard[s]!.push(observed(new InProcessShardClient(new ShardSearcher(s, set))));
    }
    keyOne = (await one.account({ credits: 100_000 })).key;
    keySharded = (await sharded.account({ credits: 100_000 })).key;
  });
  // every shard call is logged; `failing` makes shard 1's replica fail the calls it matches (a replica
  // reachable for some calls and not others: the auxiliary calls must report it too, ADR 0265)
  const calls: string[] = [];
  let failing: ((method: string, req: { query?: { text?: string; filters?: { citing?: unknown } | null } }) => boolean) | null = null;
  const METHODS = ['stats', 'search', 'vectors', 'documentVector', 'suggest', 'scoreParts', 'citedBy'] as const;
  function observed(c: ShardClient): ShardClient {
    const o = Object.create(c) as Record<string, unknown>;
    for (const m of METHODS) {
      o[m] = (req: { query?: { text?: string; filters?: { citing?: unknown } | null } }, opts?: unknown) => {
        calls.push(`${c.shard}:${m}${m === 'search' && req.query?.filters?.citing ? ':citing' : ''}`);
        if (c.shard === 1 && failing?.(m, req)) return Promise.reject(new Error(`${m} refused by the test`));
        return (c[m] as (r: unknown, o: unknown) => Promise<unknown>).call(c, req, opts);
      };
    }
    return o as unknown as ShardClient;
  }
  const failingOn = async <T>(when: NonNullable<typeof failing>, fn: () => Promise<T>): Promise<T> => {
    failing = when;
    try {
      return await fn();
    } finally {
      failing = null;
    }
  };
  after(async () => {
    for (const s of shardSets) s.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    await one.dispose();
    await sharded.dispose();
  });

  const search = async (app: TestApp, key: string, body: Record<string, unknown>) => {
    const res = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': key }, payload: body });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const top = (b: { hits: { id: string; score: number }[] }) => b.hits.map((h) => [h.id, h.score]);

  test('both processes trained the same models from the same store', () => {
    assert.equal(one.corpusModels.manifest('documents')!.dense.sha256, sharded.corpusModels.manifest('documents')!.dense.sha256);
    for (const s of shardSets) assert.ok(s.get('documents').vectorStatus().documentsWithVectors > 20);
  });

  for (const mode of ['fulltext', 'sparse', 'short_document', 'binary', 'hybrid']) {
    for (const query of ['heart attack', 'sandstone porosity reservoir', 'myocardial damage after surgery']) {
      test(`${mode}: same top 10 (ids and scores) as one node for ${JSON.stringify(query)}`, async () => {
        const body = { query, mode, limit: 10, include_rrf_scores: true, heap_factor: 1 };
        const a = await search(one, keyOne, body);
        const b = await search(sharded, keySharded, body);
        assert.equal(a.hits.length, 10);
        assert.deepEqual(top(b), top(a));
        assert.deepEqual(b.hits.map((h: { rrf_score?: unknown }) => h.rrf_score), a.hits.map((h: { rrf_score?: unknown }) => h.rrf_score));
        assert.equal(b.partial_results, undefined);
      });
    }
  }

  // hybrid at the request's default heap_factor (0.85): its sparse vote evaluates its sub-queries exactly
  // (ADR 0269), so the shards vote as one node does; `mode: sparse` keeps the request's heap_factor
  test('hybrid at the default heap_factor: same top 10 (ids, scores, RRF) as one node; the vote exact, sparse mode pruned', async () => {
    const queries = ['heart attack', 'sandstone porosity reservoir', 'myocardial damage after surgery', 'cardiac outcomes', 'rock permeability', 'coronary reperfusion', 'sediment compaction', 'heart failure', 'diagenesis', 'troponin'];
    for (const query of queries) {
      const body = { query, mode: 'hybrid', limit: 10, include_rrf_scores: true, tracing: true };
      const a = await search(one, keyOne, body);
      const b = await search(sharded, keySharded, body);
      assert.ok(a.hits.length > 0, query);
      assert.deepEqual(top(b), top(a), query);
      assert.deepEqual(b.hits.map((h: { rrf_score?: unknown }) => h.rrf_score), a.hits.map((h: { rrf_score?: unknown }) => h.rrf_score), query);
      for (const x of [a, b]) assert.equal(x.retrieval_traces.find((t: { branch: string }) => t.branch === 'sparse').heap_factor, 1, query);
    }
    const s = await search(one, keyOne, { query: 'heart attack', mode: 'sparse', tracing: true });
    assert.equal(s.retrieval_traces.find((t: { branch: string }) => t.branch === 'sparse').heap_factor, 0.85);
  });

  test('similar documents: the seed vector from its work\'s shard, the neighbours from every shard, equal to one node', async () => {
    for (const document_id of ['c0', 'c7', 'c42']) {
      const post = (app: TestApp, key: string) => app.http.inject({ method: 'POST', url: '/v2/search/similar', headers: { 'x-api-key': key }, payload: { document_id, limit: 10 } });
      const a = await post(one, keyOne);
      const b = await post(sharded, keySharded);
      assert.equal(a.statusCode, 200, a.body);
      assert.equal(b.statusCode, 200, b.body);
      assert.equal(a.json().hits.length, 10);
      assert.deepEqual(top(b.json()), top(a.json()), document_id);
      assert.ok(!b.json().hits.some((h: { id: string }) => h.id === document_id));
    }
  });

  test('ranking stages: candidate features from the shards (lexical parts, branch backfill, cited_by), L1 at the api node, as one node', async () => {
    for (const query of ['heart attack', '"myocardial infarction" coronary', 'sandstone porosity reservoir']) {
      const body = { query, limit: 10, heap_factor: 1, include_candidate_scores: true, l1: { formula: 'bm25_title + 2 * bm25_abstract + phrase_bonus + proximity + fulltext + 10 * short_document + sparse + cited_by', backfill: true } };
      // the engagement features read activity counters the searches so far wrote (buffered): settle both
      await one.activity.flush();
      await sharded.activity.flush();
      const a = await search(one, keyOne, body);
      const b = await search(sharded, keySharded, body);
      assert.equal(a.hits.length, 10);
      const view3 = (x: { hits: { id: string; score: number; candidate_scores: unknown }[] }) => x.hits.map((h) => [h.id, h.score, h.candidate_scores]);
      assert.deepEqual(view3(b), view3(a), query);
      assert.ok(a.hits.some((h: { candidate_scores: { document: Record<string, number> } }) => (h.candidate_scores.document['bm25_title'] ?? 0) > 0), 'lexical features present');
    }
  });

  test('similar documents whose seed\'s shard has no live replica: 503 naming the shard, not an internal error (ADR 0265)', async () => {
    const id = docs.map((d) => d.id).find((x) => shardSets[1]!.get('documents').has(x))!;
    const res = await failingOn((m) => m === 'documentVector', () => sharded.http.inject({ method: 'POST', url: '/v2/search/similar', headers: { 'x-api-key': keySharded }, payload: { document_id: id, limit: 10 } }));
    assert.equal(res.statusCode, 503, res.body);
    assert.match(res.body, /shard 1/);
  });

  test('a shard that fails the spelling call makes the response partial, not a silently different correction (ADR 0265)', async () => {
    const body = { query: 'hert atack', mode: 'fulltext', limit: 10 };
    const a = await search(one, keyOne, body);
    assert.equal((await search(sharded, keySharded, body)).partial_results, undefined);
    const b = await failingOn((m) => m === 'suggest', () => search(sharded, keySharded, body));
    assert.deepEqual(b.partial_results, { shards: 2, missing: [{ index: 'documents', shard: 1 }] });
    assert.deepEqual(top(b), top(a), 'the hits themselves came from both shards');
  });

  test('a shard that fails the ranking features\' calls (score parts, cited_by) makes the response partial (ADR 0265)', async () => {
    const body = { query: 'heart attack', limit: 10, include_candidate_scores: true, l1: { formula: 'bm25_title + 2 * bm25_abstract + fulltext + cited_by' } };
    assert.equal((await search(sharded, keySharded, body)).partial_results, undefined);
    for (const method of ['scoreParts', 'citedBy']) {
      const b = await failingOn((m) => m === method, () => search(sharded, keySharded, body));
      assert.deepEqual(b.partial_results, { shards: 2, missing: [{ index: 'documents', shard: 1 }] }, method);
    }
  });

  test('cited_by: one shard call per shard for the whole candidate pool, not a search per candidate (ADR 0265)', async () => {
    const body = { query: 'sandstone porosity reservoir', limit: 10, include_candidate_scores: true, l1: { formula: 'fulltext + cited_by' } };
    const a = await search(one, keyOne, body);
    calls.length = 0;
    const b = await search(sharded, keySharded, body);
    const view5 = (x: { hits: { id: string; score: number; candidate_scores: { document: Record<string, number> } }[] }) => x.hits.map((h) => [h.id, h.score, h.candidate_scores.document['cited_by']]);
    assert.deepEqual(view5(b), view5(a));
    assert.ok(a.hits.some((h: { candidate_scores: { document: Record<string, number> } }) => (h.candidate_scores.document['cited_by'] ?? 0) > 0), 'some candidates are cited');
    assert.deepEqual(calls.filter((c) => c.endsWith(':citing')), [], 'no citing search per candidate');
    assert.deepEqual(calls.filter((c) => c.endsWith(':citedBy')).sort(), ['0:citedBy', '1:citedBy']);
  });

  test('a shard that fails the work budget\'s statistics call makes the search partial (ADR 0265, 0266)', async () => {
    // the budget's DFS call carries the query's terms as expansion terms only (no text)
    const b = await failingOn((m, req) => m === 'stats' && req.query?.text === '', () => search(sharded, keySharded, { query: 'heart attack', mode: 'fulltext' }));
    assert.deepEqual(b.partial_results, { shards: 2, missing: [{ index: 'documents', shard: 1 }] });
  });

  test('a conversation turn whose term statistics miss a shard fails clearly (503), never a different answer (ADR 0265)', async () => {
    // the term statistics call is the DFS call with the question's terms as expansion terms only
    const res = await failingOn(
      (m, req) => m === 'stats' && req.query?.text === '',
      () => sharded.http.inject({ method: 'POST', url: '/v2/conversations/', headers: { 'x-api-key': keySharded }, payload: { query: 'What follows a heart attack after coronary occlusion?', llm_config: { model_name: 'lectern-extractive' } } }),
    );
    assert.equal(res.statusCode, 503, res.body);
    assert.match(res.body, /shard 1/);
  });

  test('a conversation turn: retrieval and the answer\'s term statistics from the shards, the same answer as one node', async () => {
    const ask = (app: TestApp, key: string) => app.http.inject({ method: 'POST', url: '/v2/conversations/', headers: { 'x-api-key': key }, payload: { query: 'What follows a heart attack after coronary occlusion?', llm_config: { model_name: 'lectern-extractive' } } });
    const a = await ask(one, keyOne);
    const b = await ask(sharded, keySharded);
    assert.equal(a.statusCode, 200, a.body);
    assert.equal(b.statusCode, 200, b.body);
    const view4 = (x: { answer: string; citations: unknown[]; search_documents: { document: { id: string } }[] }) => [x.answer, x.citations, x.search_documents.map((d) => d.document.id)];
    assert.ok(a.json().search_documents.length > 0);
    assert.deepEqual(view4(b.json()), view4(a.json()));
  });

  test('the channels on shards say so in the trace: per-shard entries for sparse and short_document', async () => {
    const b = await search(sharded, keySharded, { query: 'heart attack', mode: 'hybrid', tracing: true });
    for (const channel of ['fulltext', 'sparse', 'short_document']) {
      const t = b.retrieval_traces.find((x: { branch: string }) => x.branch === channel);
      assert.ok(t, `${channel}: ${JSON.stringify(b.retrieval_traces.map((x: { branch: string }) => x.branch))}`);
      assert.equal(t.shards.length, 2, channel);
      for (const s of t.shards) assert.equal(s.node, 'local');
    }
  });
});
