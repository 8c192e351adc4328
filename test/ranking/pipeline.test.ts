// The ranking pipeline's plan and stages (src/ranking/pipeline.ts) over hand-made candidates and fake
// feature sources: which groups are computed for whom, backfill probing only the missing cells,
// missing values, L2 binding, refusals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../src/domain/errors.js';
import type { StoredDocument } from '../../src/domain/document.js';
import type { EngineHit } from '../../src/engine/index.js';
import { candidateScores, getFeature, newCandidate, setFeature, type Candidate } from '../../src/ranking/features.js';
import { bindL2Model, laneMismatch, splitFeatures, trainedFor } from '../../src/ranking/l2.js';
import { computeFeatures, NO_RANKING, planRanking, runRanking, type RankingSettings } from '../../src/ranking/pipeline.js';
import { parseModelList } from '../../src/ranking/settings.js';
import type { FeatureSources } from '../../src/ranking/sources.js';
import { sentenceWindows } from '../../src/ranking/evidence.js';
import { defaultSearchRequest } from '../../src/search/search-types.js';

const hit = (id: string, passages: number[] = []): EngineHit => ({
  id,
  score: 1,
  workKey: null,
  passages: passages.map((score, i) => ({ chunkId: i * 2, field: 'abstract', startChar: i * 10, endChar: i * 10 + 10, fieldLength: 100, score })),
});

function candidates(): Candidate[] {
  const a = newCandidate('a', 'documents', hit('a', [3, 1]), 0, 0.03, 0.03);
  const b = newCandidate('b', 'documents', hit('b', [2]), 1, 0.02, 0.02);
  const c = newCandidate('c', 'documents', hit('c'), 2, 0.01, 0.01);
  setFeature(a, 'fulltext', 5);
  setFeature(a, 'fulltext_rank', 1);
  setFeature(b, 'fulltext', 0);
  setFeature(b, 'fulltext_rank', 2);
  // c came from another channel only: its fulltext cell is missing
  setFeature(a, 'short_document', 0.5);
  setFeature(c, 'short_document', 0.9);
  return [a, b, c];
}

function fakeSources(log: string[]): FeatureSources {
  return {
    lexicalParts(_index, ids) {
      log.push(`lexical ${ids.join(',')}`);
      return new Map(ids.map((id, i) => [id, { fields: [i + 1, 0, 0] as [number, number, number], plain: i + 1, phrase: 0, proximity: 0 }]));
    },
    branch(_index, branch, ids) {
      log.push(`branch ${branch} ${ids.join(',')}`);
      return new Map(ids.map((id) => [id, 4]));
    },
    queryShape: () => ({ phrases: false, words: 1, empty: false }),
    async documents(ids) {
      log.push(`documents ${ids.join(',')}`);
      return new Map(ids.map((id) => [id, { id, title: `T ${id}`, abstract: 'x', fullText: null, issuedAt: 0, type: id === 'a' ? 'review' : null, uris: [] } as unknown as StoredDocument]));
    },
    citedBy: (_index, docs) => docs.map(() => 3),
    engagement: null,
    now: 86_400 * 10,
  };
}

const ctx = { indexNames: ['documents' as const], mode: 'hybrid', branches: new Set(['fulltext', 'short_document'] as const), profile: 'documents' as const };
const req = (o: Parameters<typeof defaultSearchRequest>[0] = {}) => defaultSearchRequest({ query: 'q', ...o });

test('backfill probes only the missing cells of the branches the formula reads', async () => {
  const log: string[] = [];
  const plan = planRanking(req({ l1Formula: 'fulltext + short_document', l1Backfill: true }), ctx, NO_RANKING);
  assert.deepEqual(plan.backfillBranches, ['fulltext', 'short_document']);
  const cands = candidates();
  const out = await runRanking(plan, cands, 'q', fakeSources(log), null);
  // fulltext: only c was missing; short_document: only b
  assert.deepEqual(log.filter((l) => l.startsWith('branch')), ['branch fulltext c', 'branch short_document b']);
  assert.equal(getFeature(cands[2]!, 'fulltext'), 4);
  assert.equal(getFeature(cands[1]!, 'fulltext'), 0, 'an observed zero is not probed again');
  assert.ok(Number.isNaN(getFeature(cands[2]!, 'fulltext_rank')), 'ranks are never backfilled');
  // a: 5 + 0.5, b: 0 + 4, c: 4 + 0.9
  assert.deepEqual(out.order.map((c) => [c.id, c.l1]), [['a', 5.5], ['c', 4.9], ['b', 4]]);
});

