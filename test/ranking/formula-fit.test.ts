// Fitting an L1 formula from judgments (src/ranking/formula-fit.ts): the text compiles in the formula
// language and computes the fitted weights; on pools whose organic order is noisy while bm25_title
// carries the relevance, the cross-validated formula beats the organic order on held-out queries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BRANCHES, FEATURE_NAMES, featureSlot } from '../../src/ranking/features.js';
import { fitFormula, formulaText, trainFormula } from '../../src/ranking/formula-fit.js';
import { checkedFormula } from '../../src/ranking/pipeline.js';
import type { CandidateSource, JudgedQuery, PoolCandidate } from '../../src/ranking/train-ranker.js';
import { mulberry32 } from '../helpers/random.js';

const rng = mulberry32;

test('formulaText writes weights the formula language reads back', () => {
  const text = formulaText({ rrf: 1, bm25_title: 0.0021234, cited_by: -0.5, proximity: 0 });
  assert.equal(text, 'rrf + 0.002123 * bm25_title - 0.5 * cited_by');
  const compiled = checkedFormula(text, new Set(BRANCHES));
  const row = new Float64Array(FEATURE_NAMES.length);
  row[featureSlot('rrf')] = 0.03;
  row[featureSlot('bm25_title')] = 10;
  row[featureSlot('cited_by')] = 2;
  assert.ok(Math.abs(compiled.fn(row) - (0.03 + 0.002123 * 10 - 0.5 * 2)) < 1e-12);
  assert.equal(formulaText({ rrf: -2e-7 }), '-2e-7 * rrf');
  checkedFormula(formulaText({ rrf: -2e-7 }), new Set(BRANCHES));
  assert.equal(formulaText({}), '0');
});

/** 40 queries x 30 candidates, v1 feature names: rrf is the noisy organic score, bm25_title the signal. */
function world(): { source: CandidateSource; judged: JudgedQuery[] } {
  const r = rng(5);
  const pools = new Map<string, PoolCandidate[]>();
  const judged: JudgedQuery[] = [];
  const names = ['rrf', 'bm25_title', 'cited_by', 'passage_score'];
  for (let q = 0; q < 40; q += 1) {
    const text = `query ${q}`;
    const rels = new Map<string, number>([[`q${q}d0`, 3], [`q${q}d1`, 2], [`q${q}d2`, 1]]);
    judged.push({ id: `Q${q}`, text, index: 'documents', rels });
    const cands = Array.from({ length: 30 }, (_, k) => {
      const grade = rels.get(`q${q}d${k}`) ?? 0;
      const rrf = 0.01 + (grade * 0.002 + r() * 0.02);
      return { id: `q${q}d${k}`, rrf, row: [rrf, grade * 5 + r() * 6, r() < 0.5 ? Number.NaN : Math.floor(r() * 10), r() * 20] };
    });
    cands.sort((a, b) => b.rrf - a.rrf);
    pools.set(text, cands.map((c) => ({ id: c.id, row: c.row })));
  }
  return { source: { featureVersion: 'test', featureNames: names, pool: async (t, _i, depth) => (pools.get(t) ?? []).slice(0, depth) }, judged };
}

test('the cross-validated formula beats the organic order; passage features are never used', async () => {
  const { source, judged } = world();
  const report = await trainFormula(source, judged, { folds: 4 });
  const cv = report.crossValidation!;
  assert.equal(cv.folds.length, 4);
  assert.ok(cv.ndcg10Formula > cv.ndcg10Organic + 0.15, `formula ${cv.ndcg10Formula} vs organic ${cv.ndcg10Organic}`);
  assert.ok(report.weights.bm25_title! > 0, report.formula);
  assert.equal(report.weights.passage_score, undefined);
  checkedFormula(report.formula, new Set(BRANCHES));
});

test('fitFormula refuses data it cannot fit', () => {
  assert.throws(() => fitFormula({ rows: new Float64Array(2), labels: new Float64Array(2) }, { features: ['rrf'] }), /query groups/);
  assert.throws(() => fitFormula({ rows: new Float64Array([1, 1]), labels: new Float64Array(2), groups: new Int32Array([0, 2]) }, { features: ['rrf'] }), /start feature rrf/);
});
