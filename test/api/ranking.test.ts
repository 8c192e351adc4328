// The ranking pipeline through POST /v2/search/ (docs/ranking.md): L1 formulas from the request and
// from the configured profile, candidate scores, CandidateRankingInfo, refusals before any charge, an
// L2 CatBoost model the test writes (predictions worked out by hand), and a tiny ONNX cross-encoder the
// test builds, which reorders the top candidates and picks each snippet's evidence window.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigInput } from '../../src/config/index.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { doc, seed } from '../helpers/documents.js';
import { writeTinyCrossEncoder } from '../helpers/tiny-onnx.js';
import { callTool, fakeTokens } from '../mcp/helpers.js';

const Y = (y: number) => Date.UTC(y, 0, 1) / 1000;

const DOCS = [
  doc('h1', { title: 'Underground hydrogen storage in salt caverns', abstract: 'Salt caverns offer tight storage for hydrogen gas; cushion gas keeps pressure.', type: 'journal-article', language: 'en', issuedAt: Y(2022), uris: ['doi://10.1016/j.fuel.2022.1'] }),
  doc('h2', { title: 'Hydrogen storage in depleted gas reservoirs', abstract: 'A review of cushion gas, hydrogen loss and microbial activity in reservoirs.', type: 'review', language: 'en', issuedAt: Y(2023), uris: ['doi://10.3390/en2023.2'], references: ['doi://10.1016/j.fuel.2022.1'] }),
  doc('h3', { title: 'Gas storage economics', abstract: 'Storage of natural gas and the economics of hydrogen blending.', type: 'journal-article', language: 'en', issuedAt: Y(2015), references: ['doi://10.1016/j.fuel.2022.1'] }),
  doc('m1', { title: 'Planning hydrogen storage sites', abstract: 'Hydrogen storage needs careful planning of all sites. Microbial activity consumes hydrogen underground.', type: 'journal-article', language: 'en', issuedAt: Y(2019) }),
  doc('p1', { title: 'Hydrogen storage in salt caverns (preprint)', abstract: 'Salt caverns offer tight storage for hydrogen.', type: 'preprint', uris: ['arxiv://2201.00001'] }),
  ...Array.from({ length: 12 }, (_, i) => doc(`g${i}`, { title: `Geology note ${i} on storage`, abstract: `Sandstone porosity sample ${i}.`, type: 'journal-article', issuedAt: Y(2000 + i) })),
];

type Hit = { id: string; score: number; snippets: { text: string; evidence: null | { text: string; start_char: number; score: number } }[]; candidate_scores: null | { document: Record<string, number>; passages: { ordinal: number; scores: Record<string, number>; l1_score: number | null }[]; scored_passages: number } };

async function setup(config: Partial<ConfigInput> = {}) {
  const tokens = fakeTokens();
  const app = Object.assign(await testApp(config, { credentialVerifiers: [tokens] }), { tokens });
  const acct = await app.account({ credits: 1_000_000 });
  await seed(app, DOCS);
  await app.indexes!.catchUp();
  const search = async (body: Record<string, unknown>) => {
    const res = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': acct.key }, payload: body });
    return { status: res.statusCode, body: res.json() };
  };
  return { app, acct, search };
}
const ids = (b: { hits: { id: string }[] }) => b.hits.map((h) => h.id);
const issued = (id: string) => DOCS.find((d) => d.id === id)!.issuedAt ?? null;

