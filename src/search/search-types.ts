// The search capability's request and result (camelCase domain values; `http/` translates the wire).
import type { IndexName, StoredDocument } from '../domain/document.js';
import type { DisplayDocument } from '../domain/display-document.js';
import type { Explanation, SnippetWindow } from '../engine/index.js';
import type { CandidateRankingValue, CandidateScoresValue, SnippetEvidenceValue } from '../ranking/info.js';

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
  /** The `l1` formula (FormulaRanking; docs/ranking.md), its backfill flag and missing-value defaults. */
  l1Formula: string | null;
  l1Backfill: boolean;
  l1MissingValues: Record<string, number> | null;
  /** 0: the configured default. */
  crossRerankCandidates: number;
  /** Return the candidates' features (CandidateScores) with the hits. */
  includeCandidateScores: boolean;
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
  /** Multi-query combiner of the sparse channel's sub-queries (docs/search.md, ADR 0107). */
  combiner: 'log_sum_exp' | 'max' | 'sum';
  combinerDecay: number;
  combinerTemperature: number;
  combinerTopK: number;
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
  /** The candidate's features (include_candidate_scores). */
  candidateScores?: CandidateScoresValue | null;
  /** Per snippet (same order): the window the cross-encoder chose, or null. */
  evidence?: (SnippetEvidenceValue | null)[];
}

export interface SearchResult {
  rankingMode: 'documents' | 'passages';
  hits: SearchHit[];
  totalHits: number;
  hasNext: boolean;
  correctedQuery: string | null;
  /** Time spent embedding/expanding the query, ms (null when no model-backed channel ran). */
  embedMs: number | null;
  timings: { searchUs: number; loadUs: number; totalUs: number; stages?: SearchStages };
  trajectory: { id: string; feedbackToken: string } | null;
  traces: unknown[] | null;
  /** Credits charged. */
  cost: number;
  /**
   * The hits already encoded by the caller's hit encoder (ADR 0150: a search thread serializes the
   * page for the HTTP route); `hits` is then empty. Only when the caller asked for it (SearchOptions).
   */
  encodedHits?: EncodedHits | null;
  /** What ranked the candidates (null when no ranking stage ran). */
  candidateRanking?: CandidateRankingValue | null;
  /** The ranking stages that ran, with their timings (empty when none ran). */
  rankingStages?: { stage: string; us: number }[];
  /** Present when shards did not answer (cluster `api` role): the result is partial. */
  partial?: PartialResults;
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
    l1Backfill: false,
    l1MissingValues: null,
    crossRerankCandidates: 0,
    includeCandidateScores: false,
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
    combinerDecay: 0.7,
    combinerTemperature: 1.5,
    combinerTopK: 3,
    ...rest,
    filters: { issns: null, languages: null, types: null, uriPrefixes: null, publisher: null, issuedAfter: null, issuedBefore: null, ...filters },
  };
}

/**
 * The work of a search between its credit hold and its charge: plan, channels, fusion, records and
 * snippets. It runs in a search thread when the service has them (ADR 0110), else in the caller's.
 */
export interface SearchExecution {
  rankingMode: 'documents' | 'passages';
  hits: SearchHit[];
  totalHits: number;
  hasNext: boolean;
  correctedQuery: string | null;
  embedMs: number | null;
  traces: unknown[] | null;
  /** Stage times, microseconds: engine (channels + fusion), records (loading documents), snippets. */
  engineUs: number;
  recordsUs: number;
  snippetsUs: number;
  /** Time the search waited for a search thread (0 in-process), microseconds. */
  queueUs: number;
  /** What the ranking stages did (docs/ranking.md); null/empty when none ran. */
  candidateRanking: CandidateRankingValue | null;
  rankingStages: { stage: string; us: number }[];
  /** The hits encoded by the thread's hit encoder (then `hits` is empty); see {@link SearchResult.encodedHits}. */
  encodedHits?: EncodedHits | null;
  /** Present when shards did not answer (cluster `api` role): see {@link PartialResults}. */
  partial?: PartialResults;
}

/**
 * A sharded search some of whose shards had no live replica (issue 24, ADR 0202): the hits and totals
 * come from the other shards only. `shards`: shards per index; `missing`: the shards left out.
 */
export interface PartialResults {
  shards: number;
  missing: { index: string; shard: number }[];
}

/**
 * A page of hits encoded where they were found (ADR 0150): `bytes` is what the caller's encoder made of
 * the hits (the HTTP route's: the JSON array of V2Hit, UTF-8); `ids` are the hits' document ids in order
 * (billing counts them, `shown` activity records them).
 */
export interface EncodedHits {
  bytes: Uint8Array;
  ids: string[];
}

/**
 * Encodes a page of hits (the HTTP presenter's, given to the search threads by their entry point). The
 * view may leave up to {@link HIT_ENCODER_HEAD_ROOM} bytes before it and {@link HIT_ENCODER_TAIL_ROOM}
 * after it in its buffer, which then holds nothing else (it is transferred whole: ADR 0375).
 */
export type HitEncoder = (hits: readonly SearchHit[]) => Uint8Array;

/** Room a {@link HitEncoder}'s buffer may leave before the hits (the response envelope's text goes there, ADR 0375). */
export const HIT_ENCODER_HEAD_ROOM = 64;
/** Room a {@link HitEncoder}'s buffer may leave after the hits. */
export const HIT_ENCODER_TAIL_ROOM = 2048;

/**
 * Whether `bytes` is laid out as a {@link HitEncoder} with room makes it: its own buffer, the hits
 * {@link HIT_ENCODER_HEAD_ROOM} bytes in, {@link HIT_ENCODER_TAIL_ROOM} after them, nothing else (ADR 0375).
 */
export function inHitEncoderRoom(bytes: Uint8Array): boolean {
  return bytes.buffer instanceof ArrayBuffer && bytes.byteOffset === HIT_ENCODER_HEAD_ROOM && bytes.buffer.byteLength === HIT_ENCODER_HEAD_ROOM + bytes.byteLength + HIT_ENCODER_TAIL_ROOM;
}

/** Runs {@link SearchExecution}s (in-process or on search threads). */
export interface SearchExecutor {
  /**
   * `nowMs`: the clock reading of the thread that took the request (features such as age use it).
   * `encodeHits`: the caller wants the hits encoded by the executor's {@link HitEncoder} (an executor
   * without one returns them as objects).
   * `light`: the search is its account's only one in a turn (FairScheduler, ADR 0270): an executor with
   * a reserved lane may run it there while other accounts' searches hold the general ones.
   */
  execute(r: SearchRequest, nowMs: number, encodeHits?: boolean, light?: boolean): Promise<SearchExecution>;
  /** Searches sent and not answered yet (absent: unknown, never idle for inline searches, ADR 0326). */
  readonly inflight?: number;
  /** Whether the executor paces its searches now (ADR 0244): no inline search then. */
  readonly pacing?: boolean;
}

/** Stage times of one search, microseconds (the /metrics stage histograms; ADR 0112). */
export interface SearchStages {
  engineUs: number;
  recordsUs: number;
  snippetsUs: number;
  billingUs: number;
  queueUs: number;
}
