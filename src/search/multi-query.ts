// Multi-query retrieval (docs/search.md, ADR 0107): the sparse channel runs the query and its
// reformulated sub-queries, one per generated dimension of its sparse vector (a learned expansion term
// with its weight; weight_threshold, pruning and max_query_dims decide which exist), and combines each
// document's sub-query scores with the request's `combiner`:
//   x_r = weight_r x score_r / best score of sub-query r   (each sub-query's scores scaled to (0, 1])
// sorted descending, the first `combiner_top_k` (0: all) kept, padded with 0 for sub-queries the document
// did not match, rank-decayed: y_r = combiner_decay^r x x_r, then
//   sum:          sum_r y_r
//   max:          y_0
//   log_sum_exp:  T ln sum_r exp(y_r / T)   (T = combiner_temperature; T -> 0 is max, large T ~ sum)
// A query with no generated dimension is ranked exactly as its single engine search (every combiner is
// monotone in one score). Pure over the engine; shared by the search service and bench/quality.
import type { EngineHit, EngineQuery, EngineResult, SearchIndex } from '../engine/index.js';
import type { SparseDim } from './channels.js';

export type CombinerName = 'log_sum_exp' | 'max' | 'sum';

export interface CombinerParams {
  combiner: CombinerName;
  /** Rank decay (>= 0; usually <= 1): the r-th best sub-query score of a document is multiplied by decay^r. */
  decay: number;
  /** log_sum_exp temperature (> 0; 0 behaves as max). */
  temperature: number;
  /** Sub-query ranks a document's score uses (0: all). */
  topK: number;
}

/** Interface defaults. */
export const DEFAULT_COMBINER: CombinerParams = { combiner: 'log_sum_exp', decay: 0.7, temperature: 1.5, topK: 3 };

/** Combines one document's scaled sub-query scores (any order; `subQueries` pads missing ones with 0). */
export function combineScores(xs: readonly number[], subQueries: number, p: CombinerParams): number {
  const k = p.topK > 0 ? Math.min(p.topK, subQueries) : subQueries;
  const sorted = [...xs].sort((a, b) => b - a).slice(0, k);
  while (sorted.length < k) sorted.push(0);
  const decay = Math.max(0, p.decay);
  const ys = sorted.map((x, r) => x * decay ** r);
  if (ys.length === 0) return 0;
  if (p.combiner === 'max') return ys[0]!;
  if (p.combiner === 'sum') return ys.reduce((a, b) => a + b, 0);
  const t = p.temperature;
  if (!(t > 0)) return Math.max(...ys);
  const m = Math.max(...ys);
  return m + t * Math.log(ys.reduce((a, y) => a + Math.exp((y - m) / t), 0));
}

export interface SubQueryTrace {
  /** `query` for the query itself, else the generated term. */
  sub_query: string;
  weight: number;
  hits: number;
}

/** The hits only a sub-query found, their passages left for later (ADR 0311; {@link passagesFor}). */
export interface DeferredPassages {
  /** The combined hits that carry no passages yet. */
  bare: EngineHit[];
}

/**
 * The sparse channel as multi-query retrieval: the query (its own terms, BM25F) plus one single-term
 * sub-query per generated dimension, each an engine search of `base.limit` hits, combined per document.
 * `deferPassages`: the hits only a sub-query found keep no passages and are returned as `deferred`
 * (hybrid with a sparse vote that nominates nothing: only those another channel also returned can
 * reach the page, so {@link passagesFor} gives only those theirs, after the other channels ran).
 */
export function multiQuerySearch(index: SearchIndex, base: EngineQuery, dims: readonly SparseDim[], heapFactor: number, p: CombinerParams, shared: EngineResult | null = null, deferPassages = false): { result: EngineResult; subQueries: SubQueryTrace[]; deferred: DeferredPassages | null } {
  // the query's own pass: the fulltext channel's result of the same engine query when it ran (hybrid:
  // one candidate pass shared by both channels, exact where the sparse pass alone is pruned), else ours
  const main = shared ?? index.search({ ...base, heapFactor });
  const subs = subQueriesOf(base, dims, heapFactor).map((s) => ({ ...s, result: index.search(s.query) }));
  const out = combineSubQueries(base, main, subs, p);
  const bare = bareHits(out.result.hits, base);
  if (deferPassages) return { ...out, deferred: bare.length > 0 ? { bare } : null };
  if (bare.length > 0) givePassages(bare, index.search(passagesQuery(base, bare)));
  return { ...out, deferred: null };
}

/**
 * The same multi-query retrieval with each engine search done by `search` (a cluster's coordinator:
 * every sub-query is a DFS-then-query over the shards, so each list is one index's; ADR 0246). The
 * sub-queries run concurrently; the combination is the one above.
 */
