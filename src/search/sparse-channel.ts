// The sparse channel of one index (docs/search.md): with the corpus-trained expansion, multi-query BM25F
// retrieval (the query and one sub-query per generated term, combined: ADR 0107); with an operator's
// SPLADE-style model, the SPLADE dot product of the query's vector with the documents' vectors in the
// index's impact files (ADR 0109), segments not encoded yet reported in the trace.
import { performance } from 'node:perf_hooks';
import type { EngineQuery, EngineResult, SearchIndex } from '../engine/index.js';
import { sparseEngineOptions, type SparseParams } from './channels.js';
import { multiQuerySearch, multiQuerySearchWith, type CombinerParams, type DeferredPassages } from './multi-query.js';
import type { SparseModel } from './sparse-model.js';

export interface SparseRun {
  result: EngineResult;
  /** Query encoding / expansion time, µs. */
  embedUs: number;
  /** Retrieval time, µs. */
  us: number;
  detail: Record<string, unknown>;
  /** With `deferPassages`: the hits only an expansion sub-query found, their passages not taken yet (ADR 0311). */
  deferred?: DeferredPassages | null;
}

/**
 * `shared`: the fulltext channel's result for `base` when it ran (the query's own pass, not run twice).
 * `sharded`: a cluster's coordinator (ADR 0246): the corpus expansion's engine searches (the query and
 * each sub-query) go to the shards with global statistics instead of `index`; `index` and the model
 * still make the query vector (analysis and the model's term embeddings, no corpus statistics).
 * `deferPassages` (corpus expansion only): the hits only a sub-query found are returned in `deferred`
 * without passages (hybrid, when the sparse vote nominates nothing: ADR 0311).
 */
export async function runSparseChannel(model: SparseModel, index: SearchIndex, base: EngineQuery, text: string, languages: string[] | null, p: SparseParams, combiner: CombinerParams, shared: EngineResult | null = null, sharded?: (q: EngineQuery) => Promise<EngineResult>, deferPassages = false): Promise<SparseRun> {
  const t0 = performance.now();
  const heapFactor = sparseEngineOptions([], p).heapFactor;
  if (model.tokenVector) {
    const { row, tokens } = await model.tokenVector(text, p);
    const t1 = performance.now();
    const r = index.searchImpacts({ query: row, limit: base.limit ?? 10, ...(base.filters ? { filters: base.filters } : {}), collapseByWorkKey: base.collapseByWorkKey ?? false, passagesPerHit: base.passagesPerHit ?? 3, heapFactor });
    const t2 = performance.now();
    return {
      result: r,
      embedUs: (t1 - t0) * 1000,
      us: (t2 - t1) * 1000,
      detail: {
        model_sha256: model.id,
        model: 'onnx sparse encoder (SPLADE): query . document vectors',
        dims: tokens.map((d) => ({ term: d.token, weight: Number(d.weight.toFixed(4)), generated: true })),
        heap_factor: heapFactor,
        tokens_read: r.tokensRead,
        tokens_pruned: r.tokensPruned,
        segments_without_impacts: r.missingSegments,
        combiner: 'not used: one SPLADE query vector',
        ...(r.missingSegments > 0 ? { note: 'documents of segments not yet encoded by the sparse model cannot be found by this channel (lectern models encode)' } : {}),
      },
    };
  }
  const dims = await model.queryVector!(index, text, languages, p);
  const t1 = performance.now();
  const { result, subQueries, deferred } = sharded ? await multiQuerySearchWith(sharded, base, dims, heapFactor, combiner, shared, deferPassages) : multiQuerySearch(index, base, dims, heapFactor, combiner, shared, deferPassages);
  const t2 = performance.now();
  return {
    result,
    embedUs: (t1 - t0) * 1000,
    us: (t2 - t1) * 1000,
    deferred,
    detail: {
      model_sha256: model.id,
      model: 'corpus-trained expansion',
      dims: dims.map((d) => ({ term: d.term, weight: Number(d.weight.toFixed(4)), generated: !d.own })),
      heap_factor: heapFactor,
      evaluation: 'multi-query (ADR 0107)',
      sub_queries: subQueries,
      shared_pass: shared !== null,
      combiner: { name: combiner.combiner, decay: combiner.decay, temperature: combiner.temperature, top_k: combiner.topK },
    },
  };
}
