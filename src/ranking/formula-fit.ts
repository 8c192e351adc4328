// Fitting an L1 formula from judgments (`lectern ranking train --formula`, docs/ranking.md, ADR 0129): a
// linear formula `w1 * f1 + w2 * f2 + ...` over document features, found by coordinate ascent on the
// mean nDCG@10 of the judged queries' candidate pools (RankLib's method), started from the organic `rrf`.
// Absent features count as 0, as the formula evaluator reads them without missing_values; passage
// features are left out (a formula's document score is its best passage's, which a per-document row
// cannot reproduce). Pure and deterministic.
import { DOCUMENT_FEATURES } from './features.js';
import type { GbdtData } from './gbdt-train.js';
import { assignFolds, collectPools, dataOf, ndcg10, type CandidateSource, type JudgedQuery, type QueryPool, type TrainProgress } from './train-ranker.js';

export interface FormulaFitOptions {
  /** Feature names of the data's columns. */
  features: readonly string[];
  /** Columns the formula may use (default: every document feature of the v1 set present in `features`). */
  allowed?: readonly string[];
  /** Passes over the features (default 3). */
  rounds?: number;
  /** Feature the search starts from with weight 1 (default rrf, the organic order). */
  start?: string;
}

export interface FittedFormula {
  /** The formula text (weights with 4 significant digits), for l1.formula or ranking.formula*. */
  formula: string;
  weights: Record<string, number>;
  /** Mean nDCG@10 on the training pools (within-pool ideal) at the start and at the end. */
  trainNdcgStart: number;
  trainNdcgEnd: number;
}

const STEPS = [-2, -1, -0.5, -0.25, -0.1, -0.05, 0.05, 0.1, 0.25, 0.5, 1, 2];

/** Mean nDCG@10 (exponential gain, within-pool ideal) of `scores`; ties keep the row order (organic). */
function meanNdcg10(scores: Float64Array, labels: Float64Array, groups: Int32Array, idcg: Float64Array, order: Int32Array): number {
  let sum = 0;
  let counted = 0;
  for (let q = 0; q + 1 < groups.length; q += 1) {
    if (!(idcg[q]! > 0)) continue;
    const s = groups[q]!;
    const e = groups[q + 1]!;
    const m = e - s;
    for (let i = 0; i < m; i += 1) order[i] = s + i;
    const sub = order.subarray(0, m);
    sub.sort((a, b) => scores[b]! - scores[a]! || a - b);
    let dcg = 0;
    for (let r = 0; r < Math.min(10, m); r += 1) {
      const l = labels[sub[r]!]!;
      if (l > 0) dcg += (2 ** l - 1) / Math.log2(r + 2);
    }
    sum += dcg / idcg[q]!;
    counted += 1;
  }
  return counted === 0 ? 0 : sum / counted;
}

/** Formats a weight for the formula language (no exponent below 1e-4: the tokenizer reads both). */
const fmt = (w: number): string => Number(w.toPrecision(4)).toString();

/** The formula text of weights (zero weights left out; `0` when none is left). */
export function formulaText(weights: Record<string, number>): string {
  const terms = Object.entries(weights).filter(([, w]) => w !== 0);
  if (terms.length === 0) return '0';
  return terms
    .map(([name, w], i) => {
      const mag = fmt(Math.abs(w));
      const term = mag === '1' ? name : `${mag} * ${name}`;
      return i === 0 ? (w < 0 ? `-${term}` : term) : `${w < 0 ? '-' : '+'} ${term}`;
    })
    .join(' ');
}

