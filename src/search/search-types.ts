// The search capability's request and result (camelCase domain values; `http/` translates the wire).
import type { IndexName, StoredDocument } from '../domain/document.js';
import type { DisplayDocument } from '../domain/display-document.js';
import type { Explanation, SnippetWindow } from '../engine/index.js';

export type SearchMode = 'sparse' | 'short_document' | 'binary' | 'hybrid' | 'fulltext';

export interface SearchRequest {
  query: string;
  mode: SearchMode;
  rankingMode: 'auto' | 'documents' | 'passages';
  indexNames: string[];
  limit: number;
  offset: number;
  returnDocuments: boolean;
  deduplicate: boolean;
  filters: {
    issns: string[] | null;
    languages: string[] | null;
    types: string[] | null;
    uriPrefixes: string[] | null;
    publisher: string | null;
    issuedAfter: number | null;
    issuedBefore: number | null;
  };
  referencedBy: string | string[] | null;
  possibleLanguages: string[] | null;
  crossRerank: boolean;
  candidateRanking: 'auto' | 'rrf' | 'formula' | null;
  l2Rerank: 'auto' | 'off' | 'catboost' | null;
  /** A formula (the `l1` field); its presence needs the ranking pipeline. */
  l1Formula: string | null;
  fulltextWeight: number | null;
  phraseBoost: number | null;
  rrfK: number | null;
  sparseNomination: boolean | null;
  binaryPool: boolean;
  documentDiscovery: boolean | null;
  includeRrfScores: boolean;
  tracing: boolean;
  /** Sparse query vector (docs/search.md): dimensions (0 = service default), thresholds, pruning. */
  maxQueryDims: number;
  weightThreshold: number;
  pruning: number | null;
  heapFactor: number | null;
  /** Multi-query combiner (no effect: a search has one query; docs/search.md). */
  combiner: 'log_sum_exp' | 'max' | 'sum';
}

export interface RrfContribution {
  channel: string;
  rank: number;
  weight: number;
  contribution: number;
}

/** A hit; `doc` is the display record for searches (ADR 0135), the whole stored record for retrieve(). */
export interface SearchHit<D extends StoredDocument | DisplayDocument = StoredDocument | DisplayDocument> {
  id: string;
  index: IndexName;
  score: number;
  snippets: SnippetWindow[];
  /** Null when return_documents is false. */
  doc: D | null;
  rrf: { score: number; contributions: RrfContribution[] } | null;
  explanation?: Explanation;
}

export interface SearchResult {
  rankingMode: 'documents' | 'passages';
  hits: SearchHit[];
  totalHits: number;
  hasNext: boolean;
  correctedQuery: string | null;
  /** Time spent embedding/expanding the query, ms (null when no model-backed channel ran). */
  embedMs: number | null;
  timings: { searchUs: number; loadUs: number; totalUs: number };
  trajectory: { id: string; feedbackToken: string } | null;
  traces: unknown[] | null;
  /** Credits charged. */
  cost: number;
}

/**
 * A SearchRequest with the HTTP API's defaults (SearchRequestV2: hybrid, auto ranking, 10 hits, documents
 * index, deduplicated, no filters), with `overrides` applied; `filters` merge over the empty filters.
 */
export function defaultSearchRequest(overrides: Omit<Partial<SearchRequest>, 'filters'> & { filters?: Partial<SearchRequest['filters']> } = {}): SearchRequest {
  const { filters, ...rest } = overrides;
  return {
    query: '',
    mode: 'hybrid',
    rankingMode: 'auto',
    indexNames: ['documents'],
    limit: 10,
    offset: 0,
    returnDocuments: true,
    deduplicate: true,
    referencedBy: null,
    possibleLanguages: null,
    crossRerank: true,
    candidateRanking: null,
    l2Rerank: null,
    l1Formula: null,
    fulltextWeight: null,
    phraseBoost: null,
    rrfK: null,
    sparseNomination: null,
    binaryPool: false,
    documentDiscovery: null,
    includeRrfScores: false,
    tracing: false,
    maxQueryDims: 0,
    weightThreshold: 0,
    pruning: null,
    heapFactor: 0.85,
    combiner: 'log_sum_exp',
    ...rest,
    filters: { issns: null, languages: null, types: null, uriPrefixes: null, publisher: null, issuedAfter: null, issuedBefore: null, ...filters },
  };
}
