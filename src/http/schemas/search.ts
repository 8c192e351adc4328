// Search request and response (interface: SearchRequestV2, V2SearchResponse and their parts).
import { Type, type Static } from 'typebox';
import { Double, Int32, Int64, Nullable, StringMap, documentSlot, ref } from './common.js';

export const SearchMode = Type.Union(
  [Type.Literal('sparse'), Type.Literal('short_document'), Type.Literal('binary'), Type.Literal('hybrid'), Type.Literal('fulltext')],
  { $id: 'SearchMode', description: 'Retrieval strategy.' },
);
export const RankingMode = Type.Union([Type.Literal('auto'), Type.Literal('documents'), Type.Literal('passages')], {
  $id: 'RankingMode',
  description: 'Relevance objective; `auto` resolves to `documents` or `passages`.',
});
export const CandidateRanking = Type.Union([Type.Literal('auto'), Type.Literal('rrf'), Type.Literal('formula')], { $id: 'CandidateRanking' });
export const L2Rerank = Type.Union([Type.Literal('auto'), Type.Literal('off'), Type.Literal('catboost')], { $id: 'L2Rerank' });
export const PredictionTarget = Type.Union([Type.Literal('teacher_score')], { $id: 'PredictionTarget' });

export const FormulaRanking = Type.Object(
  {
    formula: Type.String({ minLength: 1, maxLength: 4096, description: 'Symbolic expression over named raw branch scores and the organic `rrf`.' }),
    backfill: Type.Optional(Type.Boolean({ description: 'Preserve organic scores and probe only missing cells when enabled.' })),
    missing_values: Type.Optional(StringMap(Double(), { description: 'Finite raw defaults for absent variables; an observed zero wins.' })),
  },
  { $id: 'FormulaRanking', additionalProperties: false, description: 'The l1 formula over the v1 features (docs/ranking.md); unknown features and absent branches are refused (422).' },
);

/** A list filter: null or absent means no restriction; an empty list is refused (docs/search.md, "Filters"). */
const stringList = (description: string, item: Record<string, unknown> = {}) =>
  Type.Optional(Nullable(Type.Array(Type.String({ maxLength: 1024, ...item }), { minItems: 1, maxItems: 256 }), { description: `${description} Omit it or send null for no restriction; an empty list is refused.` }));