describe('ranking pipeline without configured models', () => {
  let s: Awaited<ReturnType<typeof setup>>;
  before(async () => (s = await setup()));
  after(() => s.app.dispose());

  test('an l1 formula reorders the candidates: newest first, undated last unless missing_values says otherwise', async () => {
    const organic = await s.search({ query: 'hydrogen storage', limit: 50 });
    const r = await s.search({ query: 'hydrogen storage', limit: 50, l1: { formula: '-age_days' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(new Set(ids(r.body)), new Set(ids(organic.body)), 'the same candidates');
    const dated = ids(r.body).filter((id) => issued(id) !== null);
    assert.deepEqual(dated, [...dated].sort((a, b) => issued(b)! - issued(a)!));
    // undated p1 has no age: 0 by default (-0 = the best score here); a missing value of 1e6 days sends it last
    assert.equal(ids(r.body)[0], 'p1');
    const late = await s.search({ query: 'hydrogen storage', limit: 50, l1: { formula: '-age_days', missing_values: { age_days: 1e6 } } });
    assert.equal(ids(late.body).at(-1), 'p1');
    assert.equal(late.body.hits.at(-1).score, -1e6);
    const info = r.body.candidate_ranking;
    assert.equal(info.method, 'formula');
    assert.equal(info.contract.name, 'lectern-features-v1');
    assert.equal(info.contract.candidate_depth, 100);
    assert.ok(info.contract.features.includes('bm25_title') && info.contract.features.includes('passage_score'));
    assert.equal(info.l2, null);
    assert.equal(info.model_sha256, null);
    // the control: rrf keeps the organic order and runs no stage
    const control = await s.search({ query: 'hydrogen storage', limit: 50, candidate_ranking: 'rrf' });
    assert.deepEqual(ids(control.body), ids(organic.body));
    // candidate_ranking says so: the candidates are the fused (RRF) list, no stage after it
    assert.equal(control.body.candidate_ranking.method, 'rrf');
    assert.equal(control.body.candidate_ranking.l2, null);
    assert.equal(control.body.candidate_ranking.model_sha256, null);
    assert.equal(control.body.candidate_ranking.contract.name, 'lectern-features-v1');
  });

  test('an observed zero wins over missing_values; absent cells take it', async () => {
    // no quoted phrase: phrase_bonus is observed 0 for every candidate
    const r = await s.search({ query: 'hydrogen storage', l1: { formula: 'phrase_bonus + 1', missing_values: { phrase_bonus: 100 } }, include_candidate_scores: true });
    assert.equal(r.status, 200);
    for (const h of r.body.hits as Hit[]) assert.equal(h.score, 1);
    // bm25_body is absent (no full text): the default applies
    const b = await s.search({ query: 'hydrogen storage', l1: { formula: 'bm25_body', missing_values: { bm25_body: 7 } } });
    for (const h of b.body.hits as Hit[]) assert.equal(h.score, 7);
  });

  test('non-finite formula values: NaN ranks last, infinities stay ordered, the wire carries finite numbers', async () => {
    // log(0) = -Infinity for documents without a title match; 0 / 0 = NaN
    const r = await s.search({ query: 'hydrogen storage', limit: 50, l1: { formula: 'bm25_abstract > 0 ? log(0) : 0 / 0' } });
    assert.equal(r.status, 200);
    for (const h of r.body.hits as Hit[]) assert.ok(Number.isFinite(h.score));
    const scores = (r.body.hits as Hit[]).map((h) => h.score);
    assert.equal(scores[0], -Number.MAX_VALUE);
  });

  test('include_candidate_scores: raw document and passage features; absent data omitted, zeros kept', async () => {
    const r = await s.search({ query: 'hydrogen storage', limit: 20, include_candidate_scores: true, l1: { formula: 'fulltext + 10 * passage_score' } });
    assert.equal(r.status, 200);
    const hits = r.body.hits as Hit[];
    for (const h of hits) {
      const c = h.candidate_scores!;
      assert.ok(c, h.id);
      for (const k of ['rrf', 'fulltext', 'fulltext_rank', 'bm25_title', 'phrase_bonus', 'proximity', 'has_abstract', 'has_full_text', 'cited_by']) assert.equal(typeof c.document[k], 'number', `${h.id} ${k}`);
      assert.equal(c.document['sparse'], undefined, 'a channel that did not run is absent');
      assert.equal(c.document['bm25_body'], undefined, 'no full text: absent');
      assert.equal(c.document['phrase_bonus'], 0, 'observed zero kept');
      assert.ok(c.passages.length > 0);
      for (const p of c.passages) {
        assert.equal(p.l1_score, c.document['fulltext']! + 10 * p.scores['passage_score']!);
        assert.ok(p.ordinal >= 0);
      }
      // the document's score is its best passage's
      assert.equal(h.score, Math.max(...c.passages.map((p) => p.l1_score!)));
      assert.equal(c.scored_passages, c.passages.filter((p) => p.scores['passage_score']! > 0).length);
    }
    const byId = new Map(hits.map((h) => [h.id, h.candidate_scores!]));
    assert.equal(byId.get('h1')!.document['cited_by'], 2, 'h2 and h3 cite h1');
    assert.equal(byId.get('h2')!.document['is_review'], 1);
    assert.equal(byId.get('p1')!.document['age_days'], undefined);
    assert.equal(byId.get('h1')!.document['age_days'], (s.app.clock.nowMs() / 1000 - Y(2022)) / 86400);
    // title-only BM25: positive for a title match
    assert.ok(byId.get('h1')!.document['bm25_title']! > 0);
  });

  test('engagement features come from the activity counters', async () => {
    const now = Math.floor(s.app.clock.nowMs() / 1000);
    await s.app.storage.activity.record([
      { documentId: 'h3', kind: 'view', accountId: null, visitor: 'v1', at: now },
      { documentId: 'h3', kind: 'view', accountId: null, visitor: 'v2', at: now },
      { documentId: 'h3', kind: 'positive_rating', accountId: 1, visitor: null, at: now },
    ]);
    const r = await s.search({ query: 'gas storage economics', limit: 20, include_candidate_scores: true, l1: { formula: 'views_30d + positive_ratings_30d' } });
    const h3 = (r.body.hits as Hit[]).find((h) => h.id === 'h3')!;
    assert.equal(h3.candidate_scores!.document['views_30d'], 2);
    assert.equal(h3.candidate_scores!.document['positive_ratings_30d'], 1);
    assert.equal(h3.score, 3);
    assert.equal(r.body.hits[0].id, 'h3');
  });

  test('a quoted phrase has a phrase bonus; proximity of unquoted words is measured', async () => {
    const r = await s.search({ query: '"salt caverns" hydrogen', include_candidate_scores: true, candidate_ranking: 'rrf' });
    assert.equal(r.status, 200);
    const h1 = (r.body.hits as Hit[]).find((h) => h.id === 'h1')!;
    assert.ok(h1.candidate_scores!.document['phrase_bonus']! > 0);
    assert.equal(r.body.candidate_ranking.method, 'rrf');
  });

  test('refusals name the problem and charge nothing', async () => {
    const before = await s.app.storage.ledger.balance(s.acct.id);
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ l1: { formula: 'bogus * 2 + nope' } }, 'validation_failed', /unknown features bogus, nope/],
      [{ l1: { formula: 'sparse + short_document_rank' } }, 'validation_failed', /absent branches \(sparse, short_document\)/],
      [{ l1: { formula: 'fulltext' }, mode: 'fulltext', fulltext_weight: 1, candidate_ranking: 'rrf' }, 'validation_failed', /with candidate_ranking "rrf" it would have no effect/],
      [{ l1: { formula: 'rrf <' } }, 'validation_failed', /unexpected end of formula/],
      [{ l1: { formula: 'rrf', missing_values: { nope: 1 } } }, 'validation_failed', /missing_values: unknown feature nope/],
      [{ candidate_ranking: 'formula' }, 'feature_unavailable', /needs a formula/],
      [{ l2_rerank: 'catboost' }, 'feature_unavailable', /none for documents \(no model configured\)/],
      [{ cross_rerank_candidates: 8 }, 'feature_unavailable', /no cross-encoder is configured/],
    ];
    for (const [body, code, message] of cases) {
      const r = await s.search({ query: 'hydrogen', ...body });
      assert.equal(r.status, 422, JSON.stringify(body));
      assert.equal(r.body.detail.code, code, JSON.stringify(body));
      assert.match(r.body.detail.message, message);
    }
    const absent = await s.search({ query: 'hydrogen', l1: { formula: 'sparse' } });
    assert.deepEqual(absent.body.detail.absent_branches, ['sparse']);
    assert.equal(await s.app.storage.ledger.balance(s.acct.id), before);
    // the defaults that need absent components have no effect, and the trace says so
    const t = await s.search({ query: 'hydrogen', tracing: true, cross_rerank: true, l2_rerank: 'auto' });
    const ranking = t.body.retrieval_traces.find((x: { branch: string }) => x.branch === 'ranking');
    assert.ok(ranking.notes.some((n: string) => /cross_rerank: no cross-encoder configured: no effect/.test(n)));
    assert.ok(ranking.notes.some((n: string) => /l2_rerank auto: no L2 model configured for documents: no effect/.test(n)));
  });

  test('the trace shows the stages that ran with their timings', async () => {
    const r = await s.search({ query: 'hydrogen storage', tracing: true, l1: { formula: 'bm25_title + rrf' } });
    const ranking = r.body.retrieval_traces.find((x: { branch: string }) => x.branch === 'ranking');
    assert.equal(ranking.candidate_ranking, 'formula');
    assert.deepEqual(ranking.stages.map((x: { stage: string }) => x.stage), ['features', 'l1']);
    for (const st of ranking.stages) assert.ok(Number.isInteger(st.us) && st.us >= 0);
    assert.deepEqual(ranking.stages[0].groups.sort(), ['lexical', 'retrieval']);
  });
});

