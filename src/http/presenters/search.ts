// Wire translation for search: SearchRequestV2 -> SearchRequest, SearchResult -> V2SearchResponse.
import type { SnippetWindow } from '../../engine/index.js';
import type { SearchRequest, SearchResult } from '../../search/search-types.js';
import type { SearchRequestV2, V2SearchResponse } from '../schemas/search.js';
import { toWireDocument } from './document.js';

export function toSearchRequest(b: SearchRequestV2): SearchRequest {
  return {
    query: b.query,
    mode: b.mode ?? 'hybrid',
    rankingMode: b.ranking_mode ?? 'auto',
    indexNames: b.index_names,
    limit: b.limit,
    offset: b.offset,
    returnDocuments: b.return_documents,
    deduplicate: b.deduplicate,
    filters: {
      issns: b.filter_issns ?? null,
      languages: b.filter_languages ?? null,
      types: b.filter_types ?? null,
      uriPrefixes: b.filter_uri_prefixes ?? null,
      publisher: b.filter_publisher ?? null,
      issuedAfter: b.filter_issued_after ?? null,
      issuedBefore: b.filter_issued_before ?? null,
    },
    referencedBy: b.referenced_by_uri ?? null,
    possibleLanguages: b.possible_languages ?? null,
    crossRerank: b.cross_rerank,
    candidateRanking: b.candidate_ranking ?? null,
    l2Rerank: b.l2_rerank ?? null,
    l1Formula: b.l1?.formula ?? null,
    fulltextWeight: b.fulltext_weight ?? null,
    phraseBoost: b.fulltext_phrase_boost ?? null,
    rrfK: b.rrf_k ?? null,
    sparseNomination: b.sparse_nomination ?? null,
    binaryPool: b.binary_pool,
    documentDiscovery: b.document_discovery ?? null,
    includeRrfScores: b.include_rrf_scores ?? false,
    tracing: b.tracing ?? false,
    maxQueryDims: b.max_query_dims,
    weightThreshold: b.weight_threshold,
    pruning: b.pruning ?? null,
    heapFactor: b.heap_factor ?? null,
    combiner: b.combiner,
    combinerDecay: b.combiner_decay,
    combinerTemperature: b.combiner_temperature,
    combinerTopK: b.combiner_top_k,
  };
}

export function toWireSnippet(s: SnippetWindow) {
  return {
    field: s.field,
    text: s.text,
    chunk_id: s.chunkId,
    score: s.score,
    evidence: null,
    source: { start_char: s.source.startChar, end_char: s.source.endChar, field_length: s.source.fieldLength },
    highlights: s.highlights.map((h): [number, number] => [h.start, h.end]),
  };
}

export function toSearchResponse(r: SearchResult, baseUrl: string): V2SearchResponse {
  const out: V2SearchResponse = {
    ranking_mode: r.rankingMode,
    hits: r.hits.map((h) => ({
      id: h.id,
      score: h.score,
      snippets: h.snippets.map(toWireSnippet),
      document: h.doc ? toWireDocument(h.doc, baseUrl) : null,
      candidate_scores: null,
      rrf: h.rrf ? { score: h.rrf.score, contributions: h.rrf.contributions.map((c) => ({ ...c })) } : null,
    })),
    total_hits: r.totalHits,
    has_next: r.hasNext,
    corrected_query: r.correctedQuery,
    embed_ms: r.embedMs,
    timings: { search_us: r.timings.searchUs, load_us: r.timings.loadUs, total_us: r.timings.totalUs },
    trajectory: r.trajectory ? { id: r.trajectory.id, feedback_token: r.trajectory.feedbackToken } : null,
    candidate_ranking: null,
  };
  if (r.traces) {
    const explained = r.hits.filter((h) => h.explanation).map((h) => ({ id: h.id, explanation: h.explanation }));
    out.retrieval_traces = [...r.traces, ...(explained.length ? [{ branch: 'explain', hits: explained }] : [])];
  }
  return out;
}
