// Lectern's own gradient-boosted tree trainer (issue 16, ADR 0126): symmetric (oblivious) trees like
// CatBoost's, Newton leaf values with L2 regularization, losses RMSE (pointwise, to `teacher_score`) and
// LambdaMart (pairwise, gradients weighted by the nDCG change of swapping the pair). It exports the
// CatBoost JSON format that src/ranking/catboost.ts evaluates, so a trained model and a model trained by
// CatBoost itself are served the same way.
//
// Pure and deterministic: no clock, no randomness, no I/O; the same data and options give the same bytes.
// Features are quantized once (at most `borderCount` float32 borders per feature, CatBoost's
// `value > border` rule); NaN counts as below every border (exported as nan_value_treatment AsFalse).

export type GbdtLoss = 'RMSE' | 'LambdaMart';

/** Rows of one data set: `rows` is row-major (n * features.length); rows of one query are contiguous. */
export interface GbdtData {
  rows: Float64Array;
  labels: Float64Array;
  /** Query boundaries: group q is rows [groups[q], groups[q+1]). Required for LambdaMart and nDCG. */
  groups?: Int32Array;
}

export interface GbdtTrainOptions {
  /** Feature names, one per column (exported as `feature_id`). */
  features: readonly string[];
  loss: GbdtLoss;
  /** Trees to grow at most (default 200). */
  iterations?: number;
  /** Splits per tree (default 6, at most 10). */
  depth?: number;
  learningRate?: number;
  /** L2 regularization of leaf values (CatBoost's l2_leaf_reg, default 3). */
  l2LeafReg?: number;
  /** Borders per feature (default 64, at most 254). */
  borderCount?: number;
  /** Held-out data: the model keeps the trees up to its best iteration on it. */
  validation?: GbdtData;
  /** Stop when the validation metric has not improved for this many trees (default 50). */
  earlyStoppingRounds?: number;
  /**
   * Validation curve smoothing: the best iteration is the one whose mean metric over a window of this
   * many iterations (odd; centred, trailing while growing) is best, so few validation queries do not
   * make a lucky spike the stopping point (default 1: the raw metric).
   */
  smoothing?: number;
  /** k of the nDCG@k used for LambdaMart's validation metric (default 10). */
  ndcgAt?: number;
  /** Extra string entries for `model_info` (CatBoost's info map). */
  info?: Record<string, string>;
}

export interface GbdtTree {
  /** Per level: feature column and border index into `borders[feature]`. */
  splits: { feature: number; border: number }[];
  leafValues: Float64Array;
  leafWeights: Float64Array;
}

export interface TrainedGbdt {
  features: readonly string[];
  loss: GbdtLoss;
  bias: number;
  /** Quantization borders per feature (float32 values, ascending). */
  borders: Float64Array[];
  trees: GbdtTree[];
  /** Trees grown before stopping (>= trees.length when early stopping cut the tail). */
  grownTrees: number;
  /** Validation metric per iteration (nDCG@k for LambdaMart, RMSE for RMSE), empty without validation. */
  validationHistory: number[];
  /** Predictions on the training rows, computed the way the exported model computes them. */
  trainPredictions: Float64Array;
  options: Required<Omit<GbdtTrainOptions, 'validation' | 'info'>>;
  info: Record<string, string>;
}

const DEFAULTS = { iterations: 200, depth: 6, learningRate: 0.1, l2LeafReg: 3, borderCount: 64, earlyStoppingRounds: 50, ndcgAt: 10, smoothing: 1 };

