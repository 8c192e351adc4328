// Between the search service and the ranking pipeline (src/ranking/): which branches a request runs,
// the candidate pool from the fused list, and the feature sources over this service's indexes, store
// and activity. Kept apart from search-service.ts so the pipeline's wiring stays in one place.
import type { IndexName } from '../domain/document.js';
import type { EngineHit, EngineQuery, EngineResult } from '../engine/index.js';
import type { ActivityCounts } from '../ports/activity-store.js';
import type { DocumentStore } from '../ports/document-store.js';
import { getFeature, newCandidate, setFeature, type Branch, type Candidate } from '../ranking/features.js';
import { citedByCount, type FeatureSources } from '../ranking/sources.js';
import type { ShardedLexicalSearch } from './search-service.js';
import { denseQueryVector, denseSearch, sparseEngineOptions, sparseQueryVector, type SparseParams } from './channels.js';
import type { SearchIndexes } from './search-service.js';
import type { ActivityStore } from '../ports/activity-store.js';
import type { SearchRequest } from './search-types.js';

/** The branches whose channels run on every searched index for this request (as the service's #channels runs them). */
export function plannedBranches(r: SearchRequest, indexNames: readonly IndexName[], indexes: SearchIndexes): Set<Branch> {
  const all = (kind: 'dense' | 'sparse') => indexNames.every((n) => indexes.models(n)[kind] !== null);
  const out = new Set<Branch>();
  if (r.mode === 'fulltext' || (r.mode === 'hybrid' && (r.fulltextWeight ?? 1) > 0)) out.add('fulltext');
  if ((r.mode === 'sparse' || r.mode === 'hybrid') && all('sparse')) out.add('sparse');
  if ((r.mode === 'short_document' || r.mode === 'hybrid') && all('dense')) out.add('short_document');
  if (r.mode === 'binary' && all('dense')) out.add('binary');
  return out;
}

/** One channel's list, as the pool needs it. */
export interface RunLike {
  index: IndexName;
  channel: Branch;
  result: EngineResult;
}

/** One fused entry. */
export interface RankedLike {
  hit: EngineHit;
  index: IndexName;
  score: number;
  fused: number;
}

/** The pool: the fused list's top `depth` as candidates with their branch scores and ranks. */
export function buildPool(ranked: readonly RankedLike[], runs: readonly RunLike[], depth: number): Candidate[] {
  const pool = ranked.slice(0, depth).map((p, i) => newCandidate(p.hit.id, p.index, p.hit, i, p.score, p.fused));
  const byKey = new Map(pool.map((c) => [`${c.index}\u0000${c.id}`, c]));
  for (const run of runs) {
    run.result.hits.forEach((h, rank) => {
      const c = byKey.get(`${run.index}\u0000${h.id}`);
      if (!c || !Number.isNaN(getFeature(c, run.channel))) return;
      setFeature(c, run.channel, h.score);
      setFeature(c, `${run.channel}_rank`, rank + 1);
    });
  }
  return pool;
}

export interface SourceDeps {
  indexes: SearchIndexes;
  store: DocumentStore;
  engagement: ((ids: readonly string[], now: number) => Promise<Map<string, ActivityCounts>>) | null;
  now: number;
  /**
   * A cluster's coordinator (ADR 0248): the lexical parts, branch scores and citation counts come from
   * the shards (scored with the corpus's statistics); the api node computes the features and runs L1/L2.
   */
  shards?: ShardedLexicalSearch | null;
  /** Told the shards that did not answer a feature call (the response is then partial; ADR 0265). */
  onMissingShards?: (index: IndexName, shards: readonly number[]) => void;
}