/** Fits a linear formula to graded pools (groups required). Throws RangeError on bad input. */
export function fitFormula(data: GbdtData, options: FormulaFitOptions): FittedFormula {
  const f = options.features.length;
  const groups = data.groups;
  if (!groups) throw new RangeError('formula fitting needs query groups');
  const n = data.labels.length;
  if (data.rows.length !== n * f) throw new RangeError(`rows hold ${data.rows.length} values, expected ${n} x ${f}`);
  const docNames = new Set(DOCUMENT_FEATURES.map((x) => x.name));
  const allowed = new Set(options.allowed ?? options.features.filter((name) => docNames.has(name)));
  const start = options.start ?? 'rrf';
  const rounds = options.rounds ?? 3;
  // columns (absent = 0), their scale (RMS of the observed values), skipped when constant
  const cols: { name: string; j: number; x: Float64Array; scale: number }[] = [];
  options.features.forEach((name, j) => {
    if (!allowed.has(name)) return;
    const x = new Float64Array(n);
    let sq = 0;
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < n; i += 1) {
      const v = data.rows[i * f + j]!;
      const val = v === v && Number.isFinite(v) ? v : 0;
      x[i] = val;
      sq += val * val;
      min = Math.min(min, val);
      max = Math.max(max, val);
    }
    if (max > min) cols.push({ name, j, x, scale: Math.sqrt(sq / n) || 1 });
  });
  if (!cols.some((c) => c.name === start)) throw new RangeError(`the start feature ${start} is not among the usable columns`);
  // ideal DCG per group
  const idcg = new Float64Array(groups.length - 1);
  for (let q = 0; q + 1 < groups.length; q += 1) {
    const ls: number[] = [];
    for (let i = groups[q]!; i < groups[q + 1]!; i += 1) if (data.labels[i]! > 0) ls.push(data.labels[i]!);
    ls.sort((a, b) => b - a);
    let v = 0;
    for (let r = 0; r < Math.min(10, ls.length); r += 1) v += (2 ** ls[r]! - 1) / Math.log2(r + 2);
    idcg[q] = v;
  }
  let maxGroup = 1;
  for (let q = 0; q + 1 < groups.length; q += 1) maxGroup = Math.max(maxGroup, groups[q + 1]! - groups[q]!);
  const order = new Int32Array(maxGroup);

  // u: weights in scaled units (w = u / scale); scores = sum u_c * x_c / scale_c
  const u = new Float64Array(cols.length);
  u[cols.findIndex((c) => c.name === start)] = 1;
  const scores = new Float64Array(n);
  const recompute = () => {
    scores.fill(0);
    cols.forEach((c, k) => {
      if (u[k] === 0) return;
      const a = u[k]! / c.scale;
      for (let i = 0; i < n; i += 1) scores[i]! += a * c.x[i]!;
    });
  };
  recompute();
  const first = meanNdcg10(scores, data.labels, groups, idcg, order);
  let best = first;
  const trial = new Float64Array(n);
  for (let round = 0; round < rounds; round += 1) {
    let improved = false;
    for (let k = 0; k < cols.length; k += 1) {
      const c = cols[k]!;
      let bestStep = 0;
      for (const step of STEPS) {
        const a = step / c.scale;
        for (let i = 0; i < n; i += 1) trial[i] = scores[i]! + a * c.x[i]!;
        const v = meanNdcg10(trial, data.labels, groups, idcg, order);
        if (v > best + 1e-9) {
          best = v;
          bestStep = step;
        }
      }
      if (bestStep !== 0) {
        u[k]! += bestStep;
        const a = bestStep / c.scale;
        for (let i = 0; i < n; i += 1) scores[i]! += a * c.x[i]!;
        improved = true;
      }
    }
    if (!improved) break;
  }
  const weights: Record<string, number> = {};
  cols.forEach((c, k) => {
    if (u[k] !== 0) weights[c.name] = Number((u[k]! / c.scale).toPrecision(4));
  });
  return { formula: formulaText(weights), weights, trainNdcgStart: first, trainNdcgEnd: best };
}

export interface FormulaTrainReport {
  featureVersion: string;
  index: string;
  queries: { judged: number; used: number; withoutRelevantCandidate: number; withoutJudgedRelevant: number };
  poolDepth: number;
  crossValidation: {
    folds: { fold: number; trainQueries: number; testQueries: number; formula: string; ndcg10Organic: number; ndcg10Formula: number }[];
    ndcg10Organic: number;
    ndcg10Formula: number;
    improved: number;
    worsened: number;
    unchanged: number;
  } | null;
  formula: string;
  weights: Record<string, number>;
}

