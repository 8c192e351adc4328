// Fitting an L2 model from judgments (src/ranking/train-ranker.ts) over a fake candidate source whose
// organic order is noisy while one feature carries the relevance: cross-validation must show the model
// reordering the pools for the better, and the exported model must score with the server's evaluator.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCatBoostJson } from '../../src/ranking/catboost.js';
import { ndcg10, trainRanker, type CandidateSource, type JudgedQuery, type PoolCandidate } from '../../src/ranking/train-ranker.js';
import { mulberry32 } from '../helpers/random.js';

const rng = mulberry32;

/** 40 queries x 30 documents; documents d0..d2 of each query are relevant (grades 3, 2, 1). */
function world(): { source: CandidateSource & { calls: string[] }; judged: JudgedQuery[] } {
  const r = rng(11);
  const pools = new Map<string, PoolCandidate[]>();
  const judged: JudgedQuery[] = [];
  for (let q = 0; q < 40; q += 1) {
    const text = `query ${q}`;
    const rels = new Map<string, number>([[`q${q}d0`, 3], [`q${q}d1`, 2], [`q${q}d2`, 1]]);
    // one judged relevant document the search never finds (it counts in the ideal DCG)
    if (q % 4 === 0) rels.set(`q${q}missing`, 1);
    judged.push({ id: `Q${q}`, text, index: 'documents', rels });
    const cands = Array.from({ length: 30 }, (_, k) => {
      const grade = rels.get(`q${q}d${k}`) ?? 0;
      // organic score: weakly related to the grade; signal: strongly; noise: not at all; NaN sometimes
      const organic = grade * 0.3 + r() * 2;
      const signal = grade + r() * 0.8;
      return { id: `q${q}d${k}`, organic, row: [signal, r(), r() < 0.2 ? Number.NaN : r()] };
    });
    cands.sort((a, b) => b.organic - a.organic);
    pools.set(text, cands.map((c) => ({ id: c.id, row: c.row })));
  }
  // a judged query without any relevant grade is skipped
  judged.push({ id: 'Qnone', text: 'query none', index: 'documents', rels: new Map([['x', 0]]) });
  const calls: string[] = [];
  const source = {
    calls,
    featureVersion: 'test-features-v1',
    featureNames: ['signal', 'noise', 'gappy'],
    async pool(query: string, _index: string, depth: number): Promise<PoolCandidate[]> {
      calls.push(query);
      return (pools.get(query) ?? []).slice(0, depth);
    },
  };
  return { source, judged };
}

test('cross-validation shows the model beating the organic order on held-out queries; the final model exports and loads', async () => {
  const { source, judged } = world();
  const phases = new Set<string>();
  const { report, modelJson, model } = await trainRanker(source, judged, { folds: 4, iterations: 60, depth: 3, learningRate: 0.2, judgmentsLabel: 'synthetic' }, (p) => phases.add(p.phase));
  assert.deepEqual([...phases], ['pools', 'cross-validation', 'final']);
  assert.equal(source.calls.length, 40, 'the query without relevant grades is not searched');
  assert.deepEqual(report.queries, { judged: 41, used: 40, withoutRelevantCandidate: 0, withoutJudgedRelevant: 1 });
  assert.equal(report.rows, 40 * 30);
  assert.equal(report.relevantJudged, 40 * 3 + 10);
  assert.equal(report.relevantInPool, 40 * 3);
  const cv = report.crossValidation!;
  assert.equal(cv.folds.length, 4);
  assert.equal(cv.folds.reduce((s, f) => s + f.testQueries, 0), 40);
  assert.ok(cv.ndcg10Model > cv.ndcg10Organic + 0.2, `model ${cv.ndcg10Model} vs organic ${cv.ndcg10Organic}`);
  assert.ok(cv.improved > cv.worsened);
  assert.equal(cv.improved + cv.worsened + cv.unchanged, 40);
  // The final model keeps the mean of the folds' best tree counts.
  const mean = Math.round(cv.folds.reduce((s, f) => s + f.trees, 0) / 4);
  assert.equal(report.finalTrees, mean);
  assert.equal(model.trees.length, mean);
  // the signal carries the relevance: it is the most used feature, and the counts add up to the splits
  assert.equal(Object.keys(report.featureSplits)[0], 'signal');
  assert.equal(Object.values(report.featureSplits).reduce((a, b) => a + b, 0), model.trees.reduce((a, t) => a + t.splits.length, 0));

  const loaded = loadCatBoostJson(JSON.stringify(modelJson));
  // The export keeps only the features the trees split on, named; the signal is one of them.
  const names = loaded.featureNames!;
  assert.ok(names.includes('signal'));
  assert.ok(names.every((n) => ['signal', 'noise', 'gappy'].includes(n)));
  const row = (v: Record<string, number>) => names.map((n) => v[n]!);
  assert.equal(loaded.info.lectern_target, 'teacher_score');
  assert.equal(loaded.info.lectern_feature_version, 'test-features-v1');
  assert.equal(loaded.info.lectern_judgments, 'synthetic');
  assert.equal(loaded.info.lectern_cv_ndcg10_model, cv.ndcg10Model.toFixed(4));
  // It ranks a clearly relevant row above a clearly irrelevant one.
  assert.ok(loaded.predict(row({ signal: 3.2, noise: 0.5, gappy: 0.5 })) > loaded.predict(row({ signal: 0.1, noise: 0.5, gappy: 0.5 })));
});

test('ndcg10 uses every judged relevant document for the ideal ranking', () => {
  const rels = new Map([['a', 1], ['b', 1]]);
  assert.equal(ndcg10(['a', 'b'], rels), 1);
  // only 'a' found, at rank 1: dcg 1, idcg 1 + 1/log2(3)
  assert.ok(Math.abs(ndcg10(['a', 'x'], rels) - 1 / (1 + 1 / Math.log2(3))) < 1e-12);
  assert.equal(ndcg10(['x'], rels), 0);
});

test('judgments that cannot train anything are refused with what to fix', async () => {
  const { source } = world();
  await assert.rejects(trainRanker(source, []), /no judged queries/);
  const unknown: JudgedQuery[] = Array.from({ length: 6 }, (_, i) => ({ id: `u${i}`, text: `query ${i}`, index: 'documents', rels: new Map([[`nowhere${i}`, 2]]) }));
  await assert.rejects(trainRanker(source, unknown, { folds: 3 }), /only 0 judged queries have a relevant document among their top 100 candidates/);
  await assert.rejects(trainRanker(source, [{ id: 'a', text: 'query 1', index: 'documents', rels: new Map([['q1d0', 1]]) }, { id: 'b', text: 'query 2', index: 'social', rels: new Map([['q2d0', 1]]) }]), /several indexes/);
  await assert.rejects(trainRanker(source, unknown, { poolDepth: 501 }), /pool depth must be an integer 1 to 500/);
});

test('without cross-validation the tree count is still chosen on held-out queries', async () => {
  const { source, judged } = world();
  const { report, model } = await trainRanker(source, judged, { folds: 1, iterations: 400, depth: 3, learningRate: 0.5, earlyStoppingRounds: 5 });
  assert.equal(report.crossValidation, null);
  assert.ok(report.finalTrees < 400, `kept ${report.finalTrees} trees`);
  assert.equal(model.trees.length, report.finalTrees);
});