/** ISO 639 language codes (two or three letters), optionally with BCP 47 subtags (`en`, `pt-BR`). */
const LANGUAGE_CODE = { pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$', maxLength: 35 };

export const SearchRequestV2 = Type.Object(
  {
    query: Type.String({
      default: '',
      maxLength: 16384,
      description:
        'At most 16 KiB UTF-8. A span in double quotes (straight, curly or guillemets) is a required ordered-token phrase with a lexical bonus; unquoted words guide relevance. Empty query may be combined with filters.',
    }),
    mode: Type.Optional(ref(SearchMode, { default: 'hybrid' })),
    ranking_mode: Type.Optional(ref(RankingMode, { default: 'auto' })),
    index_names: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 8, default: ['documents'], description: 'Public values `documents`, `social`.' }),
    limit: Int32({ minimum: 1, maximum: 500, default: 10 }),
    offset: Int32({ minimum: 0, maximum: 499, default: 0, description: '0 to 499; offset + limit must not exceed 500.' }),
    return_documents: Type.Boolean({ default: true, description: 'When false, only IDs and scores are returned (bulk ranking).' }),
    deduplicate: Type.Boolean({ default: true, description: 'Collapse records of one work.' }),
    filter_issns: stringList('Restrict to ISSNs.'),
    filter_languages: stringList('ISO 639 language codes (e.g. en, de).', LANGUAGE_CODE),
    filter_types: stringList('Document types.'),
    filter_uri_prefixes: stringList('Canonical URI prefixes.'),
    filter_publisher: Type.Optional(Nullable(Type.String({ maxLength: 1024 }), { description: 'Publisher.' })),
    filter_issued_after: Type.Optional(Nullable(Int64(), { description: 'Earliest issue time, Unix seconds.' })),
    filter_issued_before: Type.Optional(Nullable(Int64(), { description: 'Latest issue time, Unix seconds.' })),
    referenced_by_uri: Type.Optional(
      Type.Union([Type.Null(), Type.String({ minLength: 1, maxLength: 2048 }), Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), { minItems: 1, maxItems: 16 })], {
        description: 'Return documents citing this work: one `doi://` or `arxiv://` URI, or up to 16 identifiers of the same work.',
      }),
    ),
    possible_languages: stringList('Language hints for query processing (ISO 639 codes).', LANGUAGE_CODE),
    cross_rerank: Type.Boolean({ default: true, description: 'Final-stage cross-encoder reranker; no effect unless configured (docs/ranking.md).' }),
    cross_rerank_candidates: Int32({ minimum: 0, maximum: 256, default: 0, description: '0 uses the configured default; capped at the configured maximum; > 0 without a configured cross-encoder is refused (422).' }),
    candidate_ranking: Type.Optional(ref(CandidateRanking, { description: 'auto: the l1 formula or the profile formula when there is one, else RRF; rrf: the organic order; formula: requires l1 or a profile formula (docs/ranking.md).' })),
    l2_rerank: Type.Optional(ref(L2Rerank, { description: 'auto: the configured L2 model of every corpus searched, if any; off: none; catboost: requires them (422).' })),
    l1: Type.Optional(Nullable(ref(FormulaRanking))),
    combiner: Type.Union([Type.Literal('log_sum_exp'), Type.Literal('max'), Type.Literal('sum')], { default: 'log_sum_exp', description: 'Multi-query score combiner of the sparse channel\'s sub-queries (the query and one per generated dimension): log_sum_exp, max or sum (docs/search.md).' }),
    combiner_decay: Double({ default: 0.7, minimum: 0, maximum: 1e6 }),
    combiner_temperature: Double({ default: 1.5, minimum: 0, maximum: 1e6 }),
    combiner_top_k: Int32({ minimum: 0, default: 3 }),
    heap_factor: Nullable(Double({ minimum: 0, maximum: 1e6 }), { default: 0.85 }),
    max_query_dims: Int32({ minimum: 0, default: 0 }),
    pruning: Type.Optional(Nullable(Double({ minimum: 0, maximum: 1e6 }))),
    weight_threshold: Double({ default: 0, minimum: 0, maximum: 1e6 }),
    fulltext_weight: Type.Optional(Nullable(Double({ minimum: 0, maximum: 10 }), { description: '0 to 10 (service default 1.0); 0 disables the lexical channel.' })),
    fulltext_phrase_boost: Nullable(Double({ minimum: 0, maximum: 10 }), { default: 1.0, description: '0 to 10; 0 disables the phrase bonus but keeps quoted-phrase constraints.' }),
    rrf_k: Type.Optional(Nullable(Double({ minimum: 0, maximum: 1e6 }), { description: 'RRF smoothing constant (service default 60).' })),
    sparse_nomination: Type.Optional(Nullable(Type.Boolean())),
    binary_pool: Type.Boolean({ default: false }),
    document_discovery: Type.Optional(Nullable(Type.Boolean())),
    include_candidate_scores: Type.Optional(Type.Boolean({ description: 'Return each hit\'s raw document and passage features (CandidateScores, feature set lectern-features-v1).' })),
    include_rrf_scores: Type.Optional(Type.Boolean()),
    tracing: Type.Optional(Type.Boolean()),
  },
  { $id: 'SearchRequestV2', additionalProperties: false },
);
export type SearchRequestV2 = Static<typeof SearchRequestV2>;

/** Interface SimilarRequestV2 (POST /v2/search/similar; docs/search.md "Similar documents"). */
export const SimilarRequestV2 = Type.Object(
  {
    document_id: Type.String({ minLength: 1, maxLength: 512, description: 'The source document; its whole-document representation (title+abstract vector) seeds the retrieval.' }),
    filter_languages: stringList('ISO 639 language codes (e.g. en, de).', LANGUAGE_CODE),
    filter_types: stringList('Document types.'),
    limit: Int32({ minimum: 1, maximum: 100, default: 10, description: '1 to 100.' }),
  },
  { $id: 'SimilarRequestV2', additionalProperties: false },
);
export type SimilarRequestV2 = Static<typeof SimilarRequestV2>;

