// A shard of the search index as the coordinator (the `api` role) sees it (issue 24, docs/scale.md
// "Scatter-gather", ADR 0201). Two calls per search, Elasticsearch's DFS-then-query:
//   1. stats(): the shard's share of the statistics the query is scored with (document counts, field
//      token totals, each query term's document frequency); the coordinator sums them over all shards;
//   2. search(): the shard's top k scored with those global statistics, its exact match count and its
//      timing; the coordinator merges the shards' top k by (score desc, id asc), the engine's own order.
// Then, for the page of hits, records(): the display records the shards' segments store (ADR 0280),
// or, folded into search() (`fetch`, ADR 0292), the records of each shard's top hits with its answer.
// Implementations: in-process (search/shard-searcher.ts: a shard's indexes in this process) and network:
// adapters/cluster/frame-shard-client.ts (the default: length-prefixed frames multiplexed on one
// persistent connection per search process, ADR 0291) and adapters/cluster/http-shard-client.ts (one
// HTTP request per call). One contract suite (test/contract/shard-client.test.ts) runs against all three.
import type { IndexName } from '../domain/document.js';
import type { CorpusStats, DocumentScoreParts, EngineQuery, EngineResult, Suggestion } from '../engine/index.js';

/** The engine query a shard runs: every option of EngineQuery that travels (not the trace clock, not the statistics). */
export type ShardQuery = Omit<EngineQuery, 'trace' | 'globalStats'> & {
  /** Collect the engine's trace (with the shard's own clock for timings). */
  trace?: boolean;
};

export interface ShardStatsRequest {
  index: IndexName;
  query: Pick<EngineQuery, 'text' | 'possibleLanguages' | 'expansion'>;
}

export interface ShardStatsResponse {
  shard: number;
  /** Which replica answered (a node URL, or `local` in-process). */
  node: string;
  stats: CorpusStats;
  /**
   * The stamp of the snapshot the statistics come from (ADR 0260): they hold exactly while the replica's
   * snapshot keeps this stamp, so a coordinator may keep them and send them again with `statsGeneration`.
   */
  generation?: string;
  /** Time the shard spent, microseconds. */
  us: number;
}

export interface ShardSearchRequest {
  index: IndexName;
  query: ShardQuery;
  /** The corpus statistics summed over every shard (from the stats phase). */
  globalStats: CorpusStats;
  /**
   * Set when globalStats were summed from statistics the coordinator kept (ADR 0260): the stamp this
   * replica's share had. The replica searches only if its snapshot still has this stamp and globalStats
   * has a frequency for every term of the query; otherwise it answers `stale` (and does not search).
   */
  statsGeneration?: string;
  /**
   * The fetch phase folded into the query phase (ADR 0292, as Elasticsearch's query_and_fetch): the
   * stored display records of the shard's top `hits` hits come with the answer (`records`), except those
   * of hits with a body passage among their first `skipBodyPassages` passages (their record comes with
   * their body text from the store). Absent: no records.
   */
  fetch?: ShardFetch;
}

/** Which hits' stored records a search answer carries (ADR 0292). */
export interface ShardFetch {
  hits: number;
  skipBodyPassages?: number;
}

/** The ids of a shard's hits whose records `fetch` asks for (the shard's and the coordinator's one rule). */
export function fetchedIds(hits: readonly { id: string; passages: readonly { field: string }[] }[], fetch: ShardFetch): string[] {
  const skip = fetch.skipBodyPassages ?? 0;
  const out: string[] = [];
  for (const h of hits.slice(0, fetch.hits)) if (skip === 0 || !h.passages.slice(0, skip).some((p) => p.field === 'body')) out.push(h.id);
  return out;
}

export interface ShardSearchResponse {
  shard: number;
  node: string;
  /** The shard's ranking from offset 0: hits with scores, passages, work keys (and explanations, issue times). */
  result: EngineResult;
  /**
   * Present (and `result` empty) when the request's `statsGeneration` no longer holds: the replica's
   * statistics for the query now, and their stamp. The coordinator sums them again and asks again.
   */
  stale?: { stats: CorpusStats; generation: string };
  /**
   * With `fetch`: the stored display records (JSON text, as `records()` answers) of the hits `fetchedIds`
   * names; an id among them without a record here has none on this shard.
   */
  records?: Record<string, string>;
  /** Time the shard's engine spent, microseconds. */
  us: number;
}

/**
 * The dense channels' call (`short_document`, `binary`; issue 24, ADR 0246): the query vector computed at
 * the coordinator, the shard's top k of its documents' vectors. Vectors and cosine scores are per
 * document (no corpus statistics), so merging the shards' top k by (score desc, id asc) is one index's.
 */
export interface ShardVectorRequest {
  index: IndexName;
  query: {
    /** The unit query vector (float32 values; JSON numbers over HTTP, exact both ways). */
    vector: number[];
    method: 'exact' | 'binary' | 'auto';
    limit: number;
    filters?: EngineQuery['filters'];
    collapseByWorkKey?: boolean;
    passagesPerHit?: number;
    rescore?: number;
  };
}