/** One tree on is_review (border 0.5): leaf 0 (not a review) 1, leaf 1 (review) 11; scale 0.5, bias 2. */
function reviewModel(): string {
  return JSON.stringify({
    model_info: { params: { loss_function: { type: 'YetiRank' } } },
    features_info: { float_features: [{ feature_index: 0, flat_feature_index: 0, borders: [0.5], has_nans: false, nan_value_treatment: 'AsIs', feature_id: 'is_review' }] },
    oblivious_trees: [{ leaf_values: [1, 11], leaf_weights: [1, 1], splits: [{ border: 0.5, float_feature_index: 0, split_index: 0, split_type: 'FloatFeature' }] }],
    scale_and_bias: [0.5, [2]],
  });
}

describe('ranking pipeline with a profile formula, an L2 model and a cross-encoder', () => {
  let s: Awaited<ReturnType<typeof setup>>;
  let dir: string;
  let modelText: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ranking-models-'));
    modelText = reviewModel();
    writeFileSync(join(dir, 'l2.json'), modelText);
    // the cross-encoder likes "microbial" (5) and "planning" (1)
    writeTinyCrossEncoder(join(dir, 'cross'), ['hydrogen', 'storage', 'microbial', 'activity', 'planning', 'salt', 'caverns'], (w) => (w === 'microbial' ? 5 : w === 'planning' ? 1 : 0));
    s = await setup({ ranking: { formulaDocuments: 'bm25_title', formulaPassages: 'passage_score * 2', l2Models: `documents=${join(dir, 'l2.json')}`, crossEncoderDir: join(dir, 'cross') } as ConfigInput['ranking'] });
  });
  after(async () => {
    await s.app.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  test('L2: the model reorders the pool; scores, hashes, counts and timings as computed by hand', async () => {
    const r = await s.search({ query: 'hydrogen storage', limit: 50, cross_rerank: false, include_candidate_scores: true });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const hits = r.body.hits as Hit[];
    // review h2: 0.5 * 11 + 2 = 7.5; every other document 0.5 * 1 + 2 = 2.5
    assert.equal(hits[0]!.id, 'h2');
    assert.equal(hits[0]!.score, 7.5);
    for (const h of hits.slice(1)) assert.equal(h.score, 2.5);
    const info = r.body.candidate_ranking;
    const sha = createHash('sha256').update(modelText).digest('hex');
    assert.equal(info.method, 'formula+catboost', 'auto: the profile formula, then the configured L2 model');
    assert.equal(info.model_sha256, sha);
    assert.equal(info.l2.model_sha256, sha);
    assert.equal(info.l2.feature_version, 'lectern-features-v1');
    assert.equal(info.l2.input_documents, hits.length);
    assert.equal(info.l2.output_documents, hits.length);
    assert.deepEqual(info.l2.corpus_models, [{ corpus: 'documents', model_sha256: sha, scoring: { target: 'teacher_score', correction_weight: 1 }, input_documents: hits.length, input_rows: hits.length }]);
    assert.ok(info.l2.elapsed_us >= 0);
    assert.equal(info.contract.teacher_input, 'teacher_score');
    // below the review, ties keep the L1 (profile formula: title BM25) order
    const rest = hits.slice(1);
    for (let i = 1; i < rest.length; i++) assert.ok(rest[i - 1]!.candidate_scores!.document['bm25_title']! >= rest[i]!.candidate_scores!.document['bm25_title']!);
  });

  test('the ranking profile is the resolved ranking mode: each has its configured formula', async () => {
    const trace = async (body: Record<string, unknown>) => {
      const r = await s.search({ query: 'hydrogen storage', cross_rerank: false, l2_rerank: 'off', tracing: true, ...body });
      assert.equal(r.status, 200);
      return r.body.retrieval_traces.find((x: { branch: string }) => x.branch === 'ranking').stages.find((x: { stage: string }) => x.stage === 'l1');
    };
    assert.deepEqual([(await trace({})).formula, (await trace({})).origin], ['bm25_title', 'profile']);
    assert.equal((await trace({ ranking_mode: 'passages' })).formula, 'passage_score * 2');
    assert.equal((await trace({ ranking_mode: 'passages', l1: { formula: 'rrf' } })).origin, 'request');
  });

  test('controls: l2_rerank off and candidate_ranking rrf give the organic order; catboost on an index without a model is refused', async () => {
    const organic = await s.search({ query: 'hydrogen storage', limit: 50, cross_rerank: false, l2_rerank: 'off', candidate_ranking: 'rrf' });
    assert.equal(organic.status, 200);
    assert.equal(organic.body.candidate_ranking.method, 'rrf');
    const l1only = await s.search({ query: 'hydrogen storage', limit: 50, cross_rerank: false, l2_rerank: 'off' });
    assert.equal(l1only.body.candidate_ranking.method, 'formula');
    const social = await s.search({ query: 'hydrogen', index_names: ['documents', 'social'], l2_rerank: 'catboost' });
    assert.equal(social.status, 422);
    assert.match(social.body.detail.message, /none for social \(no model configured\)/);
  });

  test('cross-encoder: reranks the top candidates and picks each snippet\'s evidence window', async () => {
    const r = await s.search({ query: 'hydrogen storage', limit: 5, l2_rerank: 'off', candidate_ranking: 'rrf', cross_rerank_candidates: 20, tracing: true });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const hits = r.body.hits as Hit[];
    // the pair's score is the sum of its token weights: h2 and m1 hold "microbial" (5); m1 also
    // "planning" in its title and in its abstract (1 + 1): 7 > 5 > the rest (0)
    assert.deepEqual(ids(r.body).slice(0, 2), ['m1', 'h2']);
    assert.equal(hits[0]!.score, 7);
    assert.equal(hits[1]!.score, 5);
    const abstract = hits[0]!.snippets.find((x) => x.text.includes('Microbial'))!;
    assert.ok(abstract.evidence);
    assert.match(abstract.evidence!.text, /^Microbial activity consumes hydrogen underground/);
    assert.equal([...abstract.text].slice(abstract.evidence!.start_char, abstract.evidence!.start_char + [...abstract.evidence!.text].length).join(''), abstract.evidence!.text);
    assert.equal(abstract.evidence!.score, 5);
    assert.equal(r.body.candidate_ranking.method, 'rrf+cross_encoder');
    const ranking = r.body.retrieval_traces.find((x: { branch: string }) => x.branch === 'ranking');
    assert.deepEqual(ranking.stages.map((x: { stage: string }) => x.stage), ['features', 'cross_encoder', 'evidence']);
    assert.equal(ranking.stages[1].candidates, Math.min(20, r.body.total_hits));
    // cross_rerank false: no reranking, no evidence
    const off = await s.search({ query: 'hydrogen storage', limit: 5, l2_rerank: 'off', candidate_ranking: 'rrf', cross_rerank: false });
    assert.equal(off.body.candidate_ranking.method, 'rrf');
    for (const h of off.body.hits as Hit[]) for (const sn of h.snippets) assert.equal(sn.evidence, null);
  });

  test('the MCP search tool runs the default stages and shows them with their timings', async () => {
    const token = s.app.tokens.issue(s.acct.id, s.app.config.mcpUrl);
    const r = await callTool(s.app, token, 'search_documents', { query: 'hydrogen storage', limit: 3 });
    const ranking = r.structuredContent.ranking;
    assert.equal(ranking.method, 'formula+catboost+cross_encoder');
    assert.deepEqual(ranking.stages.map((x: { stage: string }) => x.stage), ['features', 'l1', 'l2', 'cross_encoder', 'evidence']);
    for (const st of ranking.stages) assert.ok(Number.isInteger(st.us) && st.us >= 0);
    assert.match(r.content[0]!.text, /Ranked by formula\+catboost\+cross_encoder: features [0-9.]+ ms, l1/);
  });
});