/** Feature sources over the service's indexes for one request (`base`: its engine query). */
export function featureSources(r: SearchRequest, base: EngineQuery, d: SourceDeps): FeatureSources {
  const sparseParams: SparseParams = { maxQueryDims: r.maxQueryDims, weightThreshold: r.weightThreshold, pruning: r.pruning, heapFactor: r.heapFactor };
  const restricted = (ids: readonly string[]): EngineQuery => ({ ...base, limit: Math.min(500, Math.max(1, ids.length)), offset: 0, passagesPerHit: 0, explain: false, trace: false, exactTotal: false, filters: { ...(base.filters ?? {}), ids: [...ids] } });
  const shapes = new Map<IndexName, { phrases: boolean; words: number; empty: boolean }>();
  const engagement = d.engagement;
  return {
    lexicalParts: (index, ids) => d.indexes.get(index).scoreParts(base, ids),
    branch(index, branch, ids) {
      const out = new Map<string, number>();
      const idx = d.indexes.get(index);
      const models = d.indexes.models(index);
      for (let at = 0; at < ids.length; at += 500) {
        const chunk = ids.slice(at, at + 500);
        let result: EngineResult | null = null;
        if (branch === 'fulltext') result = idx.search({ ...restricted(chunk), lexicalWeight: 1 });
        else if (branch === 'sparse' && models.sparse) {
          const dims = sparseQueryVector(idx, models.sparse.model, r.query, r.possibleLanguages, sparseParams);
          result = idx.search({ ...restricted(chunk), ...sparseEngineOptions(dims, sparseParams) });
        } else if ((branch === 'short_document' || branch === 'binary') && models.dense) {
          const v = denseQueryVector(idx, models.dense.model, r.query, r.possibleLanguages);
          if (v) result = denseSearch(idx, v, 'exact', { limit: chunk.length, filters: { ...(base.filters ?? {}), ids: [...chunk] }, passagesPerHit: 0 });
        }
        for (const h of result?.hits ?? []) out.set(h.id, h.score);
      }
      return out;
    },
    queryShape(index) {
      let s = shapes.get(index);
      if (!s) {
        const parsed = d.indexes.get(index).parse(r.query, r.possibleLanguages);
        s = { phrases: parsed.phrases.length > 0, words: parsed.words.length, empty: parsed.words.length === 0 && parsed.phrases.length === 0 };
        shapes.set(index, s);
      }
      return s;
    },
    documents: (ids, withText) => d.store.getDisplayMany(ids, withText),
    citedBy: (index, docs) => docs.map((doc) => citedByCount(d.indexes.get(index), doc)),
    ...(d.shards ? shardedSources(r, base, d.indexes, d.shards, sparseParams, restricted, d.onMissingShards ?? (() => undefined)) : {}),
    engagement: engagement ? (ids) => engagement(ids, d.now) : null,
    now: d.now,
  };
}

/**
 * The engagement features' source over the activity store: each candidate's counters (one read per
 * document; the store has no batched read yet).
 */
export function activityEngagement(store: Pick<ActivityStore, 'counts'>): (ids: readonly string[], now: number) => Promise<Map<string, ActivityCounts>> {
  return async (ids, now) => new Map(await Promise.all(ids.map(async (id) => [id, await store.counts(id, now)] as const)));
}

/**
 * The index reads of the feature sources over a cluster's shards (ADR 0248); the same queries as above.
 * Every call tells `missing` the shards that did not answer (ADR 0265); `cited_by` is one scatter for all
 * the candidates of a pass.
 */
function shardedSources(r: SearchRequest, base: EngineQuery, indexes: SearchIndexes, shards: ShardedLexicalSearch, sparseParams: SparseParams, restricted: (ids: readonly string[]) => EngineQuery, missing: (index: IndexName, shards: readonly number[]) => void): Pick<FeatureSources, 'lexicalParts' | 'branch' | 'citedBy'> {
  const seen = <T extends { missingShards: readonly number[] }>(index: IndexName, r: T): T => {
    if (r.missingShards.length > 0) missing(index, r.missingShards);
    return r;
  };
  return {
    lexicalParts: async (index, ids) => seen(index, await shards.scoreParts(index, { text: base.text ?? '', possibleLanguages: base.possibleLanguages ?? null, ...(base.phraseBoost !== undefined ? { phraseBoost: base.phraseBoost } : {}) }, ids)).parts,
    async branch(index, branch, ids) {
      const out = new Map<string, number>();
      const idx = indexes.get(index);
      const models = indexes.models(index);
      for (let at = 0; at < ids.length; at += 500) {
        const chunk = ids.slice(at, at + 500);
        let result: EngineResult | null = null;
        if (branch === 'fulltext') result = seen(index, await shards.search(index, { ...restricted(chunk), lexicalWeight: 1 })).result;
        else if (branch === 'sparse' && models.sparse) {
          const dims = sparseQueryVector(idx, models.sparse.model, r.query, r.possibleLanguages, sparseParams);
          result = seen(index, await shards.search(index, { ...restricted(chunk), ...sparseEngineOptions(dims, sparseParams) })).result;
        } else if ((branch === 'short_document' || branch === 'binary') && models.dense) {
          const v = denseQueryVector(idx, models.dense.model, r.query, r.possibleLanguages);
          if (v) result = seen(index, await shards.searchVectors(index, { vector: v, method: 'exact', limit: chunk.length, filters: { ...(base.filters ?? {}), ids: [...chunk] }, passagesPerHit: 0 })).result;
        }
        for (const h of result?.hits ?? []) out.set(h.id, h.score);
      }
      return out;
    },
    citedBy: async (index, docs) => seen(index, await shards.citedBy(index, docs.map((d) => d.uris ?? []))).counts,
  };
}
