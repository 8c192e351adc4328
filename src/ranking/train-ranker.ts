// Fitting an L2 ranking model from judgments (`lectern ranking train`, docs/ranking.md, ADR 0127): every
// judged query is searched, its candidate pool (the search service's organic top `poolDepth`, with the
// ranking feature rows the L2 stage sees) is labelled with the judged grades (unjudged = 0), and a GBDT
// (gbdt-train.ts) learns to reorder the pool. k-fold cross-validation by query reports nDCG@10 of the
// organic order and of the model's order on held-out queries; the final model is trained on every
// query with the number of trees cross-validation found best, and exported as CatBoost JSON.
// Pure orchestration: candidates come from a CandidateSource, judgments from the caller.
import type { IndexName } from '../domain/document.js';
import { loadCatBoostJson } from './catboost.js';
import { toCatBoostJson, trainGbdt, type GbdtData, type GbdtLoss, type TrainedGbdt } from './gbdt-train.js';

/** One judged query: grades 0..3 (or any non-negative number) of documents; unjudged documents are 0. */
export interface JudgedQuery {
  id: string;
  text: string;
  index: IndexName;
  rels: Map<string, number>;
}

/** A candidate of a query's pool: its document id and its feature row (NaN = absent). */
export interface PoolCandidate {
  id: string;
  row: ArrayLike<number>;
}

/** Where the training rows come from: the same candidates and features the L2 stage scores. */
export interface CandidateSource {
  readonly featureVersion: string;
  /** Names of the row's columns (the model's `feature_id`s). */
  readonly featureNames: readonly string[];
  /** The organic top `depth` candidates of `query` in `index`, best first, with their feature rows. */
  pool(query: string, index: IndexName, depth: number): Promise<PoolCandidate[]>;
  /**
   * The search mode whose pools these are and the channels that run for it on `index` (ADR 0230): the
   * model records them and is served only in that lane. Absent: the model records no lane.
   */
  lane?(index: IndexName): { mode: string; channels: readonly string[] };
}

export interface RankerTrainOptions {
  /** Candidates per query (default 100, at most 500). */
  poolDepth?: number;
  /** Cross-validation folds (default 5; 1: no cross-validation, the tree count is chosen on every 5th query held out). */
  folds?: number;
  loss?: GbdtLoss;
  /** Most trees (default 300); cross-validation picks how many the final model keeps. */
  iterations?: number;
  /** Splits per tree (default 6). */
  depth?: number;
  learningRate?: number;
  l2LeafReg?: number;
  borderCount?: number;
  earlyStoppingRounds?: number;
  /** Free-text description of the judgments (recorded in the model). */
  judgmentsLabel?: string;
}

export interface FoldReport {
  fold: number;
  trainQueries: number;
  testQueries: number;
  trees: number;
  /** Mean nDCG@10 over the fold's test queries: organic order vs the model's order of the same pool. */
  ndcg10Organic: number;
  ndcg10Model: number;
}

export interface RankerTrainReport {
  featureVersion: string;
  /** The mode and channels the pools came from (what the model records and is served for). */
  lane: { mode: string; channels: string[] } | null;
  features: string[];
  index: IndexName;
  judgments: string;
  queries: { judged: number; used: number; withoutRelevantCandidate: number; withoutJudgedRelevant: number };
  rows: number;
  poolDepth: number;
  /** Judged relevant (grade > 0) documents found in the pools / all judged relevant. */
  relevantInPool: number;
  relevantJudged: number;
  loss: GbdtLoss;
  options: { iterations: number; depth: number; learningRate: number; l2LeafReg: number; borderCount: number; earlyStoppingRounds: number };
  crossValidation: {
    folds: FoldReport[];
    /** Means over every used query of the held-out folds (each query counted once). */
    ndcg10Organic: number;
    ndcg10Model: number;
    /** Queries whose nDCG@10 went up / down / stayed. */
    improved: number;
    worsened: number;
    unchanged: number;
  } | null;
  finalTrees: number;
  /** Splits of the final model per feature, most used first (features it never splits on are left out). */
  featureSplits: Record<string, number>;
  model: { sha256?: string; bytes?: number; trees: number };
  poolMs: number;
  trainMs: number;
}