/** Scores a pool's rows with linear weights (absent = 0) and returns its ids best first (ties: organic). */
export function rankByWeights(p: QueryPool, names: readonly string[], weights: Record<string, number>): string[] {
  const f = names.length;
  const ws = names.map((n) => weights[n] ?? 0);
  const scored = p.ids.map((id, i) => {
    let s = 0;
    for (let j = 0; j < f; j += 1) {
      if (ws[j] === 0) continue;
      const v = p.rows[i * f + j]!;
      if (v === v && Number.isFinite(v)) s += ws[j]! * v;
    }
    return { id, i, s };
  });
  return scored.sort((a, b) => b.s - a.s || a.i - b.i).map((x) => x.id);
}

/**
 * Fits an L1 formula to judged queries with k-fold cross-validation by query (the same folds and
 * held-out nDCG@10 as the L2 trainer), then on every query. Throws RangeError when nothing can be fitted.
 */
export async function trainFormula(source: CandidateSource, judged: readonly JudgedQuery[], options: { poolDepth?: number; folds?: number; rounds?: number } = {}, progress?: TrainProgress): Promise<FormulaTrainReport> {
  const poolDepth = options.poolDepth ?? 100;
  const folds = options.folds ?? 5;
  if (!Number.isInteger(poolDepth) || poolDepth < 1 || poolDepth > 500) throw new RangeError(`pool depth must be an integer 1 to 500 (got ${poolDepth})`);
  if (!Number.isInteger(folds) || folds < 1 || folds > 20) throw new RangeError(`folds must be an integer 1 to 20 (got ${folds})`);
  if (judged.length === 0) throw new RangeError('no judged queries: give judgments (qrels) whose queries are known');
  const names = source.featureNames;
  const c = await collectPools(source, judged, poolDepth, progress);
  const trainable = c.pools.filter((p) => p.labels.some((v) => v > 0));
  if (trainable.length < Math.max(2, folds)) throw new RangeError(`only ${trainable.length} judged queries have a relevant document among their top ${poolDepth} candidates; at least ${Math.max(2, folds)} are needed`);
  const fit = (pools: QueryPool[]) => fitFormula(dataOf(pools, names.length), { features: names, ...(options.rounds !== undefined ? { rounds: options.rounds } : {}) });
  let cv: FormulaTrainReport['crossValidation'] = null;
  if (folds > 1) {
    const foldOf = assignFolds(c.pools.map((p) => p.q.id), folds);
    const reports: NonNullable<FormulaTrainReport['crossValidation']>['folds'] = [];
    let o = 0;
    let m = 0;
    let improved = 0;
    let worsened = 0;
    let unchanged = 0;
    for (let k = 0; k < folds; k += 1) {
      progress?.({ phase: 'cross-validation', done: k, total: folds });
      const test = c.pools.filter((p) => foldOf.get(p.q.id) === k);
      const train = trainable.filter((p) => foldOf.get(p.q.id) !== k);
      const fitted = fit(train);
      let fo = 0;
      let fm = 0;
      for (const p of test) {
        const organic = ndcg10(p.ids, p.q.rels);
        const mine = ndcg10(rankByWeights(p, names, fitted.weights), p.q.rels);
        fo += organic;
        fm += mine;
        if (mine > organic + 1e-12) improved += 1;
        else if (mine < organic - 1e-12) worsened += 1;
        else unchanged += 1;
      }
      o += fo;
      m += fm;
      reports.push({ fold: k, trainQueries: train.length, testQueries: test.length, formula: fitted.formula, ndcg10Organic: test.length ? fo / test.length : 0, ndcg10Formula: test.length ? fm / test.length : 0 });
    }
    cv = { folds: reports, ndcg10Organic: o / c.pools.length, ndcg10Formula: m / c.pools.length, improved, worsened, unchanged };
  }
  progress?.({ phase: 'final', done: 0, total: 1 });
  const final = fit(trainable);
  progress?.({ phase: 'final', done: 1, total: 1 });
  return {
    featureVersion: source.featureVersion,
    index: judged[0]!.index,
    queries: { judged: judged.length, used: trainable.length, withoutRelevantCandidate: c.withoutRelevantCandidate, withoutJudgedRelevant: c.withoutJudgedRelevant },
    poolDepth,
    crossValidation: cv,
    formula: final.formula,
    weights: final.weights,
  };
}