export interface ShardVectorResponse {
  shard: number;
  node: string;
  /** The shard's dense top k from offset 0, with what it scanned and rescored. */
  result: EngineResult & { scanned: number; missingSegments: number; method: string; rescored: number };
  us: number;
}

/** `similar`'s first call (ADR 0246): the stored vector of one document, asked of the shard its work routes to. */
export interface ShardDocumentVectorRequest {
  index: IndexName;
  id: string;
}

export interface ShardDocumentVectorResponse {
  shard: number;
  node: string;
  /** The document's vector under the shard's dense model (null: not indexed there yet, or no model). */
  vector: number[] | null;
  us: number;
}

/** The spelling call (ADR 0247): the shard's dictionary candidates of index terms no shard holds. */
export interface ShardSuggestRequest {
  index: IndexName;
  terms: string[];
  /** Candidates per term (the coordinator sums document frequencies over shards, then picks). */
  limit: number;
}

export interface ShardSuggestResponse {
  shard: number;
  node: string;
  suggestions: Record<string, Suggestion[]>;
  us: number;
}

/** The ranking stages' lexical features (ADR 0248): score parts of candidates, with the corpus's statistics. */
export interface ShardScorePartsRequest {
  index: IndexName;
  query: Pick<EngineQuery, 'text' | 'possibleLanguages' | 'phraseBoost'>;
  globalStats: CorpusStats;
  /** Candidate ids; those the shard does not hold are absent from the answer. */
  ids: string[];
}

export interface ShardScorePartsResponse {
  shard: number;
  node: string;
  parts: Record<string, DocumentScoreParts>;
  us: number;
}

/**
 * The `cited_by` feature's call (ADR 0265): for each document (its canonical URIs), how many records of the
 * shard cite it. One call carries every candidate of a request, so a pool costs one scatter, not one per
 * candidate; the coordinator sums the shards' counts (a citing record lives on one shard).
 */
export interface ShardCitedByRequest {
  index: IndexName;
  /** One entry per document: its canonical URIs (an empty list counts 0). */
  uriSets: string[][];
}

export interface ShardCitedByResponse {
  shard: number;
  node: string;
  /** counts[i]: the shard's records citing uriSets[i] (as SearchIndex.search's exact total with `filters.citing`). */
  counts: number[];
  us: number;
}

/**
 * The fetch phase (issue 29, ADR 0280): the display records the shard's segments store for these ids, so
 * a page of hits needs no database read of them. Ids the shard does not hold (or holds without a record)
 * are absent.
 */
export interface ShardRecordsRequest {
  index: IndexName;
  ids: string[];
}

export interface ShardRecordsResponse {
  shard: number;
  node: string;
  /** Each record as the JSON text the index stores (search/stored-display.ts). */
  records: Record<string, string>;
  us: number;
}

/** Per-call options. */
export interface ShardCallOptions {
  /** Aborts the call (the coordinator's hedge or deadline); the promise then rejects. */
  signal?: AbortSignal;
}

/** One replica of one shard. Calls reject (never hang past their signal) when the replica cannot answer. */
export interface ShardClient {
  /** The shard this replica holds (0-based). */
  readonly shard: number;
  /** The replica's identity in traces: its URL, or `local`. */
  readonly node: string;
  stats(req: ShardStatsRequest, opts?: ShardCallOptions): Promise<ShardStatsResponse>;
  search(req: ShardSearchRequest, opts?: ShardCallOptions): Promise<ShardSearchResponse>;
  /** The shard's dense top k (ADR 0246). */
  vectors(req: ShardVectorRequest, opts?: ShardCallOptions): Promise<ShardVectorResponse>;
  /** One document's stored vector (`similar`, ADR 0246). */
  documentVector(req: ShardDocumentVectorRequest, opts?: ShardCallOptions): Promise<ShardDocumentVectorResponse>;
  /** Dictionary candidates for spelling (ADR 0247). */
  suggest(req: ShardSuggestRequest, opts?: ShardCallOptions): Promise<ShardSuggestResponse>;
  /** Lexical score parts of candidates (ranking features, ADR 0248). */
  scoreParts(req: ShardScorePartsRequest, opts?: ShardCallOptions): Promise<ShardScorePartsResponse>;
  /** Citing-record counts of many documents at once (`cited_by`, ADR 0265). */
  citedBy(req: ShardCitedByRequest, opts?: ShardCallOptions): Promise<ShardCitedByResponse>;
  /** The stored display records of ids (the fetch phase, ADR 0280). */
  records(req: ShardRecordsRequest, opts?: ShardCallOptions): Promise<ShardRecordsResponse>;
  /** Releases what the client holds (kept-alive connections); calls after it may fail. */
  close?(): void;
}

/**
 * Where the replicas of each shard are: static configuration today, the cluster's membership (JetStream
 * KV) when a cluster runs. `replicas(s)` lists shard s's live replicas in preference order.
 */
export interface ShardDirectory {
  /** Number of shards S of the cluster. */
  readonly shards: number;
  replicas(shard: number): readonly ShardClient[];
}