test('without backfill, missing cells take missing_values (else 0) and observed values win', async () => {
  const plan = planRanking(req({ l1Formula: 'fulltext * 10 + short_document', l1MissingValues: { fulltext: 1, short_document: -1 } }), ctx, NO_RANKING);
  const log: string[] = [];
  const out = await runRanking(plan, candidates(), 'q', fakeSources(log), null);
  assert.deepEqual(log, [], 'retrieval features only: no probe');
  // a: 50 + 0.5, b: 0 (observed) - 1 (missing), c: 10 (missing) + 0.9
  assert.deepEqual(out.order.map((c) => [c.id, c.l1]), [['a', 50.5], ['c', 10.9], ['b', -1]]);
  const zero = planRanking(req({ l1Formula: 'fulltext' }), ctx, NO_RANKING);
  const out2 = await runRanking(zero, candidates(), 'q', fakeSources([]), null);
  assert.equal(out2.order.find((c) => c.id === 'c')!.l1, 0);
});

test('passage features: each passage gets an l1 score; the document takes the best', async () => {
  const plan = planRanking(req({ l1Formula: 'passage_score * 2 - passage_rank' }), ctx, NO_RANKING);
  const out = await runRanking(plan, candidates(), 'q', fakeSources([]), null);
  const a = out.order.find((c) => c.id === 'a')!;
  assert.deepEqual(a.passages.map((p) => p.l1), [6, 1]);
  assert.equal(a.l1, 6);
  const scores = candidateScores(a);
  assert.deepEqual(scores.passages.map((p) => [p.ordinal, p.scores['passage_score'], p.l1Score]), [[0, 3, 6], [2, 1, 1]]);
  assert.equal(scores.scoredPassages, 2);
  // c has no passage: passage features are absent (0)
  assert.equal(out.order.find((c) => c.id === 'c')!.l1, 0);
});

test('only the groups a stage needs are computed, for the candidates that lack them', async () => {
  const log: string[] = [];
  const plan = planRanking(req({ l1Formula: 'bm25_title + cited_by + is_review' }), ctx, NO_RANKING);
  assert.deepEqual([...plan.poolGroups].sort(), ['citations', 'document', 'lexical']);
  const out = await runRanking(plan, candidates(), 'q', fakeSources(log), null);
  // one document read and one lexical pass (ADR 0139); only the lexical feature the formula reads is set
  assert.deepEqual(log, ['documents a,b,c', 'lexical a,b,c']);
  // a: title 1 + cited 3 + review 1; b: 2 + 3 + absent type (0); c: 3 + 3
  assert.deepEqual(out.order.map((c) => [c.id, c.l1]), [['c', 6], ['a', 5], ['b', 5]]);
  const a = out.order.find((c) => c.id === 'a')!;
  assert.equal(getFeature(a, 'age_days'), 10);
  assert.ok(Number.isNaN(getFeature(a, 'bm25_abstract')), 'not asked for: not computed');
  // asking for every group later probes only what is missing
  log.length = 0;
  await computeFeatures(out.order, new Set(['lexical']), fakeSources(log), { enabled: false, asOfAt: 0, computedAt: 0, observedDocuments: 0, requestedDocuments: 0, elapsedUs: 0 });
  assert.deepEqual(log, ['lexical c,a,b']);
  assert.ok(Number.isNaN(getFeature(a, 'bm25_body')), 'no full text: absent');
  assert.equal(getFeature(a, 'bm25_abstract'), 0, 'an abstract without a match: 0');
});