function checkOptions(o: GbdtTrainOptions): Required<Omit<GbdtTrainOptions, 'validation' | 'info'>> {
  const r = { ...DEFAULTS, ...Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) } as Required<GbdtTrainOptions>;
  const intIn = (name: string, v: number, lo: number, hi: number): void => {
    if (!Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`${name} must be an integer ${lo}..${hi}, got ${v}`);
  };
  intIn('iterations', r.iterations, 1, 100_000);
  intIn('depth', r.depth, 1, 10);
  intIn('borderCount', r.borderCount, 1, 254);
  intIn('earlyStoppingRounds', r.earlyStoppingRounds, 1, 100_000);
  intIn('ndcgAt', r.ndcgAt, 1, 10_000);
  intIn('smoothing', r.smoothing, 1, 999);
  if (r.smoothing % 2 !== 1) throw new RangeError(`smoothing must be odd, got ${r.smoothing}`);
  if (!(r.learningRate > 0 && r.learningRate <= 1)) throw new RangeError(`learningRate must be in (0, 1], got ${r.learningRate}`);
  if (!(r.l2LeafReg >= 0 && Number.isFinite(r.l2LeafReg))) throw new RangeError(`l2LeafReg must be >= 0, got ${r.l2LeafReg}`);
  if (r.loss !== 'RMSE' && r.loss !== 'LambdaMart') throw new RangeError(`loss must be RMSE or LambdaMart, got ${String(r.loss)}`);
  return { features: o.features, loss: r.loss, iterations: r.iterations, depth: r.depth, learningRate: r.learningRate, l2LeafReg: r.l2LeafReg, borderCount: r.borderCount, earlyStoppingRounds: r.earlyStoppingRounds, ndcgAt: r.ndcgAt, smoothing: r.smoothing };
}

function checkData(d: GbdtData, f: number, name: string, needGroups: boolean): number {
  const n = d.labels.length;
  if (d.rows.length !== n * f) throw new RangeError(`${name}: rows hold ${d.rows.length} values, expected ${n} rows x ${f} features`);
  for (let i = 0; i < n; i += 1) if (!Number.isFinite(d.labels[i]!)) throw new RangeError(`${name}: label of row ${i} is not a finite number`);
  if (d.groups) {
    const g = d.groups;
    if (g.length < 1 || g[0] !== 0 || g[g.length - 1] !== n) throw new RangeError(`${name}: groups must start at 0 and end at ${n}`);
    for (let q = 1; q < g.length; q += 1) if (g[q]! < g[q - 1]!) throw new RangeError(`${name}: groups must not decrease (at ${q})`);
  } else if (needGroups) {
    throw new RangeError(`${name}: LambdaMart needs query groups`);
  }
  return n;
}

/** Float32 borders for one feature: midpoints between distinct values, or quantiles when there are many. */
export function quantize(values: Float64Array, borderCount: number): Float64Array {
  const v: number[] = [];
  for (const x of values) if (x === x) v.push(Math.fround(x));
  v.sort((a, b) => a - b);
  const distinct: number[] = [];
  for (const x of v) if (distinct.length === 0 || distinct[distinct.length - 1] !== x) distinct.push(x);
  if (distinct.length <= 1) return new Float64Array(0);
  const out: number[] = [];
  const push = (lo: number, hi: number): void => {
    // v > border separates lo from hi; the float32 midpoint unless rounding reached hi.
    let b = Math.fround((lo + hi) / 2);
    if (!(b >= lo && b < hi)) b = lo;
    if (out.length === 0 || out[out.length - 1]! < b) out.push(b);
  };
  if (distinct.length - 1 <= borderCount) {
    for (let i = 1; i < distinct.length; i += 1) push(distinct[i - 1]!, distinct[i]!);
  } else {
    // Quantile positions over all values, snapped to a gap between distinct values.
    for (let k = 1; k <= borderCount; k += 1) {
      const at = Math.min(v.length - 1, Math.floor((k * v.length) / (borderCount + 1)));
      const hi = v[at]!;
      // the largest distinct value below hi
      let lo = Number.NaN;
      let a = 0;
      let b = distinct.length - 1;
      while (a <= b) {
        const m = (a + b) >> 1;
        if (distinct[m]! < hi) {
          lo = distinct[m]!;
          a = m + 1;
        } else b = m - 1;
      }
      if (lo === lo) push(lo, hi);
    }
  }
  return Float64Array.from(out);
}

/** Number of borders the value is greater than (float32 comparison; NaN -> 0). */
function binOf(x: number, borders: Float64Array): number {
  if (x !== x) return 0;
  const v = Math.fround(x);
  let a = 0;
  let b = borders.length;
  while (a < b) {
    const m = (a + b) >> 1;
    if (v > borders[m]!) a = m + 1;
    else b = m;
  }
  return a;
}

