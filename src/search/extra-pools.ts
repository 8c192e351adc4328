// The interface's benchmark pool options (docs/ranking.md, ADR 0138): extra candidates merged into the
// reranker pool after the fused list's top `depth`, so a stage can rank documents the fused list did
// not nominate.
//   binary_pool: a binary-only retrieval pool (Hamming prefilter + float rescoring over the dense
//     model's codes) of the documents corpus, for a search with L2.
//   document_discovery: a whole-document pool (the lexical channel with ranking mode "documents") for a
//     passages search; true forces, false disables, omitted merges for automatic passage searches
//     (ranking_mode "auto" resolved to passages).
// Refusals (422) happen with the plan, before any work or charge.
import type { IndexName } from '../domain/document.js';
import { AppError } from '../domain/errors.js';
import type { EngineHit, EngineQuery } from '../engine/index.js';
import { getFeature, newCandidate, setFeature, type Candidate } from '../ranking/features.js';
import type { RankingPlan } from '../ranking/pipeline.js';
import { denseSearch } from './channels.js';
import type { SearchIndexes } from './search-service.js';
import type { SearchRequest } from './search-types.js';

/** The corpus binary_pool draws from ("a documents-corpus search"). */
const BINARY_POOL_CORPUS: IndexName = 'documents';

const unavailable = (what: string) => new AppError('feature_unavailable', what, { extra: { missing: what.split(':')[0] } });
const invalid = (field: string, message: string) => new AppError('validation_failed', message, { extra: { field } });

/** Whether a stage reorders the pool (candidate scores alone rank nothing). */
const reranks = (plan: RankingPlan) => plan.formula !== null || plan.l2 !== null || plan.cross > 0;

/** Refuses pool options that could not take effect for this request (no work, no charge). */
export function checkExtraPools(r: SearchRequest, plan: RankingPlan, indexNames: readonly IndexName[], indexes: Pick<SearchIndexes, 'dense'>): void {
  if (r.binaryPool) {
    if (!indexNames.includes(BINARY_POOL_CORPUS)) throw unavailable(`binary_pool: the binary pool is drawn from the ${BINARY_POOL_CORPUS} corpus, which this search does not read (indexes ${indexNames.join(', ')}); omit binary_pool.`);
    if (indexes.dense(BINARY_POOL_CORPUS) === null) throw unavailable(`binary_pool: a binary pool needs the dense model's binary codes, which the ${BINARY_POOL_CORPUS} index does not have; train the corpus models with \`lectern models train\` (docs/models.md), or omit binary_pool.`);
    if (r.mode === 'binary') throw invalid('binary_pool', 'binary_pool: mode "binary" already retrieves with the binary codes alone, so a binary pool would add nothing; omit binary_pool.');
    if (plan.l2 === null || !plan.l2.models.has(BINARY_POOL_CORPUS)) throw unavailable(`binary_pool: the binary pool is merged into the L2 stage's pool, and L2 does not run for this request (l2_rerank "${r.l2Rerank}"${plan.l2 === null ? '; no model configured for every searched corpus in this mode and channels, or switched off' : ''}; ranking.l2Models, docs/ranking.md); omit binary_pool.`);
  }
  if (r.documentDiscovery === true) {
    if (r.rankingMode === 'documents') throw invalid('document_discovery', 'document_discovery: true merges whole-document candidates into a passages search\'s pool; ranking_mode "documents" already ranks whole documents. Omit document_discovery or use ranking_mode "passages".');
    if (r.mode === 'short_document' || r.mode === 'binary') throw invalid('document_discovery', `document_discovery: mode "${r.mode}" ranks whole documents (dense vectors), not passages; omit document_discovery.`);
    if (!reranks(plan)) throw unavailable('document_discovery: the whole-document pool is merged into the reranker pool, and no reranking stage runs for this request (no l1 formula, L2 model or cross-encoder; docs/ranking.md); omit document_discovery.');
  }
}

/** Pool sizes by source (traces). */
export type PoolSources = Record<string, number>;

export interface ExtraPoolResult {
  /** Candidates added after the fused pool (not in it), in source order. */
  added: Candidate[];
  sources: PoolSources;
  notes: string[];
}

const key = (index: IndexName, id: string) => `${index}\u0000${id}`;

/**
 * Merges the extra pools into `pool` (in place: added candidates are appended after the fused ones, with
 * organic ranks after the pool's). `resolved`: the search's resolved ranking mode.
 */
export async function mergeExtraPools(r: SearchRequest, plan: RankingPlan, pool: Candidate[], base: EngineQuery, resolved: 'documents' | 'passages', indexNames: readonly IndexName[], indexes: SearchIndexes): Promise<ExtraPoolResult> {
  const sources: PoolSources = { fused: pool.length };
  const notes: string[] = [];
  const added: Candidate[] = [];
  if (!plan.active) return { added, sources, notes };
  const byKey = new Map(pool.map((c) => [key(c.index, c.id), c]));
  const add = (index: IndexName, hit: EngineHit, set?: [string, number][]): boolean => {
    let c = byKey.get(key(index, hit.id));
    let fresh = false;
    if (!c) {
      // not fused: no RRF votes (rrf 0), ranked after the fused pool until a stage scores it
      c = newCandidate(hit.id, index, hit, pool.length, 0, 0);
      pool.push(c);
      added.push(c);
      byKey.set(key(index, hit.id), c);
      fresh = true;
    }
    for (const [name, v] of set ?? []) if (Number.isNaN(getFeature(c, name))) setFeature(c, name, v);
    return fresh;
  };
  if (r.binaryPool && indexNames.includes(BINARY_POOL_CORPUS)) {
    const dense = indexes.dense(BINARY_POOL_CORPUS);
    const idx = indexes.get(BINARY_POOL_CORPUS);
    let n = 0;
    const vector = dense ? await dense.queryVector(idx, r.query, r.possibleLanguages) : null;
    if (vector) {
      const result = denseSearch(idx, vector, 'binary', { limit: plan.depth, ...(base.filters ? { filters: base.filters } : {}), collapseByWorkKey: base.collapseByWorkKey ?? false, passagesPerHit: base.passagesPerHit ?? 3 });
      // the binary branch's score and rank also fill the fused candidates the binary pool found
      result.hits.forEach((h, rank) => {
        if (add(BINARY_POOL_CORPUS, h, [['binary', h.score], ['binary_rank', rank + 1]])) n++;
      });
    } else notes.push('binary_pool: no query term is known to the dense model: no binary candidates');
    sources['binary'] = n;
  }
  const discovery = r.documentDiscovery === true || (r.documentDiscovery === null && r.rankingMode === 'auto');
  if (r.documentDiscovery !== false && resolved === 'passages' && discovery && (r.mode === 'fulltext' || r.mode === 'hybrid' || r.mode === 'sparse') && reranks(plan)) {
    let n = 0;
    for (const name of indexNames) {
      const result = indexes.get(name).search({ ...base, rankingMode: 'documents', limit: plan.depth, offset: 0, explain: false, trace: false, exactTotal: false });
      for (const h of result.hits) if (add(name, h)) n++;
    }
    sources['document_discovery'] = n;
  } else if (r.documentDiscovery === true) {
    notes.push(`document_discovery: the search ranked ${resolved === 'passages' ? 'passages but no stage reranks them' : 'whole documents'}: no whole-document pool merged`);
  }
  return { added, sources, notes };
}
