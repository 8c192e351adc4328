// Public value types of the engine: what the host indexes, asks and gets back. No behaviour here.

/** Indexed text fields, in their fixed order (field ordinal 0, 1, 2). */
export const FIELDS = ['title', 'abstract', 'body'] as const;
/** One of {@link FIELDS}. */
export type FieldName = (typeof FIELDS)[number];

/** A document as the host hands it to {@link SearchIndex.add}. Unknown/absent values may be null. */
export interface IndexDocument {
  /** External id, unique within an index (re-adding an id replaces the document). Non-empty. */
  id: string;
  title: string;
  abstract?: string | null;
  body?: string | null;
  /** ISO 639-1 language of the text (`en`, `de-AT`, ...): chooses stemmer and stopwords; null = index default. */
  language?: string | null;
  /** Document type (`journal-article`, ...), matched exactly (case-sensitive) by the `types` filter. */
  type?: string | null;
  /** Issue time, Unix seconds (may be negative); null = unknown (never matches a time filter). */
  issuedAt?: number | null;
  /** Publisher name, matched exactly but case-insensitively by the `publisher` filter. */
  publisher?: string | null;
  /** ISSNs (`1234-5678`), matched exactly (case-insensitive). */
  issns?: string[];
  /** The document's canonical URIs (`doi://...`, `arxiv://...`), for `uriPrefixes`. */
  uris?: string[];
  /** Canonical URIs of the works this document cites: the citation graph behind the `citing` filter. */
  references?: string[];
  /** Key of the work this record belongs to; hits sharing it collapse under `collapseByWorkKey`. */
  workKey?: string | null;
  /**
   * Bytes the host wants back for this document ({@link SearchIndex.stored}): kept in the segments,
   * compressed in blocks, never interpreted (stored fields, ADR 0280). Null/absent: none.
   */
  stored?: Uint8Array | null;
}

/** Per-field BM25F weights (>= 0). Defaults: {@link DEFAULT_FIELD_WEIGHTS}. */
export interface FieldWeights {
  title?: number;
  abstract?: number;
  body?: number;
}

/** Filters; every present filter must hold (AND); values inside one filter are alternatives (OR). */
export interface EngineFilters {
  /** Document types, exact match. */
  types?: string[] | null;
  /** ISO 639-1 codes; compared on the primary subtag, case-insensitively (documents without a language never match). */
  languages?: string[] | null;
  /** ISSNs, exact (case-insensitive). */
  issns?: string[] | null;
  /** Publisher, exact but case-insensitive. */
  publisher?: string | null;
  /** Inclusive lower bound on `issuedAt`, Unix seconds. */
  issuedAfter?: number | null;
  /** Inclusive upper bound on `issuedAt`, Unix seconds. */
  issuedBefore?: number | null;
  /** Any of the document's URIs starts with any of these prefixes. */
  uriPrefixes?: string[] | null;
  /** Documents whose references include any of these canonical URIs (documents citing them). */
  citing?: string[] | null;
  /** Restrict to these external ids (in-document passage search). */
  ids?: string[] | null;
}

/** Resolved ranking objective. */
export type RankingMode = 'documents' | 'passages';

/** A search request. All numbers are validated and clamped by {@link SearchIndex.search}. */
export interface EngineQuery {
  /** Raw query text (<= 16 KiB advised). Quoted spans ("…", “…”, «…») are required phrases. Empty = filter-only. */
  text: string;
  /** Language hints for query analysis (ISO 639-1); default: the index's default language. At most 4 used. */
  possibleLanguages?: string[] | null;
  /** `documents`, `passages` or `auto` (default; see {@link resolveRankingMode}). */
  rankingMode?: RankingMode | 'auto';
  /** Hits to return, 1..500, default 10. */
  limit?: number;
  /** Hits to skip, 0..499, default 0; offset + limit <= 500. */
  offset?: number;
  /** Phrase bonus multiplier, 0..10, default 1; 0 keeps the phrase constraint but adds no bonus. */
  phraseBoost?: number;
  /** Multiplies every lexical score, 0..10, default 1 (0 still returns matches, all scored 0). */
  lexicalWeight?: number;
  /** Per-field BM25F weights; absent fields keep their defaults. */
  fieldWeights?: FieldWeights;
  /**
   * Weight of the term-proximity bonus for unquoted multi-word queries, 0..10; default: the index's
   * `proximityWeight` option. The bonus re-ranks the first max(100, offset + limit + 1) documents.
   */
  proximityWeight?: number;
  filters?: EngineFilters;
  /** Keep only the best hit of each `workKey` (default false). */
  collapseByWorkKey?: boolean;
  /** Attach an {@link Explanation} tree to each hit (default false). */
  explain?: boolean;
  /** Count matches exactly even when that needs a full counting pass (default false: see `totalHitsExact`). */
  exactTotal?: boolean;
  /** Passages returned per hit, 0..10, default 3. */
  passagesPerHit?: number;
  /** Collect a trace; `now` (any monotonic clock, e.g. microseconds) adds timings. */
  trace?: boolean | { now: () => number };
  /**
   * Extra weighted index terms (already analysed, e.g. a learned query expansion), each scored as one
   * more BM25F clause with this weight (0 < weight <= 10), after the query's own words.
   */
  expansion?: readonly { term: string; weight: number }[];
  /**
   * Approximate pruning for weighted (expanded) queries, (0, 1]: dynamic pruning compares bounds with
   * theta / heapFactor instead of theta (1 = exact; smaller skips more candidates). Default 1.
   */
  heapFactor?: number;
  /** Debug/oracle: disable dynamic pruning and score every match (same results, slower). */
  exhaustive?: boolean;
  /** A/B and oracle: false ignores the segments' pair postings for phrases (same results, slower; ADR 0175). */
  phrasePairs?: boolean;
  /**
   * A/B and oracle: false ignores the segments' champion lists (ADR 0329), which seed the word queries'
   * pruning threshold (same results, slower).
   */
  champions?: boolean;
  /**
   * Pruned evaluation of long queries (query-budget.ts, ADR 0231): the most common unquoted words are
   * left out until the query has at most `maxTerms` distinct terms and `maxPostings` postings in this
   * index; the result's `pruned` says what was left out.
   */
  budget?: { maxTerms: number; maxPostings: number };
  /**
   * Most query words (clauses, by weight: idf x word weight) the per-hit work reads: passages, snippets'
   * passage scores, MaxP and the proximity re-rank. Unset: all. The result's `pruned` says when it applied.
   */
  maxPassageTerms?: number;
  /**
   * Scoring statistics of the whole corpus when this index is one shard of it (the DFS phase: ADR 0201):
   * documents are scored with these counts instead of this index's own, so a shard's score of a document
   * equals the score one index holding the whole corpus gives it. Absent: this index's own statistics.
   */
  globalStats?: CorpusStats;
  /**
   * `passages` ranking of one shard of a sharded search: the last document (score, id) of the corpus's
   * first stage (its BM25 top max(200, offset + limit + 1)); first-stage hits ranked after it are not
   * re-ranked by passages, as one index over the whole corpus would not have re-ranked them (ADR 0202).
   */
  firstStageCutoff?: { score: number; id: string };
}