/** Column-major bins: bins[f * n + i]. */
function binarize(rows: Float64Array, n: number, borders: Float64Array[]): Uint8Array {
  const f = borders.length;
  const bins = new Uint8Array(n * f);
  for (let j = 0; j < f; j += 1) {
    const bj = borders[j]!;
    for (let i = 0; i < n; i += 1) bins[j * n + i] = binOf(rows[i * f + j]!, bj);
  }
  return bins;
}

function leafIndexes(tree: GbdtTree, bins: Uint8Array, n: number, out: Uint32Array): void {
  out.fill(0);
  tree.splits.forEach((s, d) => {
    const base = s.feature * n;
    for (let i = 0; i < n; i += 1) if (bins[base + i]! > s.border) out[i]! |= 1 << d;
  });
}

const GAIN = (rel: number): number => 2 ** rel - 1;
const DISCOUNT = (rank: number): number => 1 / Math.log2(rank + 2);

/** Mean nDCG@k (exponential gain) over groups that have a relevant row; null when none has. */
export function meanNdcg(scores: ArrayLike<number>, labels: ArrayLike<number>, groups: Int32Array, k: number): number | null {
  let sum = 0;
  let count = 0;
  for (let q = 0; q + 1 < groups.length; q += 1) {
    const s = groups[q]!;
    const e = groups[q + 1]!;
    const ideal: number[] = [];
    for (let i = s; i < e; i += 1) if (labels[i]! > 0) ideal.push(labels[i]!);
    if (ideal.length === 0) continue;
    ideal.sort((a, b) => b - a);
    let idcg = 0;
    for (let r = 0; r < Math.min(k, ideal.length); r += 1) idcg += GAIN(ideal[r]!) * DISCOUNT(r);
    const order = Array.from({ length: e - s }, (_, i) => s + i).sort((a, b) => scores[b]! - scores[a]! || a - b);
    let dcg = 0;
    for (let r = 0; r < Math.min(k, order.length); r += 1) dcg += GAIN(labels[order[r]!]!) * DISCOUNT(r);
    sum += dcg / idcg;
    count += 1;
  }
  return count === 0 ? null : sum / count;
}

/** LambdaMart gradients and hessians (of the loss; leaves move against them). */
function lambdaGradients(pred: Float64Array, labels: Float64Array, groups: Int32Array, g: Float64Array, h: Float64Array): void {
  g.fill(0);
  h.fill(0);
  for (let q = 0; q + 1 < groups.length; q += 1) {
    const s = groups[q]!;
    const e = groups[q + 1]!;
    const m = e - s;
    if (m < 2) continue;
    const order = Array.from({ length: m }, (_, i) => s + i).sort((a, b) => pred[b]! - pred[a]! || a - b);
    const rank = new Int32Array(m);
    order.forEach((row, r) => (rank[row - s] = r));
    const ideal: number[] = [];
    for (let i = s; i < e; i += 1) ideal.push(labels[i]!);
    ideal.sort((a, b) => b - a);
    let idcg = 0;
    for (let r = 0; r < m; r += 1) idcg += GAIN(ideal[r]!) * DISCOUNT(r);
    if (idcg <= 0) continue;
    for (let i = s; i < e; i += 1) {
      const li = labels[i]!;
      if (li <= 0) continue;
      for (let j = s; j < e; j += 1) {
        const lj = labels[j]!;
        if (lj >= li) continue;
        const delta = Math.abs((GAIN(li) - GAIN(lj)) * (DISCOUNT(rank[i - s]!) - DISCOUNT(rank[j - s]!))) / idcg;
        const rho = 1 / (1 + Math.exp(pred[i]! - pred[j]!));
        g[i]! -= rho * delta;
        g[j]! += rho * delta;
        const w = Math.max(rho * (1 - rho) * delta, 1e-12);
        h[i]! += w;
        h[j]! += w;
      }
    }
  }
}