export interface RankerTrainResult {
  report: RankerTrainReport;
  /** The CatBoost JSON export of the final model. */
  modelJson: Record<string, unknown>;
  model: TrainedGbdt;
}

export type TrainProgress = (p: { phase: 'pools' | 'cross-validation' | 'final'; done: number; total: number }) => void;

/** nDCG@10 with exponential gain over the full judgments (ideal from every judged relevant document). */
export function ndcg10(ranking: readonly string[], rels: Map<string, number>): number {
  let dcg = 0;
  for (let i = 0; i < Math.min(10, ranking.length); i += 1) {
    const r = rels.get(ranking[i]!) ?? 0;
    if (r > 0) dcg += (2 ** r - 1) / Math.log2(i + 2);
  }
  const ideal = [...rels.values()].filter((r) => r > 0).sort((a, b) => b - a);
  let idcg = 0;
  for (let i = 0; i < Math.min(10, ideal.length); i += 1) idcg += (2 ** ideal[i]! - 1) / Math.log2(i + 2);
  return idcg > 0 ? dcg / idcg : 0;
}

/** FNV-1a of a string: a stable, seedless shuffle key for fold assignment. */
function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i += 1) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * Cross-validation folds of query ids: ordered by a hash of the id (stable, seedless, not by position in
 * the file), then dealt round-robin, so folds differ in size by at most one.
 */
export function assignFolds(ids: readonly string[], folds: number): Map<string, number> {
  const order = [...ids].sort((a, b) => fnv(a) - fnv(b) || (a < b ? -1 : a > b ? 1 : 0));
  return new Map(order.map((id, i) => [id, i % folds]));
}

export interface QueryPool {
  q: JudgedQuery;
  ids: string[];
  rows: Float64Array; // ids.length x features
  labels: Float64Array;
}

export function dataOf(pools: readonly QueryPool[], f: number): GbdtData {
  const n = pools.reduce((s, p) => s + p.ids.length, 0);
  const rows = new Float64Array(n * f);
  const labels = new Float64Array(n);
  const groups = new Int32Array(pools.length + 1);
  let at = 0;
  pools.forEach((p, i) => {
    rows.set(p.rows, at * f);
    labels.set(p.labels, at);
    at += p.ids.length;
    groups[i + 1] = at;
  });
  return { rows, labels, groups };
}

/** Judged queries' pools with feature rows and grades (queries without a judged relevant document skipped). */
export async function collectPools(source: CandidateSource, judged: readonly JudgedQuery[], poolDepth: number, progress?: TrainProgress) {
  const f = source.featureNames.length;
  const pools: QueryPool[] = [];
  let withoutRelevantCandidate = 0;
  let withoutJudgedRelevant = 0;
  let relevantInPool = 0;
  let relevantJudged = 0;
  for (let qi = 0; qi < judged.length; qi += 1) {
    const q = judged[qi]!;
    progress?.({ phase: 'pools', done: qi, total: judged.length });
    const relevant = [...q.rels.values()].filter((r) => r > 0).length;
    relevantJudged += relevant;
    if (relevant === 0) {
      withoutJudgedRelevant += 1;
      continue;
    }
    const cands = await source.pool(q.text, q.index, poolDepth);
    const rows = new Float64Array(cands.length * f);
    const labels = new Float64Array(cands.length);
    cands.forEach((c, i) => {
      if (c.row.length !== f) throw new Error(`candidate source gave a row of ${c.row.length} features, expected ${f}`);
      for (let j = 0; j < f; j += 1) rows[i * f + j] = c.row[j]!;
      labels[i] = Math.max(0, q.rels.get(c.id) ?? 0);
    });
    const found = labels.reduce((s, v) => s + (v > 0 ? 1 : 0), 0);
    relevantInPool += found;
    // Kept even without a relevant candidate: such a query scores 0 either way in the held-out means.
    if (found === 0) withoutRelevantCandidate += 1;
    pools.push({ q, ids: cands.map((c) => c.id), rows, labels });
  }
  progress?.({ phase: 'pools', done: judged.length, total: judged.length });
  return { pools, withoutRelevantCandidate, withoutJudgedRelevant, relevantInPool, relevantJudged };
}