export async function multiQuerySearchWith(search: (q: EngineQuery) => Promise<EngineResult>, base: EngineQuery, dims: readonly SparseDim[], heapFactor: number, p: CombinerParams, shared: EngineResult | null = null, deferPassages = false): Promise<{ result: EngineResult; subQueries: SubQueryTrace[]; deferred: DeferredPassages | null }> {
  const subQueries = subQueriesOf(base, dims, heapFactor);
  const [main, ...rest] = await Promise.all([shared !== null ? Promise.resolve(shared) : search({ ...base, heapFactor }), ...subQueries.map((s) => search(s.query))]);
  const out = combineSubQueries(base, main!, subQueries.map((s, i) => ({ ...s, result: rest[i]! })), p);
  const bare = bareHits(out.result.hits, base);
  if (deferPassages) return { ...out, deferred: bare.length > 0 ? { bare } : null };
  if (bare.length > 0) givePassages(bare, await search(passagesQuery(base, bare)));
  return { ...out, deferred: null };
}

/**
 * Gives the deferred hits whose ids are in `wanted` their passages (one pass of the query over them, by
 * `search`: the index's or the shards'); the others keep none. Returns how many were given passages.
 */
export async function passagesFor(deferred: DeferredPassages, base: EngineQuery, wanted: ReadonlySet<string>, search: (q: EngineQuery) => EngineResult | Promise<EngineResult>): Promise<number> {
  const bare = deferred.bare.filter((h) => wanted.has(h.id));
  if (bare.length > 0) givePassages(bare, await search(passagesQuery(base, bare)));
  return bare.length;
}

/**
 * One engine query per generated dimension: a one-term sub-query, block-max top-k of its postings, no
 * exact total, no passages (the page's are taken after combining, once), no explanation.
 */
function subQueriesOf(base: EngineQuery, dims: readonly SparseDim[], heapFactor: number): { term: string; weight: number; query: EngineQuery }[] {
  return dims.filter((d) => !d.own && d.weight > 0).map((d) => ({ term: d.term, weight: d.weight, query: { ...base, text: '', expansion: [{ term: d.term, weight: 1 }], heapFactor, explain: false, trace: false, exactTotal: false, passagesPerHit: 0 } }));
}

/** Hits only a sub-query found carry no passages: one pass of the query over them finds theirs. */
function bareHits(hits: EngineHit[], base: EngineQuery): EngineHit[] {
  return (base.passagesPerHit ?? 3) > 0 ? hits.filter((h) => h.passages.length === 0) : [];
}

function passagesQuery(base: EngineQuery, bare: readonly EngineHit[]): EngineQuery {
  return { ...base, offset: 0, limit: bare.length, exactTotal: false, explain: false, trace: false, filters: { ...(base.filters ?? {}), ids: bare.map((h) => h.id) } };
}

function givePassages(bare: EngineHit[], r: EngineResult): void {
  const by = new Map(r.hits.map((h) => [h.id, h.passages]));
  for (const h of bare) h.passages = by.get(h.id) ?? [];
}

/** Combines the query's result and its sub-queries' results per document (the combiner above). */
function combineSubQueries(base: EngineQuery, main: EngineResult, subs: readonly { term: string; weight: number; result: EngineResult }[], p: CombinerParams): { result: EngineResult; subQueries: SubQueryTrace[] } {
  const limit = base.limit ?? 10;
  if (subs.length === 0) return { result: main, subQueries: [{ sub_query: 'query', weight: 1, hits: main.hits.length }] };
  const lists: { weight: number; hits: EngineHit[] }[] = [{ weight: 1, hits: main.hits }];
  const traces: SubQueryTrace[] = [{ sub_query: 'query', weight: 1, hits: main.hits.length }];
  let total = main.totalHits;
  for (const d of subs) {
    const r = d.result;
    lists.push({ weight: d.weight, hits: r.hits });
    traces.push({ sub_query: d.term, weight: Number(d.weight.toFixed(4)), hits: r.hits.length });
    total = Math.max(total, r.totalHits);
  }
  const parts = new Map<string, { hit: EngineHit; xs: number[] }>();
  for (const l of lists) {
    const best = l.hits[0]?.score ?? 0;
    if (!(best > 0)) continue;
    for (const h of l.hits) {
      let e = parts.get(h.id);
      if (!e) parts.set(h.id, (e = { hit: h, xs: [] }));
      e.xs.push((l.weight * h.score) / best);
    }
  }
  const ranked = [...parts.values()]
    .map((e) => ({ hit: e.hit, score: combineScores(e.xs, lists.length, p) }))
    .sort((a, b) => b.score - a.score || (a.hit.id < b.hit.id ? -1 : 1));
  const hits = ranked.slice(0, limit).map((r) => ({ ...r.hit, score: r.score }));
  return {
    result: { hits, totalHits: Math.max(total, parts.size), totalHitsExact: false, hasMore: ranked.length > limit || main.hasMore, rankingMode: main.rankingMode, ...(main.trace ? { trace: main.trace } : {}) },
    subQueries: traces,
  };
}
