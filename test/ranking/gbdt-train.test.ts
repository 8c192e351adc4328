// Lectern's GBDT trainer (src/ranking/gbdt-train.ts): it learns what the synthetic data hides, and the
// CatBoost JSON it exports evaluates (src/ranking/catboost.ts) to exactly the trainer's own predictions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCatBoostJson } from '../../src/ranking/catboost.js';
import { meanNdcg, quantize, toCatBoostJson, trainGbdt, type GbdtData } from '../../src/ranking/gbdt-train.js';
import { mulberry32 } from '../helpers/random.js';

const rng = mulberry32;

/** Regression rows: y = 3 [x0 > 0.5] + 2 x1, x2 is noise. */
function regression(n: number, seed: number): GbdtData {
  const r = rng(seed);
  const rows = new Float64Array(n * 3);
  const labels = new Float64Array(n);
  for (let i = 0; i < n; i += 1) {
    const x0 = r();
    const x1 = r();
    rows.set([x0, x1, r()], i * 3);
    labels[i] = 3 * (x0 > 0.5 ? 1 : 0) + 2 * x1;
  }
  return { rows, labels };
}

/** Ranking groups: relevance 0..3 follows feature 0 (plus a little noise); feature 1 is noise, feature 2 is sometimes NaN. */
function ranking(queries: number, perQuery: number, seed: number): GbdtData {
  const r = rng(seed);
  const n = queries * perQuery;
  const rows = new Float64Array(n * 3);
  const labels = new Float64Array(n);
  const groups = new Int32Array(queries + 1);
  for (let q = 0; q < queries; q += 1) {
    groups[q + 1] = (q + 1) * perQuery;
    for (let k = 0; k < perQuery; k += 1) {
      const i = q * perQuery + k;
      const signal = r();
      rows.set([signal + 0.05 * r(), r(), r() < 0.3 ? Number.NaN : r()], i * 3);
      labels[i] = signal > 0.95 ? 3 : signal > 0.85 ? 2 : signal > 0.7 ? 1 : 0;
    }
  }
  return { rows, labels, groups };
}

function rowsOf(d: GbdtData, f: number): Float64Array[] {
  return Array.from({ length: d.labels.length }, (_, i) => d.rows.subarray(i * f, (i + 1) * f));
}

test('RMSE: the trainer fits the hidden function and its JSON export predicts exactly the same numbers', () => {
  const train = regression(600, 1);
  const model = trainGbdt(train, { features: ['step', 'linear', 'noise'], loss: 'RMSE', iterations: 150, depth: 4, learningRate: 0.2 });
  const mse = (pred: ArrayLike<number>, y: Float64Array): number => y.reduce((s, v, i) => s + (pred[i]! - v) ** 2, 0) / y.length;
  const mean = train.labels.reduce((s, v) => s + v, 0) / train.labels.length;
  const variance = train.labels.reduce((s, v) => s + (v - mean) ** 2, 0) / train.labels.length;
  assert.ok(mse(model.trainPredictions, train.labels) < 0.02 * variance, `train MSE ${mse(model.trainPredictions, train.labels)} vs variance ${variance}`);

  const text = JSON.stringify(toCatBoostJson(model));
  const loaded = loadCatBoostJson(text);
  assert.equal(loaded.treeCount, 150);
  assert.deepEqual(loaded.featureNames, ['step', 'linear', 'noise']);
  assert.equal(loaded.lossFunction, 'RMSE');
  const rows = rowsOf(train, 3);
  for (let i = 0; i < rows.length; i += 1) assert.equal(loaded.predict(rows[i]!), model.trainPredictions[i], `row ${i}`);

  // It generalizes: fresh rows from the same function.
  const test_ = regression(300, 2);
  const pred = loaded.predictBatch(rowsOf(test_, 3));
  assert.ok(mse(pred, test_.labels) < 0.05 * variance, `test MSE ${mse(pred, test_.labels)}`);
  // The step feature at 0.5 is among the exported borders.
  const step = (JSON.parse(text) as { features_info: { float_features: { borders: number[] }[] } }).features_info.float_features[0]!;
  assert.ok(step.borders.some((b) => Math.abs(b - 0.5) < 0.01), `borders ${step.borders.join(',')}`);
});