test('refusals: unknown features, absent branches, l1 with rrf, catboost without a model, reranker candidates without a model', () => {
  const refuses = (o: Parameters<typeof defaultSearchRequest>[0], code: string, re: RegExp, s: RankingSettings = NO_RANKING) =>
    assert.throws(() => planRanking(req(o), ctx, s), (e: unknown) => e instanceof AppError && e.code === code && re.test(e.message), JSON.stringify(o));
  refuses({ l1Formula: 'foo + bar' }, 'validation_failed', /unknown features foo, bar/);
  refuses({ l1Formula: 'sparse_rank' }, 'validation_failed', /sparse_rank refers to absent branch \(sparse\)/);
  refuses({ l1Formula: 'rrf', candidateRanking: 'rrf' }, 'validation_failed', /no effect/);
  refuses({ candidateRanking: 'formula' }, 'feature_unavailable', /formulaDocuments/);
  refuses({ l2Rerank: 'catboost' }, 'feature_unavailable', /none for documents \(no model configured\)/);
  refuses({ crossRerankCandidates: 4 }, 'feature_unavailable', /no cross-encoder/);
  refuses({ l1Formula: 'rrf', l1MissingValues: { rrf: Infinity } }, 'validation_failed', /finite/);
  // a configured profile formula with an absent branch: auto falls back to rrf and says so; formula refuses
  const s = { ...NO_RANKING, formulas: { documents: 'sparse', passages: null } };
  const auto = planRanking(req(), ctx, s);
  assert.equal(auto.method, 'rrf');
  assert.match(auto.notes[0]!, /profile formula cannot run/);
  refuses({ candidateRanking: 'formula' }, 'validation_failed', /absent branch/, s);
});

test('plan: depth covers the page and the stages; cross candidates are capped; nothing active by default', () => {
  const none = planRanking(req(), ctx, NO_RANKING);
  assert.equal(none.active, false);
  assert.equal(none.method, 'rrf');
  assert.equal(planRanking(req({ l1Formula: 'rrf', offset: 150, limit: 100 }), ctx, NO_RANKING).depth, 250);
  assert.equal(planRanking(req({ l1Formula: 'rrf' }), ctx, { ...NO_RANKING, candidateDepth: 40 }).depth, 40);
  const fake = { info: { id: 'x', maxTokens: 8, source: 'fake' }, score: async () => new Float64Array(), close: async () => {} };
  const s = { ...NO_RANKING, crossEncoder: fake, crossCandidates: 16, crossMax: 64 };
  assert.equal(planRanking(req(), ctx, s).cross, 16);
  assert.equal(planRanking(req({ crossRerankCandidates: 200 }), ctx, s).cross, 64);
  assert.equal(planRanking(req({ crossRerank: false }), ctx, s).cross, 0);
  assert.equal(planRanking(req({ includeCandidateScores: true }), ctx, NO_RANKING).active, true);
});

test('L2 binding: models must name v1 features', () => {
  const model = (names: string[] | null) => ({ sha256: 'h', featureNames: names, featureCount: 2, predict: () => 0 });
  assert.throws(() => bindL2Model(model(null), 'm.json'), /does not name its features/);
  assert.throws(() => bindL2Model(model(['rrf', 'nope']), 'm.json'), /features this server does not compute: nope/);
  const m = bindL2Model(model(['rrf', 'passage_score']), 'm.json');
  assert.deepEqual([...m.groups].sort(), ['passage', 'retrieval']);
  // only the features the trees split on are computed
  const split = bindL2Model(model(['cited_by', 'bm25_title']), 'm.json', new Set([1]));
  assert.deepEqual(split.used, ['bm25_title']);
  assert.deepEqual([...split.groups], ['lexical']);
  assert.deepEqual(
    splitFeatures({
      features_info: { float_features: [{ feature_index: 0, flat_feature_index: 0 }, { feature_index: 1, flat_feature_index: 3 }] },
      oblivious_trees: [{ splits: [{ float_feature_index: 1 }] }, { splits: [{ float_feature_index: 1 }] }],
    }),
    new Set([3]),
  );
  const plan = planRanking(req({ l2Rerank: 'catboost' }), ctx, { ...NO_RANKING, l2Models: new Map([['documents', [split]]]) });
  assert.deepEqual([...plan.poolGroups], ['lexical']);
  assert.deepEqual([...plan.poolLexical!], ['bm25_title']);
});