/** Trains an oblivious-tree ensemble. Throws RangeError on bad options or data shapes. */
export function trainGbdt(train: GbdtData, options: GbdtTrainOptions): TrainedGbdt {
  const o = checkOptions(options);
  const f = o.features.length;
  if (f === 0) throw new RangeError('features: at least one feature is needed');
  const n = checkData(train, f, 'train', o.loss === 'LambdaMart');
  if (n === 0) throw new RangeError('train: no rows');
  const valid = options.validation;
  const nv = valid ? checkData(valid, f, 'validation', o.loss === 'LambdaMart') : 0;

  const borders: Float64Array[] = [];
  const column = new Float64Array(n);
  for (let j = 0; j < f; j += 1) {
    for (let i = 0; i < n; i += 1) column[i] = train.rows[i * f + j]!;
    borders.push(quantize(column, o.borderCount));
  }
  const bins = binarize(train.rows, n, borders);
  const vbins = valid ? binarize(valid.rows, nv, borders) : new Uint8Array(0);

  let bias = 0;
  if (o.loss === 'RMSE') {
    for (let i = 0; i < n; i += 1) bias += train.labels[i]!;
    bias /= n;
  }
  const sum = new Float64Array(n); // tree outputs summed from zero, as the evaluator sums them
  const pred = new Float64Array(n);
  const vsum = new Float64Array(nv);
  const vpred = new Float64Array(nv);
  const g = new Float64Array(n);
  const h = new Float64Array(n);
  const leafOf = new Uint32Array(n);
  const vleaf = new Uint32Array(nv);
  const trees: GbdtTree[] = [];
  const history: number[] = [];
  let best = { metric: Number.NEGATIVE_INFINITY, trees: 0 };
  const lam = o.l2LeafReg;
  // Newton gain of one side of a split; a side with (almost) no hessian mass gains nothing.
  const gain = (gs: number, hs: number): number => (hs + lam > 1e-12 ? (gs * gs) / (hs + lam) : 0);
  const nbOf = Int32Array.from(borders, (b) => b.length + 1);
  const maxBins = Math.max(1, ...nbOf);
  const leavesMax = 1 << o.depth;
  // per feature: leavesMax x its bins, leaf-major
  const histOff = new Int32Array(f);
  let histSize = 0;
  for (let j = 0; j < f; j += 1) {
    histOff[j] = histSize;
    histSize += leavesMax * nbOf[j]!;
  }
  const histG = new Float64Array(histSize);
  const histH = new Float64Array(histSize);
  const tmpG = new Float64Array((leavesMax / 2) * maxBins);
  const tmpH = new Float64Array((leavesMax / 2) * maxBins);
  const gl = new Float64Array(leavesMax);
  const hl = new Float64Array(leavesMax);
  const gt = new Float64Array(leavesMax);
  const ht = new Float64Array(leavesMax);
  const side = new Int32Array(n);

  for (let it = 0; it < o.iterations; it += 1) {
    for (let i = 0; i < n; i += 1) pred[i] = sum[i]! + bias;
    if (o.loss === 'RMSE') {
      for (let i = 0; i < n; i += 1) {
        g[i] = pred[i]! - train.labels[i]!;
        h[i] = 1;
      }
    } else {
      lambdaGradients(pred, train.labels, train.groups!, g, h);
    }

    leafOf.fill(0);
    const splits: { feature: number; border: number }[] = [];
    // Histograms of every (leaf, feature, bin), built once at the root; after each split only the
    // smaller side's rows are counted and the other side is the parent minus it.
    for (let j = 0; j < f; j += 1) {
      const nb = nbOf[j]!;
      if (nb < 2) continue;
      const off = histOff[j]!;
      histG.fill(0, off, off + nb);
      histH.fill(0, off, off + nb);
      const base = j * n;
      for (let i = 0; i < n; i += 1) {
        const cell = off + bins[base + i]!;
        histG[cell]! += g[i]!;
        histH[cell]! += h[i]!;
      }
    }
    for (let level = 0; level < o.depth; level += 1) {
      const leaves = 1 << level;
      let bestScore = Number.NEGATIVE_INFINITY;
      let bestSplit: { feature: number; border: number } | null = null;
      for (let j = 0; j < f; j += 1) {
        const nb = nbOf[j]!;
        if (nb < 2) continue;
        const off = histOff[j]!;
        // Scan borders from the bottom: left = bins up to the border, right = the rest.
        gl.fill(0, 0, leaves);
        hl.fill(0, 0, leaves);
        gt.fill(0, 0, leaves);
        ht.fill(0, 0, leaves);
        for (let l = 0; l < leaves; l += 1) {
          for (let b = 0; b < nb; b += 1) {
            gt[l]! += histG[off + l * nb + b]!;
            ht[l]! += histH[off + l * nb + b]!;
          }
        }
        for (let b = 0; b < nb - 1; b += 1) {
          // split on border b: bin <= b left, bin > b right
          let score = 0;
          for (let l = 0; l < leaves; l += 1) {
            gl[l]! += histG[off + l * nb + b]!;
            hl[l]! += histH[off + l * nb + b]!;
            score += gain(gl[l]!, hl[l]!) + gain(gt[l]! - gl[l]!, ht[l]! - hl[l]!);
          }
          if (bestSplit === null || score > bestScore + 1e-12 * Math.abs(bestScore)) {
            bestScore = score;
            bestSplit = { feature: j, border: b };
          }
        }
      }
      if (bestSplit === null) break;
      splits.push(bestSplit);
      const base = bestSplit.feature * n;
      const bit = 1 << level;
      let ones = 0;
      for (let i = 0; i < n; i += 1) if (bins[base + i]! > bestSplit.border) ones += 1;
      if (level + 1 < o.depth) {
        // rows of the smaller side, with their parent leaf (before this split's bit)
        const countOnes = ones <= n - ones;
        let k = 0;
        for (let i = 0; i < n; i += 1) if (bins[base + i]! > bestSplit.border === countOnes) side[k++] = i;
        for (let j = 0; j < f; j += 1) {
          const nb = nbOf[j]!;
          if (nb < 2) continue;
          const off = histOff[j]!;
          const size = leaves * nb;
          tmpG.fill(0, 0, size);
          tmpH.fill(0, 0, size);
          const fb = j * n;
          for (let x = 0; x < k; x += 1) {
            const i = side[x]!;
            const cell = leafOf[i]! * nb + bins[fb + i]!;
            tmpG[cell]! += g[i]!;
            tmpH[cell]! += h[i]!;
          }
          // parent l -> children l (bit 0) and l + bit (bit 1)
          for (let c = 0; c < size; c += 1) {
            const pg = histG[off + c]!;
            const ph = histH[off + c]!;
            const counted = off + (countOnes ? c + size : c);
            const other = off + (countOnes ? c : c + size);
            histG[counted] = tmpG[c]!;
            histH[counted] = tmpH[c]!;
            histG[other] = pg - tmpG[c]!;
            histH[other] = ph - tmpH[c]!;
          }
        }
      }
      for (let i = 0; i < n; i += 1) if (bins[base + i]! > bestSplit.border) leafOf[i]! |= bit;
    }

    const leaves = 1 << splits.length;
    const gs = new Float64Array(leaves);
    const hs = new Float64Array(leaves);
    const weights = new Float64Array(leaves);
    for (let i = 0; i < n; i += 1) {
      gs[leafOf[i]!]! += g[i]!;
      hs[leafOf[i]!]! += h[i]!;
      weights[leafOf[i]!]! += 1;
    }
    const leafValues = new Float64Array(leaves);
    for (let l = 0; l < leaves; l += 1) leafValues[l] = hs[l]! + lam > 0 ? (-o.learningRate * gs[l]!) / (hs[l]! + lam) : 0;
    const tree: GbdtTree = { splits, leafValues, leafWeights: weights };
    trees.push(tree);
    for (let i = 0; i < n; i += 1) sum[i]! += leafValues[leafOf[i]!]!;

    if (valid) {
      leafIndexes(tree, vbins, nv, vleaf);
      for (let i = 0; i < nv; i += 1) {
        vsum[i]! += leafValues[vleaf[i]!]!;
        vpred[i] = vsum[i]! + bias;
      }
      let metric: number;
      if (o.loss === 'LambdaMart') {
        metric = meanNdcg(vpred, valid.labels, valid.groups!, o.ndcgAt) ?? 0;
      } else {
        let se = 0;
        for (let i = 0; i < nv; i += 1) se += (vpred[i]! - valid.labels[i]!) ** 2;
        metric = nv === 0 ? 0 : Math.sqrt(se / nv);
      }
      history.push(metric);
      // larger is better: nDCG as is, RMSE negated; trailing mean over the smoothing window
      const w = Math.min(o.smoothing, history.length);
      let mean = 0;
      for (let x = history.length - w; x < history.length; x += 1) mean += history[x]!;
      const score = (o.loss === 'LambdaMart' ? 1 : -1) * (mean / w);
      if (score > best.metric) best = { metric: score, trees: trees.length };
      else if (trees.length - best.trees >= o.earlyStoppingRounds) break;
    }
  }

  const grownTrees = trees.length;
  if (valid && o.smoothing > 1) {
    // the final choice on the centred window (the trailing one lags by half a window)
    const half = (o.smoothing - 1) / 2;
    let bestAt = 0;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (let t = 0; t < history.length; t += 1) {
      const a = Math.max(0, t - half);
      const b = Math.min(history.length - 1, t + half);
      let sum = 0;
      for (let x = a; x <= b; x += 1) sum += history[x]!;
      const v = (o.loss === 'LambdaMart' ? 1 : -1) * (sum / (b - a + 1));
      if (v > bestScore) {
        bestScore = v;
        bestAt = t;
      }
    }
    best = { metric: bestScore, trees: bestAt + 1 };
  }
  const kept = valid ? trees.slice(0, Math.max(1, best.trees)) : trees;
  // Training predictions of the kept trees, summed in the evaluator's order.
  const finalSum = new Float64Array(n);
  for (const tree of kept) {
    leafIndexes(tree, bins, n, leafOf);
    for (let i = 0; i < n; i += 1) finalSum[i]! += tree.leafValues[leafOf[i]!]!;
  }
  const trainPredictions = new Float64Array(n);
  for (let i = 0; i < n; i += 1) trainPredictions[i] = 1 * finalSum[i]! + bias;
  return { features: [...o.features], loss: o.loss, bias, borders, trees: kept, grownTrees, validationHistory: history, trainPredictions, options: o, info: { ...(options.info ?? {}) } };
}