test('LambdaMart: the ranking follows the signal feature, ignores noise, handles NaN, and round-trips exactly', () => {
  const train = ranking(60, 30, 3);
  const valid = ranking(30, 30, 4);
  const model = trainGbdt(train, { features: ['signal', 'noise', 'gappy'], loss: 'LambdaMart', iterations: 60, depth: 3, learningRate: 0.3, validation: valid, earlyStoppingRounds: 100 });
  assert.equal(model.validationHistory.length, model.grownTrees);
  const loaded = loadCatBoostJson(JSON.stringify(toCatBoostJson(model)));
  assert.equal(loaded.lossFunction, 'LambdaMart');
  const trainRows = rowsOf(train, 3);
  for (let i = 0; i < trainRows.length; i += 1) assert.equal(loaded.predict(trainRows[i]!), model.trainPredictions[i]);

  const scores = loaded.predictBatch(rowsOf(valid, 3));
  const ndcg = meanNdcg(scores, valid.labels, valid.groups!, 10)!;
  const noiseOnly = meanNdcg(Array.from({ length: valid.labels.length }, (_, i) => valid.rows[i * 3 + 1]!), valid.labels, valid.groups!, 10)!;
  assert.ok(ndcg > 0.9, `validation nDCG@10 ${ndcg}`);
  assert.ok(ndcg > noiseOnly + 0.3, `model ${ndcg} vs noise ${noiseOnly}`);
  // The best validation iteration is the one kept.
  const bestAt = model.validationHistory.indexOf(Math.max(...model.validationHistory));
  assert.equal(model.trees.length, bestAt + 1);
  // Most splits use the signal.
  const splits = model.trees.flatMap((t) => t.splits);
  assert.ok(splits.filter((s) => s.feature === 0).length > splits.length / 2);
});

test('early stopping keeps the best iteration and stops growing after the patience runs out', () => {
  const train = regression(200, 5);
  const valid = regression(100, 6);
  const model = trainGbdt(train, { features: ['a', 'b', 'c'], loss: 'RMSE', iterations: 2000, depth: 6, learningRate: 0.5, validation: valid, earlyStoppingRounds: 10 });
  assert.ok(model.grownTrees < 2000, `grew ${model.grownTrees}`);
  const best = Math.min(...model.validationHistory);
  assert.equal(model.validationHistory[model.trees.length - 1], best);
  assert.equal(model.grownTrees - model.trees.length, 10);
});

test('a compact export keeps only the features the trees split on and predicts the same on them', () => {
  const train = regression(300, 9);
  // depth 1 and few trees: the noise feature is never used
  const model = trainGbdt(train, { features: ['step', 'linear', 'noise'], loss: 'RMSE', iterations: 3, depth: 1, learningRate: 0.5 });
  const used = new Set(model.trees.flatMap((t) => t.splits.map((s) => s.feature)));
  const compact = loadCatBoostJson(toCatBoostJson(model, { compact: true }));
  const full = loadCatBoostJson(toCatBoostJson(model));
  assert.deepEqual(compact.featureNames, ['step', 'linear', 'noise'].filter((_, j) => used.has(j)));
  assert.ok(compact.featureCount < 3);
  const rows = rowsOf(train, 3);
  for (const r of rows.slice(0, 50)) assert.equal(compact.predict([...r].filter((_, j) => used.has(j))), full.predict(r));
});

