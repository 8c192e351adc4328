// The benchmark pool options through POST /v2/search/ (docs/ranking.md, ADR 0138): binary_pool merges a
// binary-only retrieval pool into the L2 pool of a documents-corpus search, document_discovery merges a
// whole-document pool into a passages search's reranker pool. The trace's ranking entry gives the pool
// sizes by source; refusals name what to fix and charge nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigInput } from '../../src/config/index.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';

const heart = ['Heart attack outcomes in adults', 'Myocardial infarction after surgery', 'Cardiac arrest and heart failure', 'Coronary artery disease and myocardial damage'];
const heartAbs = ['Myocardial infarction (heart attack) follows coronary occlusion; cardiac troponin rises.', 'Patients with heart failure after myocardial infarction; coronary reperfusion and cardiac outcomes.'];
const rock = ['Sandstone porosity', 'Reservoir rock permeability', 'Sediment and sandstone diagenesis', 'Porous rock reservoir pressure'];
const rockAbs = ['Sandstone porosity and permeability of reservoir rock; sediment compaction.', 'Diagenesis of sediment reduces porosity; reservoir rock pressure and permeability.'];
const DOCS = Array.from({ length: 80 }, (_, i) => {
  const h = i % 2 === 0;
  return doc(`c${i}`, { title: `${(h ? heart : rock)[(i >> 1) % 4]} ${i}`, abstract: `${(h ? heartAbs : rockAbs)[(i >> 3) % 2]} Study ${i}.`, type: i % 4 === 0 ? 'review' : 'journal-article', language: 'en' });
});

/** An L2 model over one feature: 1 + 10 * is_review (worked out by hand: reviews 11, others 1). */
function reviewModel(): string {
  return JSON.stringify({
    model_info: { params: { loss_function: { type: 'YetiRank' } } },
    features_info: { float_features: [{ feature_index: 0, flat_feature_index: 0, borders: [0.5], has_nans: false, nan_value_treatment: 'AsIs', feature_id: 'is_review' }] },
    oblivious_trees: [{ leaf_values: [1, 11], leaf_weights: [1, 1], splits: [{ border: 0.5, float_feature_index: 0, split_index: 0, split_type: 'FloatFeature' }] }],
  });
}

type Hit = { id: string; score: number; candidate_scores: null | { document: Record<string, number> } };
type Trace = { branch: string; pool_sources: Record<string, number>; notes: string[] };

async function setup(app: TestApp) {
  const acct = await app.account({ credits: 1_000_000 });
  await seed(app, DOCS);
  await app.indexes!.catchUp();
  const search = async (body: Record<string, unknown>) => {
    const res = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': acct.key }, payload: body });
    return { status: res.statusCode, body: res.json() };
  };
  const balance = () => app.storage.ledger.balance(acct.id);
  return { search, balance };
}
const rankingTrace = (b: { retrieval_traces: Trace[] }) => b.retrieval_traces.find((t) => t.branch === 'ranking')!;
const ids = (b: { hits: { id: string }[] }) => b.hits.map((h) => h.id);

