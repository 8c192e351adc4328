// The CatBoost JSON evaluator (src/ranking/catboost.ts) on small models written here, predictions
// worked out by hand in the comments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { GbdtModelError, loadCatBoostJson } from '../../src/ranking/catboost.js';

/** Two float features, two trees, as `save_model(format='json')` writes them. */
function twoTreeModel(): Record<string, unknown> {
  return {
    model_info: { params: { loss_function: { type: 'RMSE' } }, catboost_version_info: 'test' },
    features_info: {
      float_features: [
        { feature_index: 0, flat_feature_index: 0, borders: [0.5, 1.5], has_nans: true, nan_value_treatment: 'AsTrue', feature_id: 'bm25' },
        { feature_index: 1, flat_feature_index: 1, borders: [10], has_nans: false, nan_value_treatment: 'AsIs', feature_id: 'rrf' },
      ],
    },
    oblivious_trees: [
      {
        // index = [f0 > 0.5] | [f1 > 10] << 1
        leaf_values: [1, 2, 3, 4],
        leaf_weights: [1, 1, 1, 1],
        splits: [
          { border: 0.5, float_feature_index: 0, split_index: 0, split_type: 'FloatFeature' },
          { border: 10, float_feature_index: 1, split_index: 2, split_type: 'FloatFeature' },
        ],
      },
      {
        // index = [f0 > 1.5]
        leaf_values: [0, 0.5],
        leaf_weights: [1, 1],
        splits: [{ border: 1.5, float_feature_index: 0, split_index: 1, split_type: 'FloatFeature' }],
      },
    ],
    scale_and_bias: [2, [0.25]],
  };
}

test('predictions of a two-tree model match the hand computation', () => {
  const m = loadCatBoostJson(twoTreeModel());
  assert.equal(m.treeCount, 2);
  assert.equal(m.maxDepth, 2);
  assert.equal(m.featureCount, 2);
  assert.deepEqual(m.featureNames, ['bm25', 'rrf']);
  assert.equal(m.lossFunction, 'RMSE');
  assert.equal(m.info.catboost_version_info, 'test');
  // [1, 20]: tree 0 leaf 3 (4), tree 1 leaf 0 (0): 2 * 4 + 0.25
  assert.equal(m.predict([1, 20]), 8.25);
  // [0, 0]: leaf 0 (1) + leaf 0 (0): 2 * 1 + 0.25
  assert.equal(m.predict([0, 0]), 2.25);
  // [2, 5]: leaf 1 (2) + leaf 1 (0.5): 2 * 2.5 + 0.25
  assert.equal(m.predict(new Float64Array([2, 5])), 5.25);
  // On the border the split does not hold (value > border): [0.5, 10] -> leaf 0 + leaf 0
  assert.equal(m.predict([0.5, 10]), 2.25);
  // Extra trailing values are ignored.
  assert.equal(m.predict([0, 11, 99]), 2 * 3 + 0.25);
  const out = m.predictBatch([[1, 20], [0, 0], [2, 5]]);
  assert.deepEqual([...out], [8.25, 2.25, 5.25]);
});

test('NaN follows nan_value_treatment: AsTrue takes every split, AsIs none', () => {
  const m = loadCatBoostJson(twoTreeModel());
  // f0 NaN (AsTrue): f0 > 0.5 and f0 > 1.5 hold; f1 = 0: tree 0 leaf 1 (2), tree 1 leaf 1 (0.5)
  assert.equal(m.predict([Number.NaN, 0]), 2 * 2.5 + 0.25);
  // f1 NaN (AsIs): f1 > 10 fails; f0 = 1: tree 0 leaf 1 (2), tree 1 leaf 0 (0)
  assert.equal(m.predict([1, Number.NaN]), 2 * 2 + 0.25);
});

test('values and borders compare as float32, like CatBoost', () => {
  const border = Math.fround(0.1);
  const model = {
    features_info: { float_features: [{ feature_index: 0, flat_feature_index: 0, borders: [border] }] },
    oblivious_trees: [{ leaf_values: [0, 1], splits: [{ border, float_feature_index: 0, split_type: 'FloatFeature' }] }],
    scale_and_bias: [1, [0]],
  };
  const m = loadCatBoostJson(model);
  // Greater than the border as a double, but the same float32: the split does not hold.
  assert.ok(border + 1e-12 > border);
  assert.equal(m.predict([border + 1e-12]), 0);
  assert.equal(m.predict([0.2]), 1);
});

test('older scale_and_bias [scale, bias], depth-0 trees and an absent scale_and_bias', () => {
  const a = loadCatBoostJson({ ...twoTreeModel(), scale_and_bias: [0.5, 1] });
  // [1, 20]: 0.5 * 4 + 1
  assert.equal(a.predict([1, 20]), 3);
  const b = loadCatBoostJson({ oblivious_trees: [{ leaf_values: [1.5], splits: [] }, { leaf_values: [-0.25] }] });
  assert.equal(b.featureCount, 0);
  assert.equal(b.predict([]), 1.25);
  assert.equal(b.featureNames, null);
});