export const SnippetEvidence = Type.Object(
  {
    text: Type.String({ description: 'Verbatim window chosen by the reranker.' }),
    start_char: Type.Integer({ minimum: 0, description: 'Unicode scalar values, relative to the full snippet text.' }),
    score: Type.Number(),
  },
  { $id: 'SnippetEvidence' },
);

export const SnippetSource = Type.Object(
  {
    start_char: Type.Integer({ minimum: 0 }),
    end_char: Type.Integer({ minimum: 0, description: 'Exclusive.' }),
    field_length: Type.Integer({ minimum: 0 }),
  },
  { $id: 'SnippetSource', description: 'Offsets in Unicode scalar values within the source field.' },
);

export const Snippet = Type.Object(
  {
    field: Type.String(),
    text: Type.String(),
    chunk_id: Type.Optional(Nullable(Int64())),
    score: Type.Optional(Type.Number()),
    evidence: Type.Optional(Nullable(ref(SnippetEvidence))),
    source: Type.Optional(Nullable(ref(SnippetSource))),
    highlights: Type.Optional(
      Type.Array(Type.Tuple([Type.Integer({ minimum: 0 }), Type.Integer({ minimum: 0 })]), {
        description: 'Lectern extension: matched ranges [start, end) in Unicode scalar values of `text`.',
      }),
    ),
  },
  { $id: 'Snippet' },
);

export const PassageScores = Type.Object(
  {
    ordinal: Int32({ minimum: 0 }),
    scores: StringMap(Type.Number()),
    l1_score: Type.Optional(Nullable(Type.Number())),
  },
  { $id: 'PassageScores' },
);

export const CandidateScores = Type.Object(
  {
    document: StringMap(Type.Number()),
    passages: Type.Array(ref(PassageScores)),
    scored_passages: Int32({ minimum: 0 }),
  },
  { $id: 'CandidateScores' },
);

export const RrfAttribution = Type.Object(
  {
    score: Type.Number(),
    contributions: Type.Array(Type.Object({}, { additionalProperties: true }), {
      description: 'Lectern: one entry per channel that ranked the document: {channel, rank, score, weight, contribution}.',
    }),
  },
  { $id: 'RrfAttribution' },
);

export const V2Hit = Type.Object(
  {
    id: Type.String(),
    score: Type.Number(),
    snippets: Type.Array(ref(Snippet)),
    document: documentSlot(true, 'The document (see docs/api.md, "The document object"); null when return_documents is false.'),
    candidate_scores: Type.Optional(Nullable(ref(CandidateScores))),
    rrf: Type.Optional(Nullable(ref(RrfAttribution))),
  },
  { $id: 'V2Hit' },
);

export const V2Timings = Type.Object(
  {
    search_us: Int64({ minimum: 0 }),
    load_us: Int64({ minimum: 0 }),
    total_us: Int64({ minimum: 0 }),
  },
  { $id: 'V2Timings' },
);

export const SearchTrajectory = Type.Object(
  {
    id: Type.String(),
    feedback_token: Type.Optional(Nullable(Type.String({ description: 'A bounded, expiring capability to rate results of this retrieval.' }))),
  },
  { $id: 'SearchTrajectory' },
);

export const VectorCombiner = Type.Object(
  { name: Type.String(), temperature: Type.Number(), top_k: Int32({ minimum: 0 }), decay: Type.Number() },
  { $id: 'VectorCombiner', additionalProperties: false },
);

export const SparseQueryPolicy = Type.Object(
  { max_query_dims: Int32({ minimum: 0 }), weight_threshold: Type.Number(), heap_factor: Type.Number(), pruning: Type.Number() },
  { $id: 'SparseQueryPolicy', additionalProperties: false },
);

export const FeatureContract = Type.Object(
  {
    name: Type.String(),
    features: Type.Array(Type.String()),
    score_policy: Type.String(),
    rrf_policy: Type.String(),
    backfill: Type.Boolean(),
    candidate_depth: Int32({ minimum: 0, description: 'Fixed per-branch per-shard nomination depth.' }),
    phrase_policy: Type.String(),
    tokenizer_policy: Type.String(),
    document_reduction: Type.String(),
    teacher_input: Type.String(),
    vector_combiner: ref(VectorCombiner),
    sparse_query: ref(SparseQueryPolicy),
  },
  { $id: 'FeatureContract', additionalProperties: false },
);