describe('binary_pool and document_discovery with an L2 model and the corpus models', () => {
  let app: TestApp;
  let dir: string;
  let s: Awaited<ReturnType<typeof setup>>;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ranking-pools-'));
    writeFileSync(join(dir, 'l2.json'), reviewModel());
    // a pool of 10: the fused list, the binary list and the whole-document list differ at that depth
    // the hand-written model records no mode: served for fulltext and hybrid by naming both (ADR 0230)
    app = await testApp({ ranking: { candidateDepth: 10, l2Models: `documents:fulltext=${join(dir, 'l2.json')}, documents:hybrid=${join(dir, 'l2.json')}` } as ConfigInput['ranking'] });
    s = await setup(app);
  });
  after(async () => {
    await app.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  test('binary_pool before the corpus models: refused naming the missing dense model, nothing charged', async () => {
    const r = await s.search({ query: 'heart attack', binary_pool: true });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.detail.missing, 'binary_pool');
    assert.match(r.body.detail.message, /models train/);
    await app.corpusModels.train('documents');
    app.refreshModels();
  });

  test('binary_pool: the binary list joins the L2 pool; its candidates carry the binary features; the trace counts them', async () => {
    const query = 'troponin';
    const base = await s.search({ query, limit: 10, mode: 'fulltext', tracing: true, include_candidate_scores: true });
    assert.equal(base.status, 200, JSON.stringify(base.body));
    const r = await s.search({ query, limit: 10, mode: 'fulltext', binary_pool: true, tracing: true, include_candidate_scores: true });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const t0 = rankingTrace(base.body);
    const t = rankingTrace(r.body);
    assert.deepEqual(t0.pool_sources, { fused: 10 });
    assert.equal(t.pool_sources['fused'], 10);
    const added = t.pool_sources['binary']!;
    assert.ok(added > 0, JSON.stringify(t.pool_sources));
    // the L2 stage ranks the merged pool
    assert.equal(r.body.candidate_ranking.l2.input_documents, 10 + added);
    assert.equal(base.body.candidate_ranking.l2.input_documents, 10);
    // binary-pool candidates not fused: binary score and rank observed, no RRF votes, no fulltext score
    const fusedPool = new Set(ids(base.body).slice(0, 10));
    const hits = r.body.hits as Hit[];
    const fromBinary = hits.filter((h) => !fusedPool.has(h.id));
    assert.ok(fromBinary.length <= added);
    // fused candidates the binary list also found carry its score and rank too
    assert.ok(hits.some((h) => fusedPool.has(h.id) && h.candidate_scores!.document['binary_rank'] !== undefined));
    for (const h of fromBinary) {
      assert.equal(h.candidate_scores!.document['rrf'], 0);
      assert.equal(h.candidate_scores!.document['fulltext'], undefined);
      assert.ok(h.candidate_scores!.document['binary']! > 0);
      // L2 scored it: 11 for a review, 1 otherwise
      assert.equal(h.score, DOCS.find((d) => d.id === h.id)!.type === 'review' ? 11 : 1);
    }
    // the larger pool changed the page: binary-pool reviews (L2: 11) outrank fused non-reviews (1)
    assert.ok(fromBinary.length > 0, JSON.stringify(ids(r.body)));
    assert.notDeepEqual(ids(r.body), ids(base.body));
    const scores = hits.map((h) => h.score);
    assert.deepEqual(scores, [...scores].sort((x, y) => y - x));
    // no document twice
    assert.equal(new Set(ids(r.body)).size, r.body.hits.length);
  });

  test('binary_pool refusals: without L2, in mode binary, on another corpus; nothing charged', async () => {
    const before = await s.balance();
    const off = await s.search({ query: 'heart', binary_pool: true, l2_rerank: 'off' });
    assert.equal(off.status, 422);
    assert.equal(off.body.detail.missing, 'binary_pool');
    assert.match(off.body.detail.message, /L2/);
    const bin = await s.search({ query: 'heart', binary_pool: true, mode: 'binary' });
    assert.equal(bin.status, 422);
    assert.equal(bin.body.detail.code, 'validation_failed');
    const social = await s.search({ query: 'heart', binary_pool: true, index_names: ['social'] });
    assert.equal(social.status, 422);
    assert.match(social.body.detail.message, /documents corpus/);
    assert.deepEqual(await s.balance(), before);
  });

  test('document_discovery: true merges whole-document candidates into a passages search; false and omitted (explicit passages) do not', async () => {
    const query = 'sandstone heart';
    const body = { query, limit: 10, ranking_mode: 'passages', tracing: true, l1: { formula: 'bm25_title + bm25_abstract' } };
    const forced = await s.search({ ...body, document_discovery: true });
    assert.equal(forced.status, 200, JSON.stringify(forced.body));
    const t = rankingTrace(forced.body);
    assert.equal(t.pool_sources['fused'], 10);
    const added = t.pool_sources['document_discovery']!;
    assert.ok(added > 0, JSON.stringify(t.pool_sources));
    const off = await s.search({ ...body, document_discovery: false });
    assert.deepEqual(rankingTrace(off.body).pool_sources, { fused: 10 });
    // omitted: merges only for automatic passage searches; ranking_mode "passages" was asked for explicitly
    const omitted = await s.search(body);
    assert.deepEqual(rankingTrace(omitted.body).pool_sources, { fused: 10 });
    // the formula ranked the larger pool (the trace's l1 stage counts it) and the page changed
    const l1 = (b: { retrieval_traces: { branch: string; stages: { stage: string; candidates: number }[] }[] }) => b.retrieval_traces.find((x) => x.branch === 'ranking')!.stages.find((x) => x.stage === 'l1')!.candidates;
    assert.equal(l1(forced.body), 10 + added);
    assert.equal(l1(off.body), 10);
    assert.notDeepEqual(ids(forced.body), ids(off.body));
    assert.equal(new Set(ids(forced.body)).size, forced.body.hits.length, 'no document twice');
  });

  test('document_discovery refusals: a documents search, a dense mode, no reranking stage', async () => {
    const docs = await s.search({ query: 'heart', document_discovery: true, ranking_mode: 'documents', l1: { formula: 'fulltext' } });
    assert.equal(docs.status, 422);
    assert.equal(docs.body.detail.code, 'validation_failed');
    const dense = await s.search({ query: 'heart', document_discovery: true, mode: 'short_document' });
    assert.equal(dense.status, 422);
    const none = await s.search({ query: 'heart', document_discovery: true, ranking_mode: 'passages', l2_rerank: 'off' });
    assert.equal(none.status, 422);
    assert.equal(none.body.detail.missing, 'document_discovery');
    // auto resolved to documents: forced discovery has nothing to merge into, and the trace says so
    const auto = await s.search({ query: 'heart', document_discovery: true, tracing: true });
    assert.equal(auto.status, 200);
    assert.deepEqual(rankingTrace(auto.body).pool_sources, { fused: 10 });
    assert.match(rankingTrace(auto.body).notes.join(' '), /document_discovery: the search ranked whole documents/);
  });
});