describe('train an L2 model on judgments from the served candidates, then serve it', () => {
  test('the trained model (feature rows from candidatePool) lifts the judged-relevant documents', async () => {
    const { trainRanker } = await import('../../src/ranking/train-ranker.js');
    const { searchCandidateSource } = await import('../../src/ranking/training-source.js');
    const { ndcg10 } = await import('../../src/ranking/train-ranker.js');
    const dir = mkdtempSync(join(tmpdir(), 'ranking-train-'));
    const first = await setup();
    // judgments: for every query, the reviews are the relevant documents (grade 3)
    const words = ['hydrogen', 'storage', 'gas', 'salt caverns', 'geology storage', 'hydrogen gas', 'storage sites', 'microbial activity', 'storage economics', 'caverns'];
    const reviews = new Map(DOCS.filter((d) => d.type === 'review').map((d) => [d.id, 3]));
    const judged = words.map((text, i) => ({ id: `q${i}`, text, index: 'documents' as const, rels: reviews }));
    const { modelJson, report } = await trainRanker(searchCandidateSource(first.app.search), judged, { folds: 1, iterations: 20, depth: 2, poolDepth: 50, earlyStoppingRounds: 20 });
    assert.equal(report.featureVersion, 'lectern-features-v1');
    await first.app.dispose();
    writeFileSync(join(dir, 'trained.json'), JSON.stringify(modelJson));
    const served = await setup({ ranking: { l2Models: `documents=${join(dir, 'trained.json')}` } as ConfigInput['ranking'] });
    try {
      const organic = await served.search({ query: 'hydrogen storage', limit: 10, l2_rerank: 'off' });
      const l2 = await served.search({ query: 'hydrogen storage', limit: 10 });
      assert.equal(l2.body.candidate_ranking.method, 'rrf+catboost');
      assert.notEqual(ids(organic.body)[0], 'h2');
      assert.equal(ids(l2.body)[0], 'h2');
      assert.ok(ndcg10(ids(l2.body), reviews) > ndcg10(ids(organic.body), reviews));
    } finally {
      await served.app.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('models stay in their lane (ADR 0230): a model runs only in the mode and channels it was trained for', () => {
  test('a model trained on hybrid pools records its lane, reorders hybrid, and leaves fulltext exactly as it was', async () => {
    const { trainRanker } = await import('../../src/ranking/train-ranker.js');
    const { searchCandidateSource } = await import('../../src/ranking/training-source.js');
    const dir = mkdtempSync(join(tmpdir(), 'ranking-lane-'));
    const first = await setup();
    const words = ['hydrogen', 'storage', 'gas', 'salt caverns', 'geology storage', 'hydrogen gas', 'storage sites', 'microbial activity', 'storage economics', 'caverns'];
    const reviews = new Map(DOCS.filter((d) => d.type === 'review').map((d) => [d.id, 3]));
    const judged = words.map((text, i) => ({ id: `q${i}`, text, index: 'documents' as const, rels: reviews }));
    const { modelJson, report } = await trainRanker(searchCandidateSource(first.app.search, 'hybrid'), judged, { folds: 1, iterations: 20, depth: 2, poolDepth: 50, earlyStoppingRounds: 20 });
    await first.app.dispose();
    const info = (modelJson as { model_info: Record<string, string> }).model_info;
    assert.equal(info.lectern_mode, 'hybrid');
    assert.equal(info.lectern_channels, 'fulltext', 'no corpus models here: hybrid runs the fulltext channel only');
    assert.deepEqual(report.lane, { mode: 'hybrid', channels: ['fulltext'] });
    writeFileSync(join(dir, 'hybrid.json'), JSON.stringify(modelJson));
    const served = await setup({ ranking: { l2Models: `documents=${join(dir, 'hybrid.json')}` } as ConfigInput['ranking'] });
    try {
      const q = { query: 'hydrogen storage', limit: 15 };
      // hybrid: the model's own lane, it runs and lifts the review
      const hybridOff = await served.search({ ...q, l2_rerank: 'off' });
      const hybrid = await served.search(q);
      assert.equal(hybrid.body.candidate_ranking.method, 'rrf+catboost');
      assert.notEqual(ids(hybridOff.body)[0], 'h2');
      assert.equal(ids(hybrid.body)[0], 'h2');
      // fulltext: another mode; the configured model is skipped: ids and scores equal l2_rerank off
      const off = await served.search({ ...q, mode: 'fulltext', l2_rerank: 'off' });
      const auto = await served.search({ ...q, mode: 'fulltext', tracing: true });
      assert.equal(auto.status, 200);
      assert.deepEqual(ids(auto.body), ids(off.body));
      assert.deepEqual(auto.body.hits.map((h: Hit) => h.score), off.body.hits.map((h: Hit) => h.score));
      assert.equal(auto.body.candidate_ranking.method, 'rrf');
      assert.equal(auto.body.candidate_ranking.l2, null);
      const ranking = auto.body.retrieval_traces.find((x: { branch: string }) => x.branch === 'ranking');
      assert.match(ranking.l2, /^skipped/);
      assert.equal(ranking.l2_skipped.length, 1);
      assert.equal(ranking.l2_skipped[0].trained_for.mode, 'hybrid');
      assert.match(ranking.l2_skipped[0].reason, /trained for mode hybrid; this request's mode is fulltext/);
      assert.ok(ranking.notes.some((n: string) => /l2_rerank auto: skipped/.test(n)));
      // asked for by name in the wrong mode: refused, saying why
      const named = await served.search({ ...q, mode: 'fulltext', l2_rerank: 'catboost' });
      assert.equal(named.status, 422);
      assert.match(named.body.detail.message, /trained for mode hybrid; this request's mode is fulltext/);
    } finally {
      await served.app.dispose();
    }
    // a file that records hybrid cannot be served for another mode: refused at start, naming the fix
    await assert.rejects(setup({ ranking: { l2Models: `documents:fulltext=${join(dir, 'hybrid.json')}` } as ConfigInput['ranking'] }), /trained for mode hybrid .*serves it for mode fulltext/);
    rmSync(dir, { recursive: true, force: true });
  });

  test('per-mode models: a file without a recorded mode is hybrid unless its entry names one; each runs only in its mode', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ranking-lane-'));
    writeFileSync(join(dir, 'review.json'), reviewModel());
    const s = await setup({ ranking: { l2Models: `documents:fulltext=${join(dir, 'review.json')}` } as ConfigInput['ranking'] });
    try {
      const q = { query: 'hydrogen storage', limit: 15 };
      const ft = await s.search({ ...q, mode: 'fulltext' });
      assert.equal(ft.body.candidate_ranking.method, 'rrf+catboost');
      assert.equal(ids(ft.body)[0], 'h2', 'the review model runs in fulltext, the mode its entry names');
      const hy = await s.search({ ...q, tracing: true });
      const hyOff = await s.search({ ...q, l2_rerank: 'off' });
      assert.deepEqual(ids(hy.body), ids(hyOff.body), 'and leaves hybrid alone');
      assert.deepEqual(hy.body.hits.map((h: Hit) => h.score), hyOff.body.hits.map((h: Hit) => h.score));
      const ranking = hy.body.retrieval_traces.find((x: { branch: string }) => x.branch === 'ranking');
      assert.match(ranking.l2_skipped[0].reason, /trained for mode fulltext \(assumed: the file records no mode\); this request's mode is hybrid/);
    } finally {
      await s.app.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a profile formula runs only in ranking.formulaModes; an l1 formula may name a variable missing_values supplies', async () => {
    const s = await setup({ ranking: { formulaDocuments: '-age_days', formulaModes: 'hybrid' } as ConfigInput['ranking'] });
    try {
      const q = { query: 'hydrogen storage', limit: 15 };
      assert.equal((await s.search(q)).body.candidate_ranking.method, 'formula');
      const ft = await s.search({ ...q, mode: 'fulltext', tracing: true });
      assert.equal(ft.body.candidate_ranking.method, 'rrf');
      const ranking = ft.body.retrieval_traces.find((x: { branch: string }) => x.branch === 'ranking');
      assert.ok(ranking.notes.some((n: string) => /profile formula runs in mode hybrid .*this request's mode is fulltext/.test(n)), JSON.stringify(ranking.notes));
      const named = await s.search({ ...q, mode: 'fulltext', candidate_ranking: 'formula' });
      assert.equal(named.status, 422);
      assert.match(named.body.detail.message, /ranking.formulaModes/);
      // sparse does not run in fulltext mode: refused unless missing_values gives it a value
      const absent = await s.search({ ...q, mode: 'fulltext', l1: { formula: 'fulltext + sparse' } });
      assert.equal(absent.status, 422);
      assert.match(absent.body.detail.message, /missing_values/);
      const supplied = await s.search({ ...q, mode: 'fulltext', l1: { formula: 'fulltext + sparse', missing_values: { sparse: 1 } } });
      assert.equal(supplied.status, 200, JSON.stringify(supplied.body));
      const plain = await s.search({ ...q, mode: 'fulltext', l2_rerank: 'off', candidate_ranking: 'rrf' });
      assert.deepEqual(supplied.body.hits.map((h: Hit) => h.score), plain.body.hits.map((h: Hit) => h.score + 1));
      // a variable that is no feature, given by missing_values, is a constant
      const constant = await s.search({ ...q, mode: 'fulltext', l1: { formula: 'fulltext * boost', missing_values: { boost: 2 } } });
      assert.equal(constant.status, 200, JSON.stringify(constant.body));
      assert.deepEqual(constant.body.hits.map((h: Hit) => h.score), plain.body.hits.map((h: Hit) => h.score * 2));
      const unused = await s.search({ ...q, mode: 'fulltext', l1: { formula: 'fulltext', missing_values: { boost: 2 } } });
      assert.equal(unused.status, 422);
      assert.match(unused.body.detail.message, /unknown feature boost \(neither a feature nor a variable of l1.formula\)/);
    } finally {
      await s.app.dispose();
    }
  });
});

describe('benchmark pool options', () => {
  // what they do: test/api/ranking-pools.test.ts
  test('binary_pool and document_discovery true are refused where they cannot apply, with the reason; false passes', async () => {
    const s = await setup();
    try {
      const a = await s.search({ query: 'hydrogen', binary_pool: true });
      assert.equal(a.status, 422);
      assert.equal(a.body.detail.missing, 'binary_pool');
      assert.match(a.body.detail.message, /dense model's binary codes/, 'no corpus models: no binary codes');
      const b = await s.search({ query: 'hydrogen', document_discovery: true });
      assert.equal(b.body.detail.missing, 'document_discovery');
      assert.match(b.body.detail.message, /no reranking stage/, 'no formula, L2 model or cross-encoder configured');
      assert.equal((await s.search({ query: 'hydrogen', document_discovery: false, binary_pool: false })).status, 200);
    } finally {
      await s.app.dispose();
    }
  });
});
