// Lectern's search engine: the public entry. Everything the host (src/search/, src/ingest/, adapters)
// may use is exported here; other files are internals. The engine is pure: storage comes in through an
// IndexDirectory, time through optional `now()` callbacks; no node:* imports, no clock, no randomness.
//
// Typical use (see docs/engine.md):
//   const index = SearchIndex.open(new FsIndexDirectory('/data/index/documents'));
//   index.add({ id, title, abstract, body, language, type, issuedAt, uris, references, workKey });
//   index.commit(String(storeSequence));              // durable + visible; index.checkpoint after restart
//   setInterval(() => index.mergeStep(), 200);         // bounded background merging
//   const r = index.search({ text: '"heat shock" protein', limit: 10, filters: { types: ['preprint'] } });
//   const snip = buildSnippet(storedAbstract, index.parse(text), { field: 'abstract', passage: r.hits[0].passages[0] });
//   const fused = fuseRrf([{ channel: 'fulltext', ids: r.hits.map((h) => h.id) }, ...]);
export { SearchIndex, resolveRankingMode, sumCorpusStats, queryStatsTerms } from './search-index.js';
export type { DocumentScoreParts } from './doc-scores.js';
export { ANALYSIS_VERSION } from './analysis-version.js';
export { IndexFormatError } from './index-format-error.js';
export type { SearchIndexOptions, IndexStats, MergeStepResult } from './search-index.js';
export type { IndexDirectory, DirectoryLock } from './index-directory.js';
export { MemoryIndexDirectory } from './index-directory.js';
export type {
  IndexDocument,
  EngineQuery,
  EngineResult,
  CorpusStats,
  EngineHit,
  EngineFilters,
  EngineTrace,
  Explanation,
  FieldName,
  FieldWeights,
  PassageHit,
  RankingMode,
} from './types.js';
export { FIELDS } from './types.js';
export { DEFAULT_SCORING, DEFAULT_FIELD_WEIGHTS } from './bm25f.js';
export type { ScoringParams } from './bm25f.js';
export { DEFAULT_MERGE_POLICY, runMerge } from './merge.js';
export type { MergePolicy, MergeTask, MergeOutput } from './merge.js';
export { DEFAULT_PAIR_RULE } from './pair-postings.js';
export { setStoredCodec, FFLATE_STORED_CODEC, STORED_BLOCK_BYTES, STORED_DICT_BYTES } from './stored-fields.js';
export type { StoredCodec } from './stored-fields.js';
export type { PairRule } from './pair-postings.js';
export { parseQuery } from './query-parser.js';
export type { ParsedQuery, QueryWord, QueryPhrase, PhraseSlot } from './query-parser.js';
export { pruneQuery, queryTerms, type QueryBudget, type PrunedQuery } from './query-budget.js';
export { buildSnippet, sliceCodePoints, codePointLength } from './snippets.js';
export { buildHitSnippet, buildHitSnippetInWindow, hitHasTokenOffsets, hitSnippetFromWindow, passageRange, type FieldWindow } from './hit-snippets.js';
export type { SnippetWindow, SnippetOptions, HighlightRange } from './snippets.js';
export { fuseRrf } from './rrf.js';
export type { RankedList, RrfVote, FusedHit, RrfOptions } from './rrf.js';
export { editDistance, correctParsedQuery, mergeSuggestions, unknownWordTerms } from './spelling.js';
export type { Suggestion } from './spelling.js';
export { tokenize, analyzerFor, Analyzer } from './analyzer.js';
export type { Token } from './analyzer.js';
export { STEMMED_LANGUAGES, normalizeLanguage } from './stemmers.js';
export { CorpusModel, TrainingState, documentTerms, fieldTerms, idfOf, DEFAULT_DIMS, TERM_SCAN_MIN_TERMS, TITLE_TOKEN_WEIGHT } from './corpus-model.js';
export type { TermBag, TrainOptions, TrainStats } from './corpus-model.js';
export type { VectorModel, VectorQuery, SegmentNeedingVectors, BuiltVectors } from './search-index.js';
export { vectorFileName, computeVectorFile } from './search-index.js';
export { SegmentImpacts, impactExponent, IMPACT_LEVELS, IMPACT_FORMAT_VERSION } from './doc-impacts.js';
export type { SparseRow } from './doc-impacts.js';
export { SegmentVectors, popcount32, EXACT_MAX_VECTORS, AUTO_RESCORE_FACTOR, AUTO_RESCORE_MIN, AUTO_RESCORE_BASE_VECTORS, autoRescorePool } from './doc-vectors.js';
