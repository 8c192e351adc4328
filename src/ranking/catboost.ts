// Native evaluation of CatBoost models from their JSON export (`model.save_model(path, format='json')`),
// the L2 stage of the ranking pipeline (issue 16, ADR 0125). Supported: symmetric (oblivious) trees over
// float features, one output dimension (RMSE, YetiRank, PairLogit, QueryRMSE... to `teacher_score`).
// Refused with a message naming the field: categorical/text/embedding features, CTRs, one-hot splits,
// non-symmetric trees (grow_policy Depthwise/Lossguide) and multi-dimensional outputs (MultiClass).
//
// The format, as CatBoost writes it:
//   features_info.float_features[]: { feature_index, flat_feature_index, borders[], nan_value_treatment,
//                                      has_nans, feature_id? }
//   oblivious_trees[]: { splits[]: { float_feature_index, border, split_index, split_type }, leaf_values[] }
//   scale_and_bias: [scale, [bias]]   (older exports: [scale, bias])
// A tree's leaf index has bit d set when its d-th split holds, `value > border` (both as float32, as
// CatBoost compares them); prediction = scale * sum(leaf values) + bias.
import { createHash } from 'node:crypto';

/** A loaded gradient-boosted tree ensemble. */
export interface GbdtModel {
  readonly format: 'catboost_json';
  /** SHA-256 (hex) of the model file's bytes (or of the canonical JSON text when given an object). */
  readonly sha256: string;
  /** Length a row must have at least: 1 + the highest flat feature index the model knows. */
  readonly featureCount: number;
  /** Feature names by flat index (`feature_id` in the export), or null when the model has none. */
  readonly featureNames: readonly string[] | null;
  readonly treeCount: number;
  readonly maxDepth: number;
  /** `model_info.params.loss_function.type` when the export records it. */
  readonly lossFunction: string | null;
  /** String-valued entries of `model_info` (CatBoost's info map; Lectern keeps its metadata there). */
  readonly info: Readonly<Record<string, string>>;
  readonly scale: number;
  readonly bias: number;
  /** Raw prediction for one row of float features indexed by flat feature index. NaN follows the feature's nan_value_treatment. */
  predict(row: ArrayLike<number>): number;
  /** Predictions for many rows (into `out` when given). */
  predictBatch(rows: readonly ArrayLike<number>[], out?: Float64Array): Float64Array;
}

/** The JSON export does not have the shape this evaluator supports; the message names the field. */
export class GbdtModelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GbdtModelError';
  }
}

type Json = Record<string, unknown>;