test('a model without features_info takes float_feature_index as the row index', () => {
  const m = loadCatBoostJson({
    oblivious_trees: [{ leaf_values: [0, 1, 10, 11], splits: [{ border: 0, float_feature_index: 2 }, { border: 0, float_feature_index: 0 }] }],
  });
  assert.equal(m.featureCount, 3);
  // [x0, _, x2]: index = [x2 > 0] | [x0 > 0] << 1
  assert.equal(m.predict([1, 0, -1]), 10);
  assert.equal(m.predict([-1, 0, 1]), 1);
  assert.equal(m.predict([1, 0, 1]), 11);
});

test('flat_feature_index maps float features into the row', () => {
  const m = loadCatBoostJson({
    features_info: { float_features: [{ feature_index: 0, flat_feature_index: 3, borders: [0], feature_id: 'late' }] },
    oblivious_trees: [{ leaf_values: [0, 7], splits: [{ border: 0, float_feature_index: 0 }] }],
  });
  assert.equal(m.featureCount, 4);
  assert.deepEqual(m.featureNames, ['', '', '', 'late']);
  assert.equal(m.predict([5, 5, 5, -1]), 0);
  assert.equal(m.predict([0, 0, 0, 1]), 7);
});

test('sha256 is the hash of the file bytes when given text or bytes', () => {
  const text = JSON.stringify(twoTreeModel(), null, 2);
  const expected = createHash('sha256').update(text).digest('hex');
  assert.equal(loadCatBoostJson(text).sha256, expected);
  assert.equal(loadCatBoostJson(Buffer.from(text)).sha256, expected);
  assert.equal(loadCatBoostJson(text).predict([1, 20]), 8.25);
  const fromObject = loadCatBoostJson(twoTreeModel());
  assert.equal(fromObject.sha256, createHash('sha256').update(JSON.stringify(twoTreeModel())).digest('hex'));
});

function refused(model: unknown, pattern: RegExp): void {
  assert.throws(() => loadCatBoostJson(model), (e: unknown) => e instanceof GbdtModelError && pattern.test(e.message));
}

test('unsupported or malformed exports are refused with a message naming the field', () => {
  refused('{not json', /not JSON/);
  refused([], /\(root\): expected an object/);
  refused({}, /oblivious_trees: missing/);
  refused({ trees: [] }, /non-symmetric trees/);
  refused({ oblivious_trees: {} }, /oblivious_trees: expected an array/);
  refused({ oblivious_trees: [{ leaf_values: [1, 2, 3], splits: [{ border: 0, float_feature_index: 0 }] }] }, /oblivious_trees\[0\]\.leaf_values: expected 2 values/);
  refused({ oblivious_trees: [{ leaf_values: [1, 2, 3, 4, 5, 6], splits: [{ border: 0, float_feature_index: 0 }] }] }, /3 output dimensions/);
  refused({ oblivious_trees: [{ leaf_values: [1, 'x'], splits: [{ border: 0, float_feature_index: 0 }] }] }, /leaf_values\[1\]: expected a finite number/);
  refused({ oblivious_trees: [{ leaf_values: [1, 2], splits: [{ border: 0, cat_feature_index: 0, split_type: 'OneHotFeature' }] }] }, /split_type: only FloatFeature/);
  refused({ oblivious_trees: [{ leaf_values: [1, 2], splits: [{ border: 'x', float_feature_index: 0 }] }] }, /splits\[0\]\.border/);
  refused({ features_info: { categorical_features: [{ feature_index: 0 }] }, oblivious_trees: [] }, /categorical_features: only float features/);
  refused({ ctr_data: { a: 1 }, oblivious_trees: [] }, /ctr_data/);
  refused({ ...twoTreeModel(), scale_and_bias: [1, [0, 0, 0]] }, /3 biases/);
  refused({ ...twoTreeModel(), scale_and_bias: ['1', [0]] }, /scale_and_bias\[0\]/);
  refused(
    { features_info: { float_features: [{ feature_index: 0, borders: [0] }] }, oblivious_trees: [{ leaf_values: [1, 2], splits: [{ border: 0, float_feature_index: 4 }] }] },
    /float_feature_index: feature 4 is not in features_info/,
  );
  refused({ features_info: { float_features: [{ feature_index: 0, nan_value_treatment: 'Min' }] }, oblivious_trees: [] }, /nan_value_treatment/);
  const deep = Array.from({ length: 17 }, () => ({ border: 0, float_feature_index: 0 }));
  refused({ oblivious_trees: [{ leaf_values: [], splits: deep }] }, /depth 17 exceeds 16/);
});

test('a row shorter than the model needs is a RangeError, not a silent zero', () => {
  const m = loadCatBoostJson(twoTreeModel());
  assert.throws(() => m.predict([1]), /needs 2 features per row, got 1/);
});