test('smoothing picks the best of the centred moving average of the validation curve', () => {
  const train = regression(200, 5);
  const valid = regression(100, 6);
  const model = trainGbdt(train, { features: ['a', 'b', 'c'], loss: 'RMSE', iterations: 300, depth: 4, learningRate: 0.5, validation: valid, earlyStoppingRounds: 30, smoothing: 5 });
  const h = model.validationHistory;
  const centred = h.map((_, t) => {
    const a = Math.max(0, t - 2);
    const b = Math.min(h.length - 1, t + 2);
    return h.slice(a, b + 1).reduce((s, v) => s + v, 0) / (b - a + 1);
  });
  assert.equal(model.trees.length, centred.indexOf(Math.min(...centred)) + 1);
  assert.throws(() => trainGbdt(train, { features: ['a', 'b', 'c'], loss: 'RMSE', smoothing: 4 }), /smoothing must be odd/);
});

test('training is deterministic: the same data and options give the same bytes', () => {
  const train = ranking(10, 20, 7);
  const a = JSON.stringify(toCatBoostJson(trainGbdt(train, { features: ['x', 'y', 'z'], loss: 'LambdaMart', iterations: 20 })));
  const b = JSON.stringify(toCatBoostJson(trainGbdt(train, { features: ['x', 'y', 'z'], loss: 'LambdaMart', iterations: 20 })));
  assert.equal(a, b);
});

test('quantize: float32 borders between distinct values, at most borderCount of them', () => {
  assert.deepEqual([...quantize(new Float64Array([1, 2, 2, 3, Number.NaN]), 10)], [1.5, 2.5]);
  assert.deepEqual([...quantize(new Float64Array([5, 5, 5]), 10)], []);
  const many = quantize(Float64Array.from({ length: 1000 }, (_, i) => i / 7), 16);
  assert.ok(many.length <= 16 && many.length >= 12, `${many.length} borders`);
  for (const b of many) assert.equal(Math.fround(b), b);
  for (let i = 1; i < many.length; i += 1) assert.ok(many[i]! > many[i - 1]!);
  // Adjacent float32 values: the border is the lower one, and still separates them.
  const lo = Math.fround(1);
  const hi = 1 + 2 ** -23;
  const b = quantize(new Float64Array([lo, hi]), 4);
  assert.equal(b.length, 1);
  assert.ok(Math.fround(hi) > b[0]! && !(Math.fround(lo) > b[0]!));
});

test('meanNdcg matches a hand computation and skips groups without a relevant row', () => {
  // Group 0: labels [0, 1] scored [2, 1] -> dcg = 1/log2(3), idcg = 1 -> 0.6309...; group 1 has no relevant row.
  const v = meanNdcg([2, 1, 5, 4], [0, 1, 0, 0], new Int32Array([0, 2, 4]), 10)!;
  assert.ok(Math.abs(v - 1 / Math.log2(3)) < 1e-12);
  assert.equal(meanNdcg([1], [0], new Int32Array([0, 1]), 10), null);
});

test('bad options and data shapes are RangeErrors naming the problem', () => {
  const d = regression(10, 8);
  assert.throws(() => trainGbdt(d, { features: ['a', 'b'], loss: 'RMSE' }), /rows hold 30 values, expected 10 rows x 2 features/);
  assert.throws(() => trainGbdt(d, { features: ['a', 'b', 'c'], loss: 'LambdaMart' }), /LambdaMart needs query groups/);
  assert.throws(() => trainGbdt(d, { features: ['a', 'b', 'c'], loss: 'RMSE', depth: 11 }), /depth must be an integer 1..10/);
  assert.throws(() => trainGbdt(d, { features: ['a', 'b', 'c'], loss: 'RMSE', learningRate: 0 }), /learningRate/);
  assert.throws(() => trainGbdt({ ...d, groups: new Int32Array([0, 5]) }, { features: ['a', 'b', 'c'], loss: 'RMSE' }), /groups must start at 0 and end at 10/);
  const bad = { rows: d.rows, labels: Float64Array.from(d.labels, (v, i) => (i === 3 ? Number.NaN : v)) };
  assert.throws(() => trainGbdt(bad, { features: ['a', 'b', 'c'], loss: 'RMSE' }), /label of row 3/);
});