test('settings: l2Models lists INDEX=PATH and INDEX:MODE=PATH entries', () => {
  assert.deepEqual(parseModelList(' documents=/a.json , social:fulltext=/b.json'), [
    { index: 'documents', mode: null, path: '/a.json' },
    { index: 'social', mode: 'fulltext', path: '/b.json' },
  ]);
  assert.deepEqual(parseModelList(''), []);
  assert.throws(() => parseModelList('books=/a.json'), /INDEX one of documents, social/);
  assert.throws(() => parseModelList('documents:dense=/a.json'), /names mode "dense"/);
});

test('lanes: a model runs only for its mode and channels; the reason otherwise', () => {
  const t = trainedFor({ lectern_mode: 'hybrid', lectern_channels: 'short_document,fulltext,sparse' }, 'm.json');
  assert.deepEqual(t, { mode: 'hybrid', channels: ['fulltext', 'short_document', 'sparse'], featureVersion: 'lectern-features-v1', poolDepth: null, recorded: true });
  assert.equal(laneMismatch(t, 'hybrid', new Set(['sparse', 'fulltext', 'short_document'])), null);
  assert.match(laneMismatch(t, 'fulltext', new Set(['fulltext']))!, /trained for mode hybrid; this request's mode is fulltext/);
  assert.match(laneMismatch(t, 'hybrid', new Set(['sparse', 'short_document']))!, /trained on the channels fulltext, short_document, sparse; this request runs short_document, sparse/);
  // an older file: hybrid assumed, channels unchecked; or the mode its configuration entry names
  const old = trainedFor({}, 'old.json');
  assert.deepEqual([old.mode, old.channels, old.recorded], ['hybrid', null, false]);
  assert.match(laneMismatch(old, 'sparse', new Set(['sparse']))!, /assumed: the file records no mode/);
  assert.equal(trainedFor({}, 'old.json', 'fulltext').mode, 'fulltext');
  assert.throws(() => trainedFor({ lectern_mode: 'hybrid' }, 'm.json', 'sparse'), /trained for mode hybrid .* serves it for mode sparse/);
  assert.throws(() => trainedFor({ lectern_feature_version: 'lectern-features-v0' }, 'm.json'), /feature set lectern-features-v0/);
  assert.throws(() => trainedFor({ lectern_channels: 'fulltext,colbert' }, 'm.json'), /channels this server does not have: colbert/);
});

test('evidence windows are sentences, verbatim, with code-point starts', () => {
  const text = 'Ünïcödé storage is a long first sentence here. Second one is about microbial life!  Third.';
  const w = sentenceWindows(text);
  assert.deepEqual(w.map((x) => x.text), ['Ünïcödé storage is a long first sentence here.', 'Second one is about microbial life!  Third.']);
  for (const x of w) assert.equal(Array.from(text).slice(x.start, x.start + Array.from(x.text).length).join(''), x.text);
});

test('settings are checked at start: formulas, model files and their feature names', async () => {
  const { rankingSettings } = await import('../../src/ranking/settings.js');
  const base = { candidateDepth: 100, formulaDocuments: '', formulaPassages: '', l2Models: '', l2Auto: true, crossRerankCandidates: 32, crossRerankMax: 100 };
  const io = (files: Record<string, string>) => ({
    readFile: (path: string) => {
      if (!(path in files)) throw new Error('ENOENT');
      return Buffer.from(files[path]!);
    },
    loadCrossEncoder: null,
  });
  await assert.rejects(rankingSettings({ ...base, formulaDocuments: 'bm25_titel' }, io({})), /ranking.formulaDocuments: .*unknown feature bm25_titel/);
  await assert.rejects(rankingSettings({ ...base, l2Models: 'documents=/m.json' }, io({})), /documents model \/m.json cannot be read/);
  const model = (name: string) =>
    JSON.stringify({
      features_info: { float_features: [{ feature_index: 0, flat_feature_index: 0, borders: [0.5], feature_id: name }] },
      oblivious_trees: [{ leaf_values: [0, 1], splits: [{ float_feature_index: 0, border: 0.5, split_type: 'FloatFeature' }] }],
      scale_and_bias: [1, [0]],
    });
  await assert.rejects(rankingSettings({ ...base, l2Models: 'documents=/m.json' }, io({ '/m.json': model('clicks') })), /does not compute: clicks/);
  await assert.rejects(rankingSettings({ ...base, crossEncoderDir: '/x' }, io({})), /cannot load ONNX models/);
  const ok = await rankingSettings({ ...base, formulaPassages: 'passage_score', l2Models: 'social=/m.json', crossRerankCandidates: 200 }, io({ '/m.json': model('is_review') }));
  assert.deepEqual([...ok.l2Models.keys()], ['social']);
  assert.deepEqual(ok.l2Models.get('social')!.map((m) => m.trainedFor.mode), ['hybrid']);
  await assert.rejects(rankingSettings({ ...base, l2Models: 'documents=/m.json,documents:hybrid=/m.json' }, io({ '/m.json': model('is_review') })), /two models for mode hybrid/);
  await assert.rejects(rankingSettings({ ...base, formulaModes: 'hybrid,dense' }, io({})), /dense is not a search mode/);
  assert.equal(ok.formulas.passages, 'passage_score');
  assert.equal(ok.formulas.documents, null);
  assert.equal(ok.crossCandidates, 100, 'the default is capped by the maximum');
});

test('feature reads are display records; the cross-encoder loads the full text only of reranked candidates quoting the body', async () => {
  const log: string[] = [];
  const body = 'Body text the pair quotes. More body.';
  const display = (id: string) => ({ id, title: `T ${id}`, abstract: 'x', hasFullText: true, issuedAt: 0, type: null, uris: [] });
  const src: FeatureSources = {
    ...fakeSources(log),
    async documents(ids, withText = []) {
      log.push(`documents ${ids.join(',')}${withText.length ? ` text ${withText.join(',')}` : ''}`);
      return new Map(ids.map((id) => [id, { ...display(id), ...(withText.includes(id) ? { fullText: body } : {}) } as never]));
    },
  };
  const inBody = (id: string): EngineHit => ({ id, score: 1, workKey: null, passages: [{ chunkId: 0, field: 'body', startChar: 0, endChar: 9, fieldLength: body.length, score: 1 }] });
  const cands = [newCandidate('a', 'documents', inBody('a'), 0, 1, 1), newCandidate('b', 'documents', hit('b', [1]), 1, 1, 1), newCandidate('c', 'documents', inBody('c'), 2, 1, 1)];
  const texts: string[] = [];
  const encoder = { info: { id: 'e', maxTokens: 512, source: 'test' }, score: async (_q: string, t: readonly string[]) => (texts.push(...t), Float64Array.from(t.map((_, i) => i))), close: async () => {} };
  const plan = planRanking(req({ crossRerankCandidates: 2 }), ctx, { ...NO_RANKING, crossEncoder: encoder });
  const out = await runRanking(plan, cands, 'q', src, encoder);
  // features: display records of all three; text: only a (reranked, body passage); c is beyond the top 2
  assert.deepEqual(log, ['documents a,b,c', 'documents a text a']);
  assert.equal(getFeature(cands[0]!, 'has_full_text'), 1);
  assert.equal(texts[0], 'T a\nBody text');
  assert.equal(texts[1], 'T b\nx');
  assert.deepEqual(out.order.map((c) => c.id), ['b', 'a', 'c']);
});
