// The ShardClient contract (ADR 0201): what the coordinator relies on from every transport. A fixture
// holds one shard (shard number 1) of a small corpus; the answers must equal the engine's own over the
// same documents: statistics of the DFS phase, and searches scored with injected global statistics
// (ids, bit-identical scores, passages, work keys, exact totals, has_more, explanations, issue times of
// filter-only listings); the fetch phase's stored records (ADR 0280). Failures reject: unknown index, an
// aborted call.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryIndexDirectory, SearchIndex, TrainingState, fieldTerms, type CorpusStats, type IndexDocument } from '../../src/engine/index.js';
import type { ShardClient } from '../../src/ports/shard-client.js';
import { ShardSearcher } from '../../src/search/shard-searcher.js';
import { citedByCount } from '../../src/ranking/sources.js';

export interface ShardClientFixture {
  client: ShardClient;
  dispose(): Promise<void>;
}

/** Makes a client for the shard `searcher` answers for. */
export type ShardClientFactory = (searcher: ShardSearcher) => Promise<ShardClientFixture>;

export const SHARD_DOCS: IndexDocument[] = [
  { id: 'a1', title: 'Heat shock proteins in yeast', abstract: 'Heat shock proteins protect cells under thermal stress.', workKey: 'wa', issuedAt: 1_600_000_000, type: 'article', language: 'en', references: ['doi://10.1/cold'], stored: new TextEncoder().encode(JSON.stringify({ id: 'a1', title: 'Heat shock proteins in yeast', authors: [{ name: 'Åsa Ødegård', orcid: null }] })) },
  { id: 'a2', title: 'Heat shock proteins in yeast (preprint)', abstract: 'Heat shock proteins protect cells.', workKey: 'wa', issuedAt: 1_590_000_000, type: 'preprint', language: 'en' },
  { id: 'b1', title: 'Protein folding', abstract: 'Chaperones assist protein folding; heat denatures proteins.', workKey: 'wb', issuedAt: null, type: 'article', language: 'en', uris: ['doi://10.1/fold'], references: ['doi://10.1/cold', 'doi://10.1/heat'] },
  { id: 'c1', title: 'Cold adaptation', abstract: 'Antifreeze proteins in polar fish.', workKey: 'wc', issuedAt: 1_650_000_000, type: 'article', language: 'en', stored: new TextEncoder().encode(JSON.stringify({ id: 'c1', abstract: 'x'.repeat(40_000) })) },
];
const STORED_C1 = SHARD_DOCS[3]!.stored!;

/** Statistics of a larger corpus this shard is part of (other shards hold the rest). */
const GLOBAL: CorpusStats = { docCount: 40, segmentDocs: 42, fieldTotals: [160, 900, 0], df: { heat: 9, shock: 3, protein: 20 } };