/** The pool reordered by the model's scores (ties keep the organic order). */
function reranked(predict: (row: Float64Array) => number, p: QueryPool, f: number): string[] {
  const scores = p.ids.map((_, i) => predict(p.rows.subarray(i * f, (i + 1) * f)));
  return p.ids.map((id, i) => ({ id, i, s: scores[i]! })).sort((a, b) => b.s - a.s || a.i - b.i).map((x) => x.id);
}

/** How often the model splits on each feature, most first. */
export function featureSplits(model: TrainedGbdt): Record<string, number> {
  const counts = new Map<string, number>();
  for (const t of model.trees) for (const s of t.splits) counts.set(model.features[s.feature]!, (counts.get(model.features[s.feature]!) ?? 0) + 1);
  return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)));
}

/** Window (trees) of the validation-curve mean that picks the tree count. */
export const VALIDATION_SMOOTHING = 9;

const int = (name: string, v: number, lo: number, hi: number): number => {
  if (!Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`${name} must be an integer ${lo} to ${hi} (got ${v})`);
  return v;
};

/**
 * Trains an L2 model for one index. Throws RangeError when the judgments cannot train anything (no
 * query has a judged relevant document among its candidates), naming what to fix.
 */
export async function trainRanker(source: CandidateSource, judged: readonly JudgedQuery[], options: RankerTrainOptions = {}, progress?: TrainProgress, now: () => number = () => 0): Promise<RankerTrainResult> {
  const poolDepth = int('pool depth', options.poolDepth ?? 100, 1, 500);
  const folds = int('folds', options.folds ?? 5, 1, 20);
  const loss = options.loss ?? 'LambdaMart';
  const gbdt = {
    iterations: options.iterations ?? 300,
    depth: options.depth ?? 6,
    learningRate: options.learningRate ?? 0.1,
    l2LeafReg: options.l2LeafReg ?? 3,
    borderCount: options.borderCount ?? 64,
    earlyStoppingRounds: options.earlyStoppingRounds ?? 50,
  };
  if (judged.length === 0) throw new RangeError('no judged queries: give judgments (qrels) whose queries are known');
  const indexes = new Set(judged.map((q) => q.index));
  if (indexes.size !== 1) throw new RangeError(`judged queries span several indexes (${[...indexes].join(', ')}): train one index at a time`);
  const index = judged[0]!.index;
  const f = source.featureNames.length;

  const t0 = now();
  const { pools, withoutRelevantCandidate, withoutJudgedRelevant, relevantInPool, relevantJudged } = await collectPools(source, judged, poolDepth, progress);
  const poolMs = now() - t0;
  const trainable = pools.filter((p) => p.labels.some((v) => v > 0));
  if (trainable.length < Math.max(2, folds)) {
    throw new RangeError(`only ${trainable.length} judged queries have a relevant document among their top ${poolDepth} candidates; at least ${Math.max(2, folds)} are needed (more judgments, a deeper pool, or fewer folds)`);
  }

  const t1 = now();
  // the tree count is read off a validation curve averaged over 9 trees: a few hundred validation
  // queries make the raw curve jumpy, and its first spike a poor stopping point
  const baseOptions = { features: source.featureNames, loss, ...gbdt, smoothing: VALIDATION_SMOOTHING };
  // Cross-validation: folds by a hash of the query id; inside each training part every 5th query
  // (by the same hash) is held out for early stopping.
  let cv: RankerTrainReport['crossValidation'] = null;
  const bestTrees: number[] = [];
  if (folds > 1) {
    const assigned = assignFolds(pools.map((p) => p.q.id), folds);
    const order = [...pools].sort((a, b) => fnv(a.q.id) - fnv(b.q.id) || (a.q.id < b.q.id ? -1 : a.q.id > b.q.id ? 1 : 0));
    const foldOf = new Map(order.map((p) => [p, assigned.get(p.q.id)!]));
    const reports: FoldReport[] = [];
    let sumOrganic = 0;
    let sumModel = 0;
    let counted = 0;
    let improved = 0;
    let worsened = 0;
    let unchanged = 0;
    for (let k = 0; k < folds; k += 1) {
      progress?.({ phase: 'cross-validation', done: k, total: folds });
      const test = order.filter((p) => foldOf.get(p) === k);
      const rest = order.filter((p) => foldOf.get(p) !== k && p.labels.some((v) => v > 0));
      const valid = rest.length >= 10 ? rest.filter((_, i) => i % 5 === 4) : [];
      const train = valid.length > 0 ? rest.filter((_, i) => i % 5 !== 4) : rest;
      const model = trainGbdt(dataOf(train, f), { ...baseOptions, ...(valid.length > 0 ? { validation: dataOf(valid, f) } : {}) });
      bestTrees.push(model.trees.length);
      // scored by the evaluator the server uses, on the exported model
      const exported = loadCatBoostJson(toCatBoostJson(model));
      const predict = (row: Float64Array): number => exported.predict(row);
      let o = 0;
      let m = 0;
      for (const p of test) {
        const organic = ndcg10(p.ids, p.q.rels);
        const mine = ndcg10(reranked(predict, p, f), p.q.rels);
        o += organic;
        m += mine;
        if (mine > organic + 1e-12) improved += 1;
        else if (mine < organic - 1e-12) worsened += 1;
        else unchanged += 1;
      }
      sumOrganic += o;
      sumModel += m;
      counted += test.length;
      reports.push({ fold: k, trainQueries: train.length, testQueries: test.length, trees: model.trees.length, ndcg10Organic: test.length ? o / test.length : 0, ndcg10Model: test.length ? m / test.length : 0 });
    }
    cv = { folds: reports, ndcg10Organic: sumOrganic / counted, ndcg10Model: sumModel / counted, improved, worsened, unchanged };
  } else if (trainable.length >= 10) {
    // No cross-validation: the tree count is still chosen on held-out queries (every 5th by hash).
    const order = [...trainable].sort((a, b) => fnv(a.q.id) - fnv(b.q.id) || (a.q.id < b.q.id ? -1 : a.q.id > b.q.id ? 1 : 0));
    const held = order.filter((_, i) => i % 5 === 4);
    const model = trainGbdt(dataOf(order.filter((_, i) => i % 5 !== 4), f), { ...baseOptions, validation: dataOf(held, f) });
    bestTrees.push(model.trees.length);
  }

  progress?.({ phase: 'final', done: 0, total: 1 });
  const finalTrees = bestTrees.length > 0 ? Math.max(1, Math.round(bestTrees.reduce((s, v) => s + v, 0) / bestTrees.length)) : gbdt.iterations;
  const info: Record<string, string> = {
    lectern_target: 'teacher_score',
    lectern_feature_version: source.featureVersion,
    lectern_index: index,
    lectern_pool_depth: String(poolDepth),
    lectern_judgments: options.judgmentsLabel ?? 'judgments',
    lectern_queries: String(trainable.length),
  };
  const lane = source.lane?.(index);
  if (lane) {
    // the lane it was trained in: the server runs it only for requests of this mode and these channels
    info.lectern_mode = lane.mode;
    info.lectern_channels = [...lane.channels].sort().join(',');
  }
  if (cv) {
    info.lectern_cv_folds = String(folds);
    info.lectern_cv_ndcg10_organic = cv.ndcg10Organic.toFixed(4);
    info.lectern_cv_ndcg10_model = cv.ndcg10Model.toFixed(4);
  }
  const model = trainGbdt(dataOf(trainable, f), { ...baseOptions, iterations: finalTrees, info });
  progress?.({ phase: 'final', done: 1, total: 1 });
  const trainMs = now() - t1;

  return {
    model,
    // only the features the trees read: the server computes no more than that (feature_id binds by name)
    modelJson: toCatBoostJson(model, { compact: true }),
    report: {
      featureVersion: source.featureVersion,
      lane: lane ? { mode: lane.mode, channels: [...lane.channels].sort() } : null,
      features: [...source.featureNames],
      index,
      judgments: options.judgmentsLabel ?? 'judgments',
      queries: { judged: judged.length, used: trainable.length, withoutRelevantCandidate, withoutJudgedRelevant },
      rows: trainable.reduce((s, p) => s + p.ids.length, 0),
      poolDepth,
      relevantInPool,
      relevantJudged,
      loss,
      options: gbdt,
      crossValidation: cv,
      finalTrees,
      featureSplits: featureSplits(model),
      model: { trees: model.trees.length },
      poolMs,
      trainMs,
    },
  };
}