function fail(path: string, what: string): never {
  throw new GbdtModelError(`CatBoost JSON model: ${path}: ${what}`);
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function obj(v: unknown, path: string): Json {
  if (!isObject(v)) fail(path, `expected an object, got ${describe(v)}`);
  return v;
}

function arr(v: unknown, path: string): unknown[] {
  if (!Array.isArray(v)) fail(path, `expected an array, got ${describe(v)}`);
  return v;
}

function num(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(path, `expected a finite number, got ${describe(v)}`);
  return v;
}

function int(v: unknown, path: string, max = 1 << 24): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) fail(path, `expected an integer 0..${max}, got ${describe(v)}`);
  return v;
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v)}`;
  if (typeof v === 'number') return String(v);
  return `a ${typeof v}`;
}

function nonEmpty(v: unknown): boolean {
  return Array.isArray(v) ? v.length > 0 : isObject(v) ? Object.keys(v).length > 0 : v !== undefined && v !== null;
}

/** Deepest tree accepted (2^depth leaves per tree); CatBoost's own limit is 16. */
export const MAX_TREE_DEPTH = 16;

/** NaN handling per float feature: the value NaN is replaced by this before comparing. */
const NAN_AS: Record<string, number> = { AsIs: Number.NEGATIVE_INFINITY, AsFalse: Number.NEGATIVE_INFINITY, AsTrue: Number.POSITIVE_INFINITY };

/**
 * Loads and validates a CatBoost JSON export. Takes the file's text or bytes (hashed as they are) or an
 * already parsed object (hashed as its JSON text). Throws GbdtModelError naming the first problem.
 */
export function loadCatBoostJson(input: unknown): GbdtModel {
  let json: unknown = input;
  let sha256: string;
  if (typeof input === 'string' || input instanceof Uint8Array) {
    sha256 = createHash('sha256').update(input).digest('hex');
    const text = typeof input === 'string' ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength).toString('utf8');
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new GbdtModelError(`CatBoost JSON model: not JSON (${(e as Error).message})`);
    }
  } else {
    sha256 = createHash('sha256').update(JSON.stringify(input) ?? '').digest('hex');
  }
  const root = obj(json, '(root)');

  if (root.oblivious_trees === undefined) {
    if (root.trees !== undefined) fail('trees', 'non-symmetric trees (grow_policy Depthwise or Lossguide) are not supported; train with grow_policy SymmetricTree');
    fail('oblivious_trees', 'missing');
  }
  const info = obj(root.features_info ?? {}, 'features_info');
  for (const key of ['categorical_features', 'text_features', 'embedding_features']) {
    if (nonEmpty(info[key])) fail(`features_info.${key}`, 'only float features are supported');
  }
  if (nonEmpty(root.ctr_data)) fail('ctr_data', 'CTR features are not supported (only float features)');

  // Float features: flat index, NaN treatment, name.
  const floats = arr(info.float_features ?? [], 'features_info.float_features');
  const flatOf = new Map<number, number>();
  const nanOf = new Map<number, number>();
  const names = new Map<number, string>();
  let featureCount = 0;
  floats.forEach((raw, i) => {
    const p = `features_info.float_features[${i}]`;
    const f = obj(raw, p);
    const index = int(f.feature_index ?? i, `${p}.feature_index`);
    const flat = int(f.flat_feature_index ?? index, `${p}.flat_feature_index`);
    if (flatOf.has(index)) fail(`${p}.feature_index`, `feature ${index} listed twice`);
    flatOf.set(index, flat);
    const treatment = f.nan_value_treatment ?? 'AsIs';
    if (typeof treatment !== 'string' || !(treatment in NAN_AS)) fail(`${p}.nan_value_treatment`, `expected AsIs, AsFalse or AsTrue, got ${describe(treatment)}`);
    nanOf.set(index, NAN_AS[treatment]!);
    if (f.borders !== undefined) arr(f.borders, `${p}.borders`).forEach((b, j) => num(b, `${p}.borders[${j}]`));
    if (typeof f.feature_id === 'string' && f.feature_id !== '') names.set(flat, f.feature_id);
    featureCount = Math.max(featureCount, flat + 1);
  });

  // Trees, flattened for a tight evaluation loop.
  const trees = arr(root.oblivious_trees, 'oblivious_trees');
  const depths = new Int32Array(trees.length);
  const splitStart = new Int32Array(trees.length + 1);
  const leafStart = new Int32Array(trees.length + 1);
  const splitFeature: number[] = [];
  const splitBorder: number[] = [];
  const leaves: number[] = [];
  let maxDepth = 0;
  trees.forEach((raw, t) => {
    const p = `oblivious_trees[${t}]`;
    const tree = obj(raw, p);
    const splits = arr(tree.splits ?? [], `${p}.splits`);
    if (splits.length > MAX_TREE_DEPTH) fail(`${p}.splits`, `depth ${splits.length} exceeds ${MAX_TREE_DEPTH}`);
    depths[t] = splits.length;
    maxDepth = Math.max(maxDepth, splits.length);
    splitStart[t] = splitFeature.length;
    splits.forEach((rs, d) => {
      const sp = `${p}.splits[${d}]`;
      const s = obj(rs, sp);
      const type = s.split_type ?? 'FloatFeature';
      if (type !== 'FloatFeature') fail(`${sp}.split_type`, `only FloatFeature splits are supported, got ${describe(type)}`);
      const fi = int(s.float_feature_index, `${sp}.float_feature_index`);
      let flat = flatOf.get(fi);
      if (flat === undefined) {
        if (floats.length > 0) fail(`${sp}.float_feature_index`, `feature ${fi} is not in features_info.float_features`);
        flat = fi; // an export without features_info: float feature index = flat index
        featureCount = Math.max(featureCount, fi + 1);
      }
      splitFeature.push(flat);
      splitBorder.push(Math.fround(num(s.border, `${sp}.border`)));
    });
    const values = arr(tree.leaf_values, `${p}.leaf_values`);
    const expected = 2 ** splits.length;
    if (values.length !== expected) {
      if (values.length > expected && values.length % expected === 0) {
        fail(`${p}.leaf_values`, `${values.length / expected} output dimensions; only single-output models (regression or ranking) are supported`);
      }
      fail(`${p}.leaf_values`, `expected ${expected} values (2^${splits.length} for ${splits.length} splits), got ${values.length}`);
    }
    leafStart[t] = leaves.length;
    values.forEach((v, j) => leaves.push(num(v, `${p}.leaf_values[${j}]`)));
  });
  splitStart[trees.length] = splitFeature.length;
  leafStart[trees.length] = leaves.length;

  // scale_and_bias: [scale, [bias]] or [scale, bias]; absent means [1, 0].
  let scale = 1;
  let bias = 0;
  if (root.scale_and_bias !== undefined) {
    const sb = arr(root.scale_and_bias, 'scale_and_bias');
    if (sb.length !== 2) fail('scale_and_bias', `expected [scale, [bias]], got ${sb.length} items`);
    scale = num(sb[0], 'scale_and_bias[0]');
    if (Array.isArray(sb[1])) {
      if (sb[1].length > 1) fail('scale_and_bias[1]', `${sb[1].length} biases; only single-output models are supported`);
      bias = sb[1].length === 0 ? 0 : num(sb[1][0], 'scale_and_bias[1][0]');
    } else {
      bias = num(sb[1], 'scale_and_bias[1]');
    }
  }

  // model_info: loss function and the string entries.
  const infoMap: Record<string, string> = {};
  let lossFunction: string | null = null;
  if (isObject(root.model_info)) {
    for (const [k, v] of Object.entries(root.model_info)) if (typeof v === 'string') infoMap[k] = v;
    let params: unknown = root.model_info.params;
    if (typeof params === 'string') {
      try {
        params = JSON.parse(params);
      } catch {
        params = undefined;
      }
    }
    if (isObject(params) && isObject(params.loss_function) && typeof params.loss_function.type === 'string') lossFunction = params.loss_function.type;
  }

  const nanReplacement = new Float64Array(featureCount).fill(Number.NEGATIVE_INFINITY);
  for (const [index, flat] of flatOf) nanReplacement[flat] = nanOf.get(index)!;
  let featureNames: string[] | null = null;
  if (names.size > 0) {
    featureNames = [];
    for (let i = 0; i < featureCount; i += 1) featureNames.push(names.get(i) ?? '');
  }
  return new ObliviousEnsemble({
    sha256,
    featureCount,
    featureNames,
    maxDepth,
    lossFunction,
    info: Object.freeze(infoMap),
    scale,
    bias,
    depths,
    splitStart,
    leafStart,
    splitFeature: Int32Array.from(splitFeature),
    splitBorder: Float64Array.from(splitBorder),
    leaves: Float64Array.from(leaves),
    nanReplacement,
  });
}

interface EnsembleParts {
  sha256: string;
  featureCount: number;
  featureNames: string[] | null;
  maxDepth: number;
  lossFunction: string | null;
  info: Readonly<Record<string, string>>;
  scale: number;
  bias: number;
  depths: Int32Array;
  splitStart: Int32Array;
  leafStart: Int32Array;
  splitFeature: Int32Array;
  splitBorder: Float64Array;
  leaves: Float64Array;
  nanReplacement: Float64Array;
}

class ObliviousEnsemble implements GbdtModel {
  readonly format = 'catboost_json' as const;
  readonly sha256: string;
  readonly featureCount: number;
  readonly featureNames: readonly string[] | null;
  readonly treeCount: number;
  readonly maxDepth: number;
  readonly lossFunction: string | null;
  readonly info: Readonly<Record<string, string>>;
  readonly scale: number;
  readonly bias: number;
  readonly #p: EnsembleParts;
  readonly #x: Float64Array;

  constructor(parts: EnsembleParts) {
    this.#p = parts;
    this.sha256 = parts.sha256;
    this.featureCount = parts.featureCount;
    this.featureNames = parts.featureNames === null ? null : Object.freeze([...parts.featureNames]);
    this.treeCount = parts.depths.length;
    this.maxDepth = parts.maxDepth;
    this.lossFunction = parts.lossFunction;
    this.info = parts.info;
    this.scale = parts.scale;
    this.bias = parts.bias;
    this.#x = new Float64Array(parts.featureCount);
  }

  predict(row: ArrayLike<number>): number {
    const p = this.#p;
    if (row.length < p.featureCount) throw new RangeError(`GBDT model ${p.sha256.slice(0, 12)} needs ${p.featureCount} features per row, got ${row.length}`);
    // float32 as CatBoost compares; NaN replaced per the feature's treatment.
    const x = this.#x;
    for (let i = 0; i < p.featureCount; i += 1) {
      const v = row[i]!;
      x[i] = v !== v ? p.nanReplacement[i]! : Math.fround(v);
    }
    let sum = 0;
    const { depths, splitStart, leafStart, splitFeature, splitBorder, leaves } = p;
    for (let t = 0; t < depths.length; t += 1) {
      const s0 = splitStart[t]!;
      const depth = depths[t]!;
      let index = 0;
      for (let d = 0; d < depth; d += 1) {
        if (x[splitFeature[s0 + d]!]! > splitBorder[s0 + d]!) index |= 1 << d;
      }
      sum += leaves[leafStart[t]! + index]!;
    }
    return p.scale * sum + p.bias;
  }

  predictBatch(rows: readonly ArrayLike<number>[], out?: Float64Array): Float64Array {
    const result = out ?? new Float64Array(rows.length);
    if (result.length < rows.length) throw new RangeError(`output holds ${result.length} predictions, ${rows.length} rows given`);
    for (let i = 0; i < rows.length; i += 1) result[i] = this.predict(rows[i]!);
    return result;
  }
}