export function shardClientContract(label: string, open: ShardClientFactory): void {
  const direct = SearchIndex.open(new MemoryIndexDirectory());
  for (const d of SHARD_DOCS) direct.add(d);
  direct.commit('1');
  // a dense model over the documents, for the dense channels' call
  const training = new TrainingState();
  for (const d of SHARD_DOCS) training.set(d.id, fieldTerms(d.title, d.abstract ?? '', 'en'));
  const { dense } = training.train({ dims: 32, contrastiveEpochs: 0, ivfMinDocs: Infinity });
  direct.setVectorModel({ id: 'm', model: dense });
  const searcher = new ShardSearcher(1, { get: () => direct });
  const it = (name: string, fn: (c: ShardClient) => Promise<void>) =>
    test(`${label}: ${name}`, async () => {
      const f = await open(searcher);
      try {
        await fn(f.client);
      } finally {
        await f.dispose();
      }
    });

  it('names its shard and node', async (c) => {
    assert.equal(c.shard, 1);
    assert.equal(typeof c.node, 'string');
    assert.ok(c.node.length > 0);
  });

  it('stats: the shard\'s document counts, field totals and each query term\'s document frequency', async (c) => {
    const r = await c.stats({ index: 'documents', query: { text: 'heat "shock proteins" zebra' } });
    assert.equal(r.shard, 1);
    assert.equal(r.node, c.node);
    const plain = (x: CorpusStats) => ({ ...x, df: { ...x.df } });
    assert.deepEqual(plain(r.stats), plain(direct.queryStats({ text: 'heat "shock proteins" zebra' })));
    assert.equal(r.stats.docCount, 4);
    assert.equal(r.stats.df['heat'], 3);
    assert.equal(r.stats.df['zebra'], 0);
    assert.ok(r.us >= 0);
  });

  it('search: scored with the injected global statistics, exactly as the engine scores', async (c) => {
    const query = { text: 'heat shock protein', limit: 10, exactTotal: true, passagesPerHit: 2 };
    const r = await c.search({ index: 'documents', query, globalStats: GLOBAL });
    const want = direct.search({ ...query, globalStats: GLOBAL });
    assert.deepEqual(r.result.hits.map((h) => [h.id, h.score, h.workKey, h.passages]), want.hits.map((h) => [h.id, h.score, h.workKey, h.passages]));
    assert.equal(r.result.totalHits, want.totalHits);
    assert.equal(r.result.hasMore, want.hasMore);
    // and not with the shard's own statistics
    const local = direct.search(query);
    assert.notDeepEqual(r.result.hits.map((h) => h.score), local.hits.map((h) => h.score));
  });

  it('search: filters, work collapse, paging, explanations and traces travel', async (c) => {
    const query = { text: 'proteins', limit: 1, offset: 0, collapseByWorkKey: true, explain: true, trace: true, exactTotal: true, filters: { types: ['article', 'preprint'] } };
    const r = await c.search({ index: 'documents', query, globalStats: GLOBAL });
    const want = direct.search({ ...query, trace: true, globalStats: GLOBAL });
    assert.deepEqual(r.result.hits.map((h) => h.id), want.hits.map((h) => h.id));
    assert.equal(r.result.totalHits, 3); // works wa, wb, wc
    assert.equal(r.result.hasMore, true);
    assert.ok(r.result.hits[0]!.explanation!.value > 0);
    assert.ok(r.result.trace && r.result.trace.terms.some((t) => t.term === 'protein' && t.df === 20));
  });

  it('search: a filter-only listing carries the issue times the merge orders by', async (c) => {
    const r = await c.search({ index: 'documents', query: { text: '', limit: 10, filters: { types: ['article'] } }, globalStats: GLOBAL });
    assert.deepEqual(r.result.hits.map((h) => h.id), ['c1', 'a1', 'b1']);
    assert.deepEqual(r.result.issued, [1_650_000_000, 1_600_000_000, null]);
  });

  it('search: a long query is pruned by the corpus statistics and the budget travels (ADR 0231)', async (c) => {
    // the budget leaves out the most common words by the corpus's document frequencies, not the shard's
    const query = { text: 'heat shock protein proteins', limit: 10, budget: { maxTerms: 2, maxPostings: 1_000_000 }, maxPassageTerms: 16 };
    const r = await c.search({ index: 'documents', query, globalStats: GLOBAL });
    const want = direct.search({ ...query, globalStats: GLOBAL });
    assert.ok(want.pruned && want.pruned.droppedTerms.length > 0, 'the query was pruned');
    assert.deepEqual(r.result.hits.map((h) => [h.id, h.score]), want.hits.map((h) => [h.id, h.score]));
    assert.deepEqual(r.result.pruned?.droppedTerms, want.pruned.droppedTerms);
  });

  it('rejects an unknown index', async (c) => {
    await assert.rejects(c.stats({ index: 'nope' as 'documents', query: { text: 'heat' } }));
  });

  it('rejects a call whose signal is already aborted', async (c) => {
    const ac = new AbortController();
    ac.abort(new Error('hedge won'));
    await assert.rejects(c.search({ index: 'documents', query: { text: 'heat' }, globalStats: GLOBAL }, { signal: ac.signal }));
  });

  it('vectors: the shard\'s dense top k, scores bit-identical to the engine\'s (exact and binary), filters and collapse travel', async (c) => {
    const vector = direct.documentVector('b1')!;
    for (const method of ['exact', 'binary', 'auto'] as const) {
      const query = { vector: Array.from(vector), method, limit: 3, collapseByWorkKey: true, passagesPerHit: 1, filters: { types: ['article', 'preprint'] } };
      const r = await c.vectors({ index: 'documents', query });
      const want = direct.searchVectors({ ...query, vector });
      assert.equal(r.shard, 1);
      assert.equal(r.node, c.node);
      assert.deepEqual(r.result.hits.map((h) => [h.id, h.score, h.workKey, h.passages]), want.hits.map((h) => [h.id, h.score, h.workKey, h.passages]), method);
      assert.equal(r.result.hits[0]!.id, 'b1');
      assert.equal(r.result.scanned, want.scanned);
      assert.equal(r.result.totalHits, want.totalHits);
    }
  });

  it('documentVector: a document\'s stored vector, exactly; null for one the shard does not hold', async (c) => {
    const r = await c.documentVector({ index: 'documents', id: 'a1' });
    assert.equal(r.shard, 1);
    assert.deepEqual(Float32Array.from(r.vector!), direct.documentVector('a1'));
    assert.equal((await c.documentVector({ index: 'documents', id: 'zz' })).vector, null);
  });

  it('suggest: the shard\'s dictionary candidates of terms, as the engine finds them', async (c) => {
    const r = await c.suggest({ index: 'documents', terms: ['protien', 'zzzzzz'], limit: 5 });
    assert.equal(r.shard, 1);
    assert.deepEqual({ ...r.suggestions }, { ...direct.suggestTerms(['protien', 'zzzzzz'], 5) });
    assert.ok(r.suggestions['protien']!.length > 0);
    assert.deepEqual(r.suggestions['zzzzzz'], []);
  });

  it('scoreParts: candidates\' lexical parts scored with the injected global statistics, exactly as the engine', async (c) => {
    const query = { text: 'heat "shock proteins"', phraseBoost: 1 };
    const r = await c.scoreParts({ index: 'documents', query, globalStats: GLOBAL, ids: ['a1', 'b1', 'zz'] });
    const want = direct.scoreParts({ ...query, globalStats: GLOBAL }, ['a1', 'b1', 'zz']);
    assert.deepEqual({ ...r.parts }, Object.fromEntries(want));
    assert.equal(r.parts['zz'], undefined);
    assert.notDeepEqual(r.parts['a1'], direct.scoreParts(query, ['a1']).get('a1'));
  });

  it('citedBy: each document\'s citing records on the shard, in one call, as the engine counts them', async (c) => {
    const uriSets = [['doi://10.1/cold'], ['doi://10.1/heat', 'doi://10.1/cold'], ['doi://10.1/none'], []];
    const r = await c.citedBy({ index: 'documents', uriSets });
    assert.equal(r.shard, 1);
    assert.equal(r.node, c.node);
    assert.deepEqual(r.counts, uriSets.map((uris) => citedByCount(direct, { uris })));
    assert.deepEqual(r.counts, [2, 2, 0, 0]);
  });

  it('records: the stored display records of the ids the shard holds, as the stored JSON text (the fetch phase, ADR 0280)', async (c) => {
    const r = await c.records({ index: 'documents', ids: ['a1', 'zz', 'c1', 'b1'] });
    assert.equal(r.shard, 1);
    assert.equal(r.node, c.node);
    assert.deepEqual(Object.keys(r.records).sort(), ['a1', 'c1'], 'b1 was indexed without a record, zz is not held');
    assert.deepEqual(JSON.parse(r.records['a1']!), { id: 'a1', title: 'Heat shock proteins in yeast', authors: [{ name: 'Åsa Ødegård', orcid: null }] });
    assert.equal(new TextEncoder().encode(r.records['c1']!).length, STORED_C1.length);
    assert.deepEqual(await c.records({ index: 'documents', ids: [] }).then((x) => x.records), {});
  });

  it('search with fetch: the stored records of the top hits come with the answer, except body-snippet hits (ADR 0292)', async (c) => {
    const query = { text: 'heat proteins cold', limit: 10, exactTotal: true, passagesPerHit: 2 };
    const plain = await c.search({ index: 'documents', query, globalStats: GLOBAL });
    assert.equal(plain.records, undefined, 'no records unless asked');
    const r = await c.search({ index: 'documents', query, globalStats: GLOBAL, fetch: { hits: 10, skipBodyPassages: 3 } });
    assert.deepEqual(r.result.hits.map((h) => [h.id, h.score]), plain.result.hits.map((h) => [h.id, h.score]), 'the same ranking');
    const ids = r.result.hits.map((h) => h.id);
    assert.ok(ids.includes('a1') && ids.includes('c1') && ids.includes('b1'), ids.join());
    // a1 and c1 have stored records; b1 was indexed without one
    assert.deepEqual(Object.keys(r.records ?? {}).sort(), ['a1', 'c1']);
    assert.deepEqual(JSON.parse(r.records!['a1']!), { id: 'a1', title: 'Heat shock proteins in yeast', authors: [{ name: 'Åsa Ødegård', orcid: null }] });
    assert.equal(new TextEncoder().encode(r.records!['c1']!).length, STORED_C1.length);
    // only the top `hits`
    const top1 = await c.search({ index: 'documents', query, globalStats: GLOBAL, fetch: { hits: 1 } });
    assert.ok(Object.keys(top1.records ?? {}).length <= 1);
    for (const id of Object.keys(top1.records ?? {})) assert.equal(id, top1.result.hits[0]!.id);
  });
}