export const Scoring = Type.Object(
  { target: ref(PredictionTarget), correction_weight: Type.Number() },
  { $id: 'Scoring', additionalProperties: false },
);

export const CorpusRankingInfo = Type.Object(
  {
    corpus: Type.String(),
    model_sha256: Type.String(),
    scoring: ref(Scoring),
    input_documents: Type.Integer({ minimum: 0 }),
    input_rows: Type.Integer({ minimum: 0 }),
  },
  { $id: 'CorpusRankingInfo' },
);

export const BatchInfo = Type.Object(
  {
    enabled: Type.Boolean(),
    as_of_at: Int64({ description: 'Engagement publication cutoff.' }),
    computed_at: Int64(),
    observed_documents: Type.Integer({ minimum: 0 }),
    requested_documents: Type.Integer({ minimum: 0 }),
    elapsed_us: Int64({ minimum: 0 }),
  },
  { $id: 'BatchInfo' },
);

export const RankingInfo = Type.Object(
  {
    method: Type.String(),
    artifact_sha256: Type.String(),
    model_sha256: Type.String(),
    feature_version: Type.String(),
    corpus_models: Type.Array(ref(CorpusRankingInfo)),
    input_documents: Type.Integer({ minimum: 0 }),
    input_rows: Type.Integer({ minimum: 0 }),
    output_documents: Type.Integer({ minimum: 0 }),
    elapsed_us: Int64({ minimum: 0 }),
    engagement: ref(BatchInfo),
  },
  { $id: 'RankingInfo' },
);

export const CandidateRankingInfo = Type.Object(
  {
    method: Type.String(),
    contract: ref(FeatureContract),
    l2: Type.Optional(Nullable(ref(RankingInfo))),
    model_sha256: Type.Optional(Nullable(Type.String())),
  },
  { $id: 'CandidateRankingInfo' },
);

export const V2SearchResponse = Type.Object(
  {
    ranking_mode: Type.Union([Type.Literal('documents'), Type.Literal('passages')], { description: 'Resolved objective; never `auto`.' }),
    hits: Type.Array(ref(V2Hit)),
    total_hits: Int64({ minimum: 0 }),
    has_next: Type.Boolean(),
    corrected_query: Type.Optional(Nullable(Type.String())),
    embed_ms: Type.Optional(Nullable(Int64({ minimum: 0 }))),
    timings: Type.Optional(Nullable(ref(V2Timings))),
    trajectory: Type.Optional(Nullable(ref(SearchTrajectory))),
    candidate_ranking: Type.Optional(Nullable(ref(CandidateRankingInfo))),
    retrieval_traces: Type.Optional(Type.Array(Type.Unknown(), { description: 'Present with tracing: bounded per-shard and per-branch traces.' })),
    partial_results: Type.Optional(
      Type.Object(
        {
          shards: Type.Integer({ minimum: 0, description: 'Shards per index of the cluster.' }),
          missing: Type.Array(Type.Object({ index: Type.String(), shard: Type.Integer({ minimum: 0 }) }), { description: 'The shards no replica answered for.' }),
        },
        { description: 'Lectern extension, present only when the result is partial: on a cluster, shards with no live replica were left out, so hits and total_hits cover the other shards only (docs/scale.md).' },
      ),
    ),
  },
  { $id: 'V2SearchResponse' },
);
export type V2SearchResponse = Static<typeof V2SearchResponse>;

export const SEARCH_SCHEMAS = [
  SearchMode,
  RankingMode,
  CandidateRanking,
  L2Rerank,
  PredictionTarget,
  FormulaRanking,
  SearchRequestV2,
  SimilarRequestV2,
  SnippetEvidence,
  SnippetSource,
  Snippet,
  PassageScores,
  CandidateScores,
  RrfAttribution,
  V2Hit,
  V2Timings,
  SearchTrajectory,
  VectorCombiner,
  SparseQueryPolicy,
  FeatureContract,
  Scoring,
  CorpusRankingInfo,
  BatchInfo,
  RankingInfo,
  CandidateRankingInfo,
  V2SearchResponse,
];