/**
 * The model as CatBoost's JSON export (`save_model(format='json')`), which loadCatBoostJson reads.
 * `compact`: only the features the trees split on (at least one), renumbered in their original order;
 * a server binding features by name (feature_id) then computes only what the model reads.
 */
export function toCatBoostJson(model: TrainedGbdt, options: { compact?: boolean } = {}): Record<string, unknown> {
  // Borders used by the trees, per feature, and their global split_index (CatBoost's numbering).
  const used = model.borders.map(() => new Set<number>());
  for (const t of model.trees) for (const s of t.splits) used[s.feature]!.add(s.border);
  let kept = model.features.map((_, j) => j);
  if (options.compact) {
    kept = kept.filter((j) => used[j]!.size > 0);
    if (kept.length === 0) kept = [0];
  }
  const newIndex = new Map(kept.map((j, i) => [j, i]));
  const splitIndex = new Map<string, number>();
  let next = 0;
  const floatFeatures = kept.map((j, i) => {
    const idx = [...used[j]!].sort((a, b) => a - b);
    for (const b of idx) splitIndex.set(`${j}:${b}`, next++);
    return {
      borders: idx.map((b) => model.borders[j]![b]!),
      feature_index: i,
      flat_feature_index: i,
      has_nans: true,
      nan_value_treatment: 'AsFalse',
      feature_id: model.features[j]!,
    };
  });
  const o = model.options;
  return {
    model_info: {
      params: {
        loss_function: { type: model.loss, params: {} },
        boosting_options: { iterations: model.trees.length, learning_rate: o.learningRate },
        tree_learner_options: { depth: o.depth, l2_leaf_reg: o.l2LeafReg, grow_policy: 'SymmetricTree' },
        data_processing_options: { float_features_binarization: { border_count: o.borderCount, nan_mode: 'Min' } },
      },
      lectern_trainer: 'lectern-gbdt/1',
      ...model.info,
    },
    features_info: { float_features: floatFeatures },
    oblivious_trees: model.trees.map((t) => ({
      leaf_values: [...t.leafValues],
      leaf_weights: [...t.leafWeights],
      splits: t.splits.map((s) => ({
        border: model.borders[s.feature]![s.border]!,
        float_feature_index: newIndex.get(s.feature)!,
        split_index: splitIndex.get(`${s.feature}:${s.border}`)!,
        split_type: 'FloatFeature',
      })),
    })),
    scale_and_bias: [1, [model.bias]],
  };
}