/**
 * The corpus statistics BM25F scores with, for one query: summed over shards they give the statistics of
 * the union (every count is an integer sum, so the sum is exact and the scores are bit-identical).
 */
export interface CorpusStats {
  /** Live documents (the N of idf). */
  docCount: number;
  /** Documents in the segments, deleted ones included (the denominator of the average field lengths). */
  segmentDocs: number;
  /** Indexed tokens per field (title, abstract, body) over the segments' documents. */
  fieldTotals: [number, number, number];
  /** Document frequency of every index term of the query (words, phrase slots, expansion terms; 0 when absent). */
  df: Record<string, number>;
}

/** A passage (chunk) of a hit: where it is and how it scored. Offsets are Unicode code points. */
export interface PassageHit {
  /** Stable chunk id within the document (0-based, in field order title, abstract, body). */
  chunkId: number;
  field: FieldName;
  /** Start offset in the field text, code points. */
  startChar: number;
  /** End offset (exclusive), code points. */
  endChar: number;
  /** Length of the whole field text, code points. */
  fieldLength: number;
  /** Passage score (BM25 over the chunk plus the phrase bonus); 0 when the chunk is a fallback. */
  score: number;
}

/** A score explanation tree (the value of a node is computed from its details as its description says). */
export interface Explanation {
  value: number;
  description: string;
  details: Explanation[];
}

/** One ranked hit. */
export interface EngineHit {
  id: string;
  score: number;
  /** Best passages first (at most `passagesPerHit`); in `documents` mode too, as snippet anchors. */
  passages: PassageHit[];
  workKey: string | null;
  explanation?: Explanation;
}

/** Counters and optional timings of one search (bounded: one entry per segment, at most 64). */
export interface EngineTrace {
  segments: { docs: number; scored: number; candidates: number; skippedBlocks: number; us?: number }[];
  parseUs?: number;
  passagesUs?: number;
  totalUs?: number;
  /** Query terms after analysis, with their document frequencies. */
  terms: { term: string; df: number }[];
  notes: string[];
  /** The pruning threshold's seed from the segments' champion lists (ADR 0329), when there was one. */
  championFloor?: number;
}

/** What a search returns. */
export interface EngineResult {
  /** Hits `offset .. offset+limit-1` of the ranking. */
  hits: EngineHit[];
  /** Number of matching documents: exact when `totalHitsExact`, otherwise a lower bound. Never below offset+hits. */
  totalHits: number;
  totalHitsExact: boolean;
  /** True iff at least one more hit exists beyond `offset + limit` (always exact). */
  hasMore: boolean;
  /** The resolved ranking mode. */
  rankingMode: RankingMode;
  trace?: EngineTrace;
  /**
   * Filter-only listings (no query terms; newest first): each hit's issue time in the order of `hits`
   * (Unix seconds, null unknown): the sort key a merge of several shards' listings needs.
   */
  issued?: (number | null)[];
  /** Present when the evaluation was pruned (EngineQuery `budget`, `maxPassageTerms`). */
  pruned?: EnginePruning;
}

/** What a pruned evaluation left out (ADR 0231). */
export interface EnginePruning {
  /** Index terms left out of the query (most common first). */
  droppedTerms: string[];
  /** Distinct terms and postings evaluated. */
  terms: number;
  postings: number;
  /** Clauses the per-hit work (passages, proximity) read, when fewer than the query's. */
  passageTerms: number | null;
  /** The query's clauses. */
  clauses: number;
}
