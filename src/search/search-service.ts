// POST /v2/search/: request -> plan (which channels exist, what must be refused) -> engine per index
// -> fusion -> documents and snippets -> billing, `shown` activity, trajectory.
//
// Channels: the stemmed BM25F lexical channel (`fulltext`) and, with corpus models, sparse and dense.
// `hybrid` fuses what is available, so with only the lexical channel it returns exactly the `fulltext`
// ranking (the trace says so). Anything that needs a component that is not configured (sparse, binary
// or short-document channels, a formula or CatBoost model) is refused with 422 `feature_unavailable`
// naming the component, never silently downgraded. After fusion, the ranking pipeline (src/ranking/,
// docs/ranking.md) runs the stages the request and the configuration ask for: L1 formula, L2 GBDT,
// cross-encoder; the defaults `cross_rerank: true` and `l2_rerank: auto` have no effect without a
// configured reranker/profile, and the trace says so.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { buildHitSnippet, buildHitSnippetInWindow, buildSnippet, fuseRrf, type FieldWindow, type DocumentScoreParts, type EngineHit, type EngineQuery, type EngineResult, type FieldName, type ParsedQuery, type SearchIndex, type SnippetWindow } from '../engine/index.js';
import type { IndexName, StoredDocument } from '../domain/document.js';
import type { DisplayDocument } from '../domain/display-document.js';
import { INDEX_NAMES } from '../domain/document.js';
import { AppError } from '../domain/errors.js';
import { unknownLanguages } from '../domain/languages.js';
import { searchCost, type PriceTable } from '../domain/prices.js';
import type { Principal } from '../domain/principal.js';
import type { BillingService } from '../billing/billing-service.js';
import type { ActivityRecorder } from '../activity/activity-buffer.js';
import type { Clock } from '../ports/clock.js';
import { nowSeconds } from '../ports/clock.js';
import type { DocumentStore } from '../ports/document-store.js';
import type { ErrorReporter } from '../ports/error-reporter.js';
import { citedWorkUris } from './citations.js';
import { loadHitRecords, localStoredRecords, type HitRecordCache, type StoredRecords } from './hit-records.js';
import { FEEDBACK_TOKEN_TTL_S, signFeedbackToken } from './feedback-token.js';
import type { IndexSet } from './index-set.js';
import { denseDocumentVector, denseQueryVector, denseSearch, sparseQueryVector, withFeedback, withFeedbackVectors, type SparseParams } from './channels.js';
import { defaultSearchRequest, type HitEncoder, type SearchExecution, type SearchExecutor, type SearchHit, type SearchRequest, type SearchResult } from './search-types.js';
import { runSparseChannel } from './sparse-channel.js';
import { passagesFor, type DeferredPassages } from './multi-query.js';
import { lexicalFeedbackPass, type LexicalFeedbackParams } from './lexical-feedback.js';
import { routingKey, shardOfWork } from '../domain/shard-routing.js';
import type { FetchedRecords, ScatterResult, ScatterVectorQuery, VectorResult } from './scatter-gather.js';
import type { ShardFetch } from '../ports/shard-client.js';
import { checkWorkBudget, FairScheduler, passageTermCap, responseWork, workEstimate, type BudgetedIndex, type SearchTicket, type WorkBudget } from './work-budget.js';
import type { ActivityCounts } from '../ports/activity-store.js';
import { candidateScores, featureRow, type Candidate, type FeatureGroup } from '../ranking/features.js';
import type { FeatureSources } from '../ranking/sources.js';
import { computeFeatures, type EngagementInfo } from '../ranking/pipeline.js';

const ALL_GROUPS: ReadonlySet<FeatureGroup> = new Set(['retrieval', 'lexical', 'document', 'citations', 'engagement', 'passage']);
import { candidateRankingInfo, featureContract } from '../ranking/info.js';
import { NO_RANKING, planRanking, runRanking, type RankingOutcome, type RankingPlan, type RankingSettings } from '../ranking/pipeline.js';
import { pickEvidence } from '../ranking/evidence.js';
import { buildPool, featureSources, plannedBranches } from './ranking-bridge.js';
import { checkExtraPools, mergeExtraPools, type PoolSources } from './extra-pools.js';
import { DEFAULT_HEAP_FACTOR, DEFAULT_MAX_QUERY_DIMS, DEFAULT_PRUNING, HYBRID_EXPANSION_TERMS, HYBRID_SPARSE_HEAP_FACTOR } from './channels.js';
import { analyzerFor, queryTerms, resolveRankingMode } from '../engine/index.js';

/** RRF smoothing constant when the request gives none (interface: service default 60). */
export const DEFAULT_RRF_K = 60;
/** Snippets per hit. */
const SNIPPETS_PER_HIT = 3;
/**
 * Deepest page (offset + limit) whose display records the shards send with their hits (ADR 0292):
 * each shard sends up to that many records, so a deep page would ship many records the page never shows.
 */
const FETCH_WITH_SEARCH_MAX = 50;
/** Snippet windows of retrieve()/pinnedHits(), code points: long enough to hold whole sentences to answer from. */
const ANSWER_SNIPPET_CHARS = 1200;
/** Traces are bounded: at most this many hits carry an explanation. */
const TRACE_EXPLAIN_HITS = 10;

/** An index's terms and their rarity (SearchService.termModel). */
export interface TermModel {
  /** Live documents of the index. */
  documents: number;
  /** The idf of a term no document holds (the largest). */
  maxIdf: number;
  /** The analysed terms of a text, in order (stop words dropped). */
  terms(text: string): string[];
  /** Inverse document frequency of an analysed term, ln(1 + (N - df + 0.5) / (df + 0.5)). */
  idf(term: string): number;
}

/** The indexes a search reads (the writer's IndexSet, or a search thread's snapshot of it). */
export type SearchIndexes = Pick<IndexSet, 'get' | 'models' | 'dense' | 'sparse'>;

export interface SearchServiceDeps {
  indexes: SearchIndexes;
  store: DocumentStore;
  activity: ActivityRecorder;
  billing: BillingService;
  prices: PriceTable;
  clock: Clock;
  secret: string;
  report: ErrorReporter;
  /** Work limits of one query and fair turns across accounts (absent: unbounded). */
  budget?: WorkBudget;
  /** The ranking pipeline's configuration (absent: no formula profile, no L2 model, no cross-encoder). */
  ranking?: RankingSettings;
  /** Pseudo-relevance feedback of the fulltext channel from its top document (ADR 0315; absent or 0 terms: off). */
  lexicalFeedback?: LexicalFeedbackParams | null;
  /** The plain document store the feature reads (and hit records beside the index's, ADR 0280) use (no work links); default `store`. */
  featureStore?: DocumentStore;
  /** Activity counters for the engagement features (absent: those features are absent). */
  engagement?: (ids: readonly string[], now: number) => Promise<Map<string, ActivityCounts>>;
  /** Runs each search's retrieval, records and snippets on search threads (ADR 0110); absent: here. */
  executor?: SearchExecutor;
  /**
   * The `api` role of a cluster (issue 24, ADR 0202): the lexical channel's engine call goes to the
   * shards (DFS statistics, shard top k, merge) instead of this process's index; absent: this process's.
   */
  shards?: ShardedLexicalSearch;
  /**
   * The work links of display records (the WorkLinkedDocumentStore that `store` is). Given, hits show
   * the display records the indexes store (ADR 0280; with `shards`, those of the shards' segments) with
   * these links: no display read from the database. Absent: records come from `store.getDisplayMany`.
   */
  workLinks?: Pick<StoredRecords, 'link'>;
  /**
   * With `workLinks`: the serving process's display cache (ADR 0135) in front of the hits' records and
   * body texts (ADR 0359; the search threads' own, emptied at every snapshot; the writer's, told every
   * change the index applies). Absent: every page reads its records and texts.
   */
  hitRecordCache?: HitRecordCache;
  /**
   * Inline searches (ADR 0326): with an `executor`, a search whose work estimate is at most `maxWork` runs
   * here, on the calling thread, when nothing else is searching (no other search of this service between
   * its admission and its end, billing included; none on the executor, in a fair turn or waiting for
   * one; the executor not pacing): the hand-off to a search thread
   * and back costs more CPU than such a search. `encodeHits` encodes its hits as the threads' encoder
   * does (the same bytes). Absent or `maxWork` 0: every search goes to the executor.
   */
  inline?: { maxWork: number; encodeHits: HitEncoder | null };
  /**
   * With `workLinks`: body-snippet hits placed from this process's index read only their passages'
   * slices of the body (`featureStore.getTextWindows`) and their records from the index, instead of the
   * store's whole row with its text (ADR 0335). The same snippets, byte for byte. Off in the composition
   * root: on the synthetic corpus it cost more CPU per page than the whole row on both stores (SQLite
   * 1.54x, PostgreSQL 1.12x; the record from the segments costs more than the text it saves).
   */
  bodySlices?: boolean;
}

/** The sharded equivalent of SearchIndex.search (search/scatter-gather.ts). */
export interface ShardedLexicalSearch {
  /** Shards per index. */
  readonly shards: number;
  /**
   * `onlyShard`: the query phase on that shard alone (statistics still from every shard). `fetch`: the
   * shards send the stored records of their top hits with them (ADR 0292; `ScatterResult.fetched`).
   */
  search(index: IndexName, q: EngineQuery, opts?: { onlyShard?: number; fetch?: ShardFetch }): Promise<ScatterResult>;
  /** The dense channels over the shards (ADR 0246). */
  searchVectors(index: IndexName, q: ScatterVectorQuery): Promise<{ result: VectorResult; shards: ScatterResult['shards']; missingShards: number[] }>;
  /** A document's stored vector, from its work's shard (`similar`; ADR 0246). */
  documentVector(index: IndexName, doc: { id: string; workKey: string }): Promise<Float32Array | null>;
  // Each call below answers with the shards no replica answered for (`missingShards`): the caller flags
  // the response partial or refuses it, never silently answers from fewer shards (ADR 0265).
  /** The spelling correction from the shards' dictionaries (ADR 0247). */
  correctQuery(index: IndexName, text: string, possibleLanguages: string[] | null): Promise<{ corrected: string | null; missingShards: number[] }>;
  /** Lexical score parts of ranking candidates from their shards (ADR 0248). */
  scoreParts(index: IndexName, q: { text: string; possibleLanguages?: string[] | null; phraseBoost?: number }, ids: readonly string[]): Promise<{ parts: Map<string, DocumentScoreParts>; missingShards: number[] }>;
  /** Citing-record counts of documents by their URIs, one scatter for all of them (`cited_by`, ADR 0265). */
  citedBy(index: IndexName, uriSets: readonly (readonly string[])[]): Promise<{ counts: number[]; missingShards: number[] }>;
  /** Summed document frequencies of index terms and the live document count (ADRs 0248, 0266). */
  termStats(index: IndexName, terms: readonly string[]): Promise<{ documents: number; df: Record<string, number>; missingShards: number[] }>;
  /** The display records the shards' segments store for these ids (the fetch phase, ADR 0280); absent: not answered (read from the store). */
  records(index: IndexName, ids: readonly string[]): Promise<Map<string, string>>;
}

/** Adds shards of `index` to a response's missing shards (each once). */
export function addMissingShards(into: { index: IndexName; shard: number }[], index: IndexName, shards: readonly number[]): void {
  for (const shard of shards) if (!into.some((m) => m.index === index && m.shard === shard)) into.push({ index, shard });
}

/** How the caller wants a search's result. */
export interface SearchOptions {
  /**
   * The hits encoded by the search threads' hit encoder (the HTTP route's JSON; ADR 0150) instead of as
   * objects, when searches run on threads; never with tracing (the explanations go into the traces).
   */
  encodeHits?: boolean;
}

/** A response's partial flag: the execution's, plus shards the budget check missed (ADR 0265). */
function partialWith(partial: SearchExecution['partial'], more: readonly { index: IndexName; shard: number }[], shards: number): { partial?: NonNullable<SearchExecution['partial']> } {
  if (more.length === 0) return partial ? { partial } : {};
  const missing = [...(partial?.missing ?? [])] as { index: IndexName; shard: number }[];
  for (const m of more) addMissingShards(missing, m.index, [m.shard]);
  missing.sort((a, b) => (a.index < b.index ? -1 : a.index > b.index ? 1 : a.shard - b.shard));
  return { partial: { shards: partial?.shards ?? shards, missing } };
}

/** 503 for a request that cannot be answered from part of the shards (ADR 0265). */
const shardsUnavailable = (missing: readonly { index: IndexName; shard: number }[]) =>
  new AppError('service_unavailable', `No replica of ${missing.map((m) => `shard ${m.shard} of ${m.index}`).join(', ')} answered; this request needs every shard. Try again shortly.`, { extra: { missing_shards: missing.map((m) => ({ index: m.index, shard: m.shard })) }, headers: { 'Retry-After': '1' } });

const unavailable = (what: string) => new AppError('feature_unavailable', what, { extra: { missing: what.split(':')[0] } });

/** Weight of the dense (short_document) channel's votes in hybrid RRF (measured: docs/search.md). */
export const DENSE_RRF_WEIGHT = 0.2;
/**
 * Weight of the dense vote in hybrid RRF when the dense model is an operator's bi-encoder (ADR 0105): such
 * models are about as good as BM25 on scientific text on their own (bge-small-en-v1.5: 0.71 nDCG@10 on
 * SciFact by its model card), so they vote like the lexical channel. Not measured here (no model).
 */
export const ENCODER_RRF_WEIGHT = 1;
/** Weight of the sparse channel's votes in hybrid RRF. */
export const SPARSE_RRF_WEIGHT = 1;
/** Hybrid: the dense query mixes in the vectors of this many top lexical hits (pseudo-relevance feedback). */
export const DENSE_FEEDBACK_DOCS = 3;
/** Hybrid: weight of those hits' mean vector against the query vector. */
export const DENSE_FEEDBACK_WEIGHT = 3;

/** Refuses requests that need components no server configuration has (never a silent fallback). */
export function checkAvailable(r: SearchRequest): void {
  // Interface, Limits: the query is at most 16 KiB of UTF-8 (the schema bounds characters; this, bytes).
  const bytes = Buffer.byteLength(r.query, 'utf8');
  if (bytes > 16_384) throw new AppError('validation_failed', `query is ${bytes} bytes of UTF-8; the limit is 16384 bytes (16 KiB).`);
  if (r.offset + r.limit > 500) throw new AppError('validation_failed', `offset + limit must not exceed 500 (got ${r.offset} + ${r.limit}).`);
}

const TRAIN_HINT = 'train the corpus models with `lectern models train`, or configure an ONNX model (dense_encoder.dir, sparse_encoder.dir; docs/models.md)';

/** Refuses modes whose channel is not configured on one of the requested indexes. */
function checkChannels(r: SearchRequest, indexNames: IndexName[], indexes: SearchIndexes): void {
  const lacking = (kind: 'dense' | 'sparse') => indexNames.filter((n) => (kind === 'dense' ? indexes.dense(n) : indexes.sparse(n)) === null);
  if (r.mode === 'sparse' && lacking('sparse').length > 0) {
    throw unavailable(`sparse: mode "sparse" needs the sparse expansion model, which the ${lacking('sparse').join(', ')} index does not have; ${TRAIN_HINT}, or use "hybrid" or "fulltext".`);
  }
  if ((r.mode === 'short_document' || r.mode === 'binary') && lacking('dense').length > 0) {
    throw unavailable(`${r.mode}: mode "${r.mode}" needs document vectors from the dense model, which the ${lacking('dense').join(', ')} index does not have; ${TRAIN_HINT}, or use "hybrid" or "fulltext".`);
  }
  if (r.sparseNomination === true && (r.mode === 'hybrid' || r.mode === 'sparse') && lacking('sparse').length > 0) {
    throw unavailable(`sparse: sparse_nomination needs the sparse retrieval channel, which the ${lacking('sparse').join(', ')} index does not have; ${TRAIN_HINT}.`);
  }
  if (r.fulltextWeight === 0 && (r.mode === 'hybrid' || r.mode === 'fulltext')) {
    const others = r.mode === 'hybrid' ? indexNames.every((n) => indexes.dense(n) !== null || indexes.sparse(n) !== null) : false;
    if (!others) throw unavailable('channels: fulltext_weight 0 disables the lexical channel and no other retrieval channel is configured, so nothing could be retrieved.');
  }
}

/** SimilarRequestV2 as the service takes it. */
export interface SimilarQuery {
  documentId: string;
  languages: string[] | null;
  types: string[] | null;
  limit: number;
}

type ChannelName = 'fulltext' | 'sparse' | 'short_document' | 'binary';

/** One entry of the fused ranking: the hit, its score, its RRF attribution and its fused (RRF) score. */
interface RankedEntry {
  hit: EngineHit;
  index: IndexName;
  score: number;
  rrf: SearchHit['rrf'];
  fused: number;
}

/** One channel's ranked list over one index. */
interface ChannelRun {
  index: IndexName;
  channel: ChannelName;
  result: EngineResult;
  /** RRF weight of its votes. */
  weight: number;
  /** Votes only for documents other channels nominated (sparse_nomination off). */
  nominates: boolean;
  us: number;
  detail?: Record<string, unknown>;
}

interface Retrieval {
  runs: ChannelRun[];
  /** Channels hybrid would use that are not configured, by index. */
  unconfigured: string[];
  embedUs: number;
  rankingMode: 'documents' | 'passages';
  /** Shards (per index) that no replica answered for: the result is partial (cluster `api` role only). */
  missingShards: { index: IndexName; shard: number }[];
  /** Shards searched per index (cluster `api` role only; 0 on one node). */
  shardCount: number;
  /** Display records the shards sent with the lexical channel's top hits, by index (ADR 0292). */
  fetched: Map<IndexName, FetchedRecords>;
}

/** 422 for language codes that name no language (docs/search.md, "Filters"), like any unknown value. */
function checkLanguages(lists: Record<string, readonly string[] | null | undefined>): void {
  const errors = Object.entries(lists).flatMap(([field, tags]) =>
    unknownLanguages(tags).map(({ index, tag }) => ({ path: `body/${field}/${index}`, message: `${JSON.stringify(tag)} is not an ISO 639 language code (e.g. en, de, pt-BR)` })),
  );
  if (errors.length > 0) throw new AppError('validation_failed', errors.map((e) => `${e.path} ${e.message}`).join('; '), { extra: { errors } });
}

function resolveIndexes(names: readonly string[]): IndexName[] {
  const out: IndexName[] = [];
  for (const n of names) {
    if (!(INDEX_NAMES as readonly string[]).includes(n)) throw new AppError('validation_failed', `Unknown index ${JSON.stringify(n)}; the indexes are ${INDEX_NAMES.join(', ')}.`);
    if (!out.includes(n as IndexName)) out.push(n as IndexName);
  }
  return out;
}

/**
 * What snippets are cut from: the fields' text (a display record has no full text: hit-records.ts), or
 * for the body the slices its passages cover (`body`, one per body passage in order; ADR 0335).
 */
export type SnippetSource = Pick<StoredDocument, 'title' | 'abstract' | 'language'> & { fullText?: string | null; body?: readonly FieldWindow[] };

/** The field text a passage points into. */
export function fieldText(doc: Pick<SnippetSource, 'title' | 'abstract' | 'fullText'>, field: FieldName): string {
  return field === 'title' ? doc.title : field === 'abstract' ? (doc.abstract ?? '') : (doc.fullText ?? '');
}

/** Snippets of a hit from its passages (or the best window of the abstract/title when it has none). */
export function snippetsFor(doc: SnippetSource, hit: EngineHit, parsed: ParsedQuery, max = SNIPPETS_PER_HIT, maxChars?: number): SnippetWindow[] {
  const out: SnippetWindow[] = [];
  let slice = 0;
  for (const p of hit.passages.slice(0, max)) {
    if (p.field === 'body' && doc.body !== undefined) {
      // the passage's slice of the body (loadHitRecords checked that the index places it: the same snippet)
      const window = doc.body[slice++];
      // (a passage beyond those loadHitRecords was asked for has no text, as without slices)
      if (window !== undefined && window.length > 0) out.push(buildHitSnippetInWindow(hit, window, parsed, { field: p.field, passage: p, language: doc.language, maxChars }));
      continue;
    }
    const text = fieldText(doc, p.field);
    // placed from the index's token offsets and postings (the text is only sliced; buildSnippet otherwise)
    if (text) out.push(buildHitSnippet(hit, text, parsed, { field: p.field, passage: p, language: doc.language, maxChars }));
  }
  if (out.length === 0) {
    const field: FieldName = doc.abstract ? 'abstract' : 'title';
    const text = fieldText(doc, field);
    if (text) out.push(buildHitSnippet(hit, text, parsed, { field, language: doc.language, maxChars }));
  }
  return out;
}

/** Snippets with at least one window of body text (abstract or full text) when the document has any: a title alone answers nothing. */
function withBody(doc: StoredDocument, snippets: SnippetWindow[], parsed: ParsedQuery): SnippetWindow[] {
  if (snippets.some((s) => s.field !== 'title')) return snippets;
  const field: FieldName | null = doc.abstract ? 'abstract' : doc.fullText ? 'body' : null;
  if (!field) return snippets;
  return [...snippets, buildSnippet(fieldText(doc, field), parsed, { field, language: doc.language, maxChars: ANSWER_SNIPPET_CHARS })];
}

export class SearchService {
  readonly #turns: FairScheduler | null;
  #inlineSearches = 0;
  /** Searches between their admission and their end (their credit hold, turn, work, charge, trajectory). */
  #searching = 0;
  constructor(private readonly d: SearchServiceDeps) {
    this.#turns = d.budget ? new FairScheduler(d.budget.slots, d.budget.concurrency) : null;
  }

  /** The engine query of a request (one index's channel searches share it). */
  #engineQuery(r: SearchRequest, citing: string[] | null, passagesPerHit: number, depth: number): EngineQuery {
    const f = r.filters;
    return {
      text: r.query,
      possibleLanguages: r.possibleLanguages,
      rankingMode: r.rankingMode,
      limit: Math.max(r.offset + r.limit, depth),
      offset: 0,
      phraseBoost: r.phraseBoost ?? 1,
      lexicalWeight: 1,
      collapseByWorkKey: r.deduplicate,
      // total_hits is the number of matching results (works when deduplicating), never an estimate (ADR 0082)
      exactTotal: true,
      passagesPerHit,
      explain: r.tracing,
      trace: r.tracing ? { now: () => performance.now() * 1000 } : false,
      filters: { types: f.types, languages: f.languages, issns: f.issns, publisher: f.publisher, issuedAfter: f.issuedAfter, issuedBefore: f.issuedBefore, uriPrefixes: f.uriPrefixes?.map(normalizePrefix) ?? null, citing },
      // a long query is evaluated pruned, not refused (ADR 0231): its most common words left out beyond
      // the term and postings budgets, and the per-hit work of its results reads its weightiest words
      ...(this.d.budget ? { budget: { maxTerms: this.d.budget.maxTerms, maxPostings: this.d.budget.maxPostings }, maxPassageTerms: passageTermCap(this.d.budget, Math.max(r.offset + r.limit, depth)) } : {}),
    };
  }

  /**
   * Runs the channels the mode asks for on every requested index. `hybrid` runs every configured
   * channel (fulltext unless fulltext_weight is 0, sparse with the expansion model, short_document
   * with the dense model) and names the unconfigured ones; the single-channel modes run theirs.
   */
  async #channels(r: SearchRequest, indexNames: IndexName[], base: EngineQuery): Promise<Retrieval> {
    const runs: ChannelRun[] = [];
    const unconfigured: string[] = [];
    let embedUs = 0;
    let rankingMode: 'documents' | 'passages' = 'documents';
    const weight = r.fulltextWeight ?? 1;
    const timed = <T>(fn: () => T): [T, number] => {
      const t = performance.now();
      const v = fn();
      return [v, (performance.now() - t) * 1000];
    };
    const sparseParams: SparseParams = { maxQueryDims: r.maxQueryDims, weightThreshold: r.weightThreshold, pruning: r.pruning, heapFactor: r.heapFactor };
    const missingShards: Retrieval['missingShards'] = [];
    const fetched: Retrieval['fetched'] = new Map();
    // the fetch phase folded into the query phase (ADR 0292): when the lexical list is the page (mode
    // fulltext) and the page shows documents from the indexes' stored records, each shard sends the
    // records of its top offset+limit hits with them (not those whose snippets need the body text)
    const pageEnd = r.offset + r.limit;
    const fetch = this.d.shards && this.d.workLinks && r.returnDocuments && r.mode === 'fulltext' && pageEnd <= FETCH_WITH_SEARCH_MAX ? { hits: pageEnd, skipBodyPassages: SNIPPETS_PER_HIT } : undefined;
    for (const [i, name] of indexNames.entries()) {
      const index = this.d.indexes.get(name);
      const wantsFulltext = r.mode === 'fulltext' || (r.mode === 'hybrid' && weight > 0);
      let lexical: EngineResult | null = null;
      let deferredSparse: { run: ChannelRun; deferred: DeferredPassages; search: (q: EngineQuery) => EngineResult | Promise<EngineResult> } | null = null;
      // what the fulltext channel votes with: its feedback pass when lexical feedback ran (ADR 0315), else
      // `lexical`, the query's own pass (which the sparse channel shares either way)
      let fulltextVotes: EngineResult | null = null;
      if (wantsFulltext && this.d.shards) {
        // cluster: scatter-gather over the shards, ranked exactly as one index would (ADR 0202)
        const t = performance.now();
        const sharded = await this.d.shards.search(name, base, fetch ? { fetch } : {});
        const us = (performance.now() - t) * 1000;
        if (sharded.fetched) fetched.set(name, sharded.fetched);
        lexical = sharded.result;
        fulltextVotes = lexical;
        for (const shard of sharded.missingShards) missingShards.push({ index: name, shard });
        // lexical feedback (ADR 0315) needs the expansion's global statistics: not across shards yet
        const feedbackSkipped = (this.d.lexicalFeedback?.terms ?? 0) > 0 ? { feedback: { skipped: 'lexical feedback is not applied across cluster shards (ADR 0315)' } } : {};
        runs.push({ index: name, channel: 'fulltext', result: sharded.result, weight, nominates: true, us, detail: { shards: sharded.shards, ...(sharded.missingShards.length > 0 ? { partial: true, missing_shards: sharded.missingShards } : {}), ...feedbackSkipped } });
      } else if (wantsFulltext) {
        const fb = this.d.lexicalFeedback;
        let detail: Record<string, unknown> | undefined;
        let result: EngineResult;
        let us: number;
        if (fb && fb.terms > 0) {
          // pseudo-relevance feedback from the top document (ADR 0315; single node). The query's own full
          // pass is run only where the sparse channel shares it (hybrid); fulltext probes for its top hit.
          const t = performance.now();
          const first = r.mode === 'hybrid' ? index.search(base) : null;
          const pass = await lexicalFeedbackPass(index, base, first, fb, async (hit) => (await loadHitRecords(this.d.store, [{ hit, index: name }], 0, this.#storedRecords())).docs.get(hit.id) ?? null);
          if (pass) detail = { feedback: { from: pass.from, terms: pass.terms.map((x) => x.term) } };
          result = pass?.result ?? first ?? index.search(base);
          lexical = first ?? result;
          us = (performance.now() - t) * 1000;
        } else {
          [result, us] = timed(() => index.search(base));
          lexical = result;
        }
        fulltextVotes = result;
        runs.push({ index: name, channel: 'fulltext', result, weight, nominates: true, us, ...(detail ? { detail } : {}) });
      }
      if (r.mode === 'sparse' || r.mode === 'hybrid') {
        const sparse = this.d.indexes.sparse(name);
        // the SPLADE-style encoder's impacts live in each index's files: not across shards yet (ADR 0249)
        if (sparse?.tokenVector && this.d.shards) {
          if (r.mode === 'sparse') throw unavailable('sparse: the SPLADE-style sparse encoder (sparse_encoder.dir) does not search across the shards of a cluster yet (docs/scale.md); use mode fulltext, short_document or hybrid.');
          unconfigured.push(`sparse:${name}`);
        } else if (sparse) {
          const combinerParams = { combiner: r.combiner, decay: r.combinerDecay, temperature: r.combinerTemperature, topK: r.combinerTopK };
          // cluster: the query and every sub-query are DFS-then-query searches over the shards (ADR 0246);
          // the query's own pass is the fulltext channel's when it ran (one candidate pass for both)
          const shards = this.d.shards;
          const shardTraces: ScatterResult['shards'][] = [];
          const viaShards = shards
            ? async (q: EngineQuery): Promise<EngineResult> => {
                const sh = await shards.search(name, q);
                shardTraces.push(sh.shards);
                addMissingShards(missingShards, name, sh.missingShards);
                return sh.result;
              }
            : undefined;
          // hybrid whose sparse vote nominates nothing (sparse_nomination off; the shared pass ranks whole
          // documents): the hits only an expansion sub-query found can reach the page only through the
          // dense channel, so their passages wait for its list (ADR 0311)
          const defer = r.mode === 'hybrid' && lexical !== null && !(r.sparseNomination ?? lexical.rankingMode === 'passages');
          // hybrid's vote: the 3 strongest expansion terms, evaluated exactly (as good as 8 on both judged sets; ADR 0269;
          // ADR 0312), evaluated exactly (the request's heap_factor governs mode sparse): a pruned list depends
          // on each index's traversal, exact ones make a cluster's vote one node's (ADR 0269). The SPLADE-style
          // encoder (one node only) keeps the request's.
          const params = r.mode === 'hybrid' ? { ...sparseParams, maxExpansionTerms: HYBRID_EXPANSION_TERMS, ...(sparse.tokenVector ? {} : { heapFactor: HYBRID_SPARSE_HEAP_FACTOR }) } : sparseParams;
          const run = await runSparseChannel(sparse, index, base, r.query, r.possibleLanguages, params, combinerParams, lexical, viaShards, defer);
          if (viaShards) run.detail = { ...run.detail, shards: shardTraces[0] ?? [], shard_calls: shardTraces.length };
          embedUs += run.embedUs;
          // sparse_nomination (interface): on for passage ranking, off for whole-document ranking
          const nominates = r.mode === 'sparse' || (r.sparseNomination ?? run.result.rankingMode === 'passages');
          const sparseRun: ChannelRun = { index: name, channel: 'sparse', result: run.result, weight: SPARSE_RRF_WEIGHT, nominates, us: run.us, detail: { ...run.detail, nominates } };
          runs.push(sparseRun);
          if (run.deferred) deferredSparse = { run: sparseRun, deferred: run.deferred, search: viaShards ?? ((q: EngineQuery) => index.search(q)) };
        } else unconfigured.push(`sparse:${name}`);
      }
      if (r.mode === 'short_document' || r.mode === 'binary' || r.mode === 'hybrid') {
        const dense = this.d.indexes.dense(name);
        if (dense) {
          // asynchronous: an encoder model runs in its runtime's threads while the event loop serves
          const te = performance.now();
          let vector = await dense.queryVector(index, r.query, r.possibleLanguages);
          // hybrid: pseudo-relevance feedback from the lexical channel's top hits (ADR 0102)
          // (corpus model only: a trained bi-encoder's query vector is not mixed; ADR 0105)
          if (vector && r.mode === 'hybrid' && fulltextVotes && dense.kind === 'corpus') {
            const top = fulltextVotes.hits.slice(0, DENSE_FEEDBACK_DOCS);
            const shards = this.d.shards;
            // cluster: the hits' vectors from the shards their works route to (ADR 0248)
            // (a hit whose shard does not answer drops its vector from the mix: the response is then partial, ADR 0265)
            if (shards) {
              const fed = await Promise.all(
                top.map((h) =>
                  shards.documentVector(name, { id: h.id, workKey: h.workKey ?? h.id }).catch(() => {
                    addMissingShards(missingShards, name, [shardOfWork(h.workKey ?? h.id, shards.shards)]);
                    return null;
                  }),
                ),
              );
              vector = withFeedbackVectors(vector, fed, DENSE_FEEDBACK_WEIGHT);
            }
            else vector = withFeedback(index, vector, top.map((h) => h.id), DENSE_FEEDBACK_WEIGHT);
          }
          embedUs += (performance.now() - te) * 1000;
          // auto: exact scan up to EXACT_MAX_VECTORS eligible documents, above it the quantized prefilter
          // (fast-scan kernel, ADR 0140) + float rescoring, recall@10 >= 0.95 against exact (ADR 0103);
          // IVF is not used (ADR 0101)
          const method = r.mode === 'binary' ? 'binary' : 'auto';
          const empty = { hits: [], totalHits: 0, totalHitsExact: true, hasMore: false, rankingMode: 'documents' as const, scanned: 0, missingSegments: 0, method, rescored: 0 };
          const denseQ = { limit: base.limit ?? 10, ...(base.filters ? { filters: base.filters } : {}), collapseByWorkKey: base.collapseByWorkKey ?? false, passagesPerHit: base.passagesPerHit ?? 3 };
          let result: ReturnType<typeof denseSearch> | VectorResult;
          let us: number;
          let denseShards: ScatterResult['shards'] | null = null;
          if (this.d.shards && vector !== null) {
            // cluster: every shard's top k by cosine, merged (vectors are per document: exact; ADR 0246)
            const t = performance.now();
            const sh = await this.d.shards.searchVectors(name, { vector, method, ...denseQ });
            us = (performance.now() - t) * 1000;
            result = sh.result;
            denseShards = sh.shards;
            addMissingShards(missingShards, name, sh.missingShards);
          } else [result, us] = timed(() => (vector === null ? empty : denseSearch(index, vector, method, denseQ)));
          runs.push({
            index: name,
            channel: method === 'binary' ? 'binary' : 'short_document',
            result,
            weight: r.mode === 'hybrid' ? (dense.kind === 'encoder' ? ENCODER_RRF_WEIGHT : DENSE_RRF_WEIGHT) : 1,
            nominates: true,
            us,
            detail: { model_sha256: dense.id, model: dense.kind === 'encoder' ? `onnx encoder (${dense.dims} dims)` : 'corpus-trained', method: result.method, scanned: result.scanned, ...(result.method === 'binary' || result.method === 'quantized' ? { rescored: result.rescored, ...('kernel' in result && result.kernel !== undefined ? { kernel: result.kernel } : {}), ...('floatRescored' in result && result.floatRescored !== undefined ? { float_rescored: result.floatRescored } : {}) } : {}), segments_without_vectors: result.missingSegments, ...(vector === null ? { note: 'no query term is known to the dense model: no candidates' } : {}), ...(denseShards ? { shards: denseShards } : {}) },
          });
        } else if (r.mode === 'hybrid') unconfigured.push(`short_document:${name}`);
      }
      if (deferredSparse) {
        // the deferred sparse hits the dense channel also returned: the only ones that can be shown
        const { run, deferred, search } = deferredSparse;
        const t = performance.now();
        const wanted = new Set(runs.filter((x) => x.index === name && (x.channel === 'short_document' || x.channel === 'binary')).flatMap((x) => x.result.hits.map((h) => h.id)));
        const given = await passagesFor(deferred, base, wanted, search);
        run.us += (performance.now() - t) * 1000;
        run.detail = { ...run.detail, passages: { sub_query_hits: deferred.bare.length, given: given, note: 'passages only for the hits only a sub-query found that another channel also returned (the sparse vote nominates nothing)' } };
      }
      // dense channels rank whole documents; the lexical channels resolve `auto` themselves
      if (i === 0) rankingMode = runs.find((x) => x.channel === 'fulltext' || x.channel === 'sparse')?.result.rankingMode ?? 'documents';
    }
    return { runs, unconfigured, embedUs, rankingMode, missingShards, shardCount: this.d.shards?.shards ?? 0, fetched };
  }

  /** Plan, channels and fusion: the ranked list (top offset+limit) with RRF attribution. */
  async #retrieve(r: SearchRequest, passagesPerHit: number, plan: RankingPlan | null = null) {
    checkAvailable(r);
    const indexNames = resolveIndexes(r.indexNames);
    checkChannels(r, indexNames, this.d.indexes);
    const rrfK = r.rrfK ?? DEFAULT_RRF_K;
    if (!(rrfK > 0)) throw new AppError('validation_failed', 'rrf_k must be > 0.');
    const citing = r.referencedBy === null ? null : await citedWorkUris(this.d.store, r.referencedBy);
    // a ranking stage ranks a deeper pool, with passages for the passage features
    const base = this.#engineQuery(r, citing, plan?.active ? Math.max(passagesPerHit, SNIPPETS_PER_HIT) : passagesPerHit, plan?.active ? plan.depth : 0);
    const t = performance.now();
    const retrieval = await this.#channels(r, indexNames, base);
    const searchUs = (performance.now() - t) * 1000;
    const ranked = this.#rank(retrieval.runs, r, rrfK);
    return { indexNames, retrieval, ranked, searchUs, rrfK, base };
  }

  /** The ranking pipeline (docs/ranking.md): the pool in its final order, then the organic rest. */
  async #stages(r: SearchRequest, plan: RankingPlan, organic: RankedEntry[], retrieval: Retrieval, indexNames: IndexName[], base: EngineQuery, nowMs: number = this.d.clock.nowMs()): Promise<{ ranked: (RankedEntry & { candidate?: Candidate })[]; outcome: RankingOutcome | null; sources: FeatureSources | null; pools: PoolSources | null }> {
    if (!plan.active) return { ranked: organic, outcome: null, sources: null, pools: null };
    const sources = featureSources(r, base, { indexes: this.d.indexes, store: this.d.featureStore ?? this.d.store, engagement: this.d.engagement ?? null, shards: this.d.shards ?? null, now: Math.floor(nowMs / 1000), onMissingShards: (index, shards) => addMissingShards(retrieval.missingShards, index, shards) });
    const pool = buildPool(organic, retrieval.runs, plan.depth);
    const fused = pool.length;
    // benchmark pool options: extra candidates after the fused ones (src/search/extra-pools.ts)
    const extra = await mergeExtraPools(r, plan, pool, base, retrieval.rankingMode, indexNames, this.d.indexes);
    plan.notes.push(...extra.notes);
    const outcome = await runRanking(plan, pool, r.query, sources, this.d.ranking?.crossEncoder ?? null);
    const merged = new Set(extra.added.map((c) => `${c.index}\u0000${c.id}`));
    const organicOf = (c: Candidate) => (c.organicRank < fused ? organic[c.organicRank]! : null);
    const ranked = [
      ...outcome.order.map((c) => ({ hit: c.hit, index: c.index, score: outcome.score(c), rrf: organicOf(c)?.rrf ?? (r.includeRrfScores ? { score: 0, contributions: [] } : null), fused: organicOf(c)?.fused ?? 0, candidate: c })),
      ...organic.slice(fused).filter((e) => !merged.has(`${e.index}\u0000${e.hit.id}`)),
    ];
    return { ranked, outcome, sources, pools: extra.sources };
  }

  /** Plans the ranking stages (422 for what cannot take effect), before any work or charge. */
  #plan(r: SearchRequest): RankingPlan {
    const indexNames = resolveIndexes(r.indexNames);
    const profile = resolveRankingMode({ rankingMode: r.rankingMode });
    const plan = planRanking(r, { indexNames, mode: r.mode, branches: plannedBranches(r, indexNames, this.d.indexes), profile }, this.d.ranking ?? NO_RANKING);
    checkExtraPools(r, plan, indexNames, this.d.indexes);
    // the benchmark pools read one index whole; on a cluster they would read this process's (ADR 0249)
    if (this.d.shards && (r.binaryPool || r.documentDiscovery === true)) throw unavailable(`${r.binaryPool ? 'binary_pool' : 'document_discovery'}: this pool option does not run across the shards of a cluster yet (docs/scale.md); omit it.`);
    return plan;
  }

  /**
   * Runs a search within the work budget (docs/operations.md): a query over the term, postings or
   * results x terms budget is refused with 422 before any work or charge; then it waits for a fair
   * turn (at most `budget.concurrency` of the account's searches running or waiting: 429 beyond).
   */
  async search(principal: Principal, r: SearchRequest, requestId: string, opts: SearchOptions = {}): Promise<SearchResult> {
    checkLanguages({ possible_languages: r.possibleLanguages, filter_languages: r.filters.languages });
    // an account at its concurrency limit is refused before the budget's work (ADR 0305)
    this.#turns?.checkRoom(principal.accountId);
    const { plan, cost, missing } = await this.#checkBudget(r);
    // the account's place is counted now (429 before any hold); a slot is taken only for the work
    // itself (#search), not while the ledger's group commits are awaited around it
    const ticket = this.#turns?.admit(principal.accountId, cost);
    this.#searching++;
    try {
      return await this.#search(principal, r, requestId, opts, plan, ticket, missing, cost);
    } finally {
      this.#searching--;
      ticket?.leave();
    }
  }

  /** `planned`: the plan search() already made for the work budget (the same refusals; not made twice). */
  async #search(principal: Principal, r: SearchRequest, requestId: string, opts: SearchOptions, planned: RankingPlan | null, ticket?: SearchTicket, budgetMissing: readonly { index: IndexName; shard: number }[] = [], work = Infinity): Promise<SearchResult> {
    const t0 = performance.now();
    checkAvailable(r);
    const indexNames = resolveIndexes(r.indexNames);
    checkChannels(r, indexNames, this.d.indexes);
    if (planned === null) this.#plan(r); // refusals before the hold
    // the most the page can cost is held when the balance covers it: no second write for the charge (ADR 0185)
    await this.d.billing.reserve(principal, this.d.prices.search, 'search', requestId, searchCost(this.d.prices, r.limit));
    let billingUs = (performance.now() - t0) * 1000;
    await ticket?.turn();
    const nowMs = this.d.clock.nowMs();
    const encodeHits = opts.encodeHits === true && !r.tracing;
    const ex = this.d.executor && !this.#inline(work) ? await this.d.executor.execute(r, nowMs, encodeHits, ticket?.light === true) : await this.#executeHere(r, nowMs, encodeHits && this.d.executor !== undefined);
    ticket?.endTurn();
    // the main thread's work on the response (transfer, splice, write) charges the account's share too (ADR 0305)
    if (ex.encodedHits) ticket?.charge(responseWork(ex.encodedHits.bytes.byteLength));
    const tCharge = performance.now();
    const ids = ex.encodedHits ? ex.encodedHits.ids : ex.hits.map((h) => h.id);
    const cost = searchCost(this.d.prices, ids.length);
    await this.d.billing.charge(principal, cost, 'search', requestId);
    billingUs += (performance.now() - tCharge) * 1000;
    const trajectory = await this.#shown(principal, ids, { query: r.query, indexNames });
    return {
      rankingMode: ex.rankingMode,
      hits: ex.hits,
      encodedHits: ex.encodedHits ?? null,
      totalHits: ex.totalHits,
      hasNext: ex.hasNext,
      correctedQuery: ex.correctedQuery,
      embedMs: ex.embedMs,
      timings: {
        searchUs: Math.round(ex.engineUs),
        loadUs: Math.round(ex.recordsUs + ex.snippetsUs),
        totalUs: Math.round((performance.now() - t0) * 1000),
        stages: { engineUs: ex.engineUs, recordsUs: ex.recordsUs, snippetsUs: ex.snippetsUs, billingUs, queueUs: ex.queueUs },
      },
      trajectory,
      traces: ex.traces,
      cost,
      candidateRanking: ex.candidateRanking,
      rankingStages: ex.rankingStages,
      ...partialWith(ex.partial, budgetMissing, this.d.shards?.shards ?? 0),
    };
  }

  /** Searches run inline (ADR 0326) since start. */
  get inlineSearches(): number {
    return this.#inlineSearches;
  }

  /**
   * Whether a search of `work` (its estimate) runs inline, here (ADR 0326): cheap enough, and nothing else
   * searching. Called after the search got its fair turn, so it counts itself as the one running.
   */
  #inline(work: number): boolean {
    const inline = this.d.inline;
    const ex = this.d.executor;
    if (!inline || !(work <= inline.maxWork) || !ex) return false;
    // another search anywhere between its admission and its end (its billing included): not alone
    if (this.#searching > 1 || (ex.inflight ?? 1) > 0 || ex.pacing === true) return false;
    const turns = this.#turns?.stats;
    if (turns && (turns.running > 1 || turns.waiting > 0)) return false;
    this.#inlineSearches++;
    return true;
  }

  /** The execution here (in process or inline); with `encodeHits`, its hits encoded as the threads' are (ADR 0326). */
  async #executeHere(r: SearchRequest, nowMs: number, encodeHits: boolean): Promise<SearchExecution> {
    const ex = await this.execute(r, nowMs);
    const encoder = this.d.inline?.encodeHits ?? null;
    if (!encodeHits || encoder === null) return ex;
    return { ...ex, hits: [], encodedHits: { bytes: encoder(ex.hits), ids: ex.hits.map((h) => h.id) } };
  }

  /**
   * A search's work between its credit hold and its charge (plan, channels, fusion, ranking stages,
   * records, snippets, spelling, traces): what a search thread runs (ADR 0110). No billing, activity or
   * trajectory. The plan is made again here (cheap; the caller made it before the hold to refuse early).
   */
  async execute(r: SearchRequest, nowMs: number = this.d.clock.nowMs()): Promise<SearchExecution> {
    const computeAll = (cands: Candidate[], src: FeatureSources, e: EngagementInfo) => computeFeatures(cands, ALL_GROUPS, src, e);
    const plan = this.#plan(r);
    const { indexNames, retrieval, ranked: organic, searchUs, rrfK, base } = await this.#retrieve(r, r.returnDocuments ? SNIPPETS_PER_HIT : 0, plan);
    const { runs } = retrieval;
    const tRank = performance.now();
    const { ranked, outcome, sources, pools } = await this.#stages(r, plan, organic, retrieval, indexNames, base, nowMs);
    const page = ranked.slice(r.offset, r.offset + r.limit);
    const rankUs = (performance.now() - tRank) * 1000;
    // matches: the lexical channels' counts when they ran (a dense channel "matches" every document with a vector)
    const totalHits = indexNames.reduce((n, name) => {
      const own = runs.filter((x) => x.index === name);
      const lexical = own.filter((x) => x.channel === 'fulltext' || x.channel === 'sparse');
      return n + Math.max(0, ...(lexical.length > 0 ? lexical : own).map((x) => x.result.totalHits));
    }, 0);
    // Exact per index (exactTotal); indexes hold different records, so the totals add up.
    const hasNext = totalHits > r.offset + r.limit;

    const tLoad = performance.now();
    let recordsUs = 0;
    let hits: SearchHit[] = page.map((p) => ({ id: p.hit.id, index: p.index, score: p.score, snippets: [], doc: null, rrf: p.rrf, explanation: p.hit.explanation }));
    if (plan.includeScores && outcome) {
      // candidate scores of the returned hits: every feature group (the page only, beyond what the stages needed)
      const cands = page.map((p) => p.candidate ?? null);
      await computeAll(cands.filter((c): c is Candidate => c !== null), sources!, outcome.engagement);
      hits = hits.map((h, i) => ({ ...h, candidateScores: cands[i] ? candidateScores(cands[i]) : null }));
    }
    if (r.returnDocuments && hits.length > 0) {
      // Display records (no full text; cached when hot), plus the body text of hits whose passages are in it (ADR 0135).
      const parsedBy = new Map(indexNames.map((n) => [n, this.d.indexes.get(n).parse(r.query, r.possibleLanguages)]));
      const { docs, sources: texts } = await loadHitRecords(this.d.store, page.map((p) => ({ hit: p.hit, index: p.index })), SNIPPETS_PER_HIT, this.#storedRecords(retrieval.fetched), this.d.bodySlices ? (n) => parsedBy.get(n)! : null);
      recordsUs = (performance.now() - tLoad) * 1000;
      const loaded: SearchHit[] = [];
      hits.forEach((h, i) => {
        const doc = docs.get(h.id);
        // A document deleted after indexing is skipped; the next catch-up removes it from the index.
        if (doc) loaded.push({ ...h, doc, snippets: snippetsFor(texts.get(h.id)!, page[i]!.hit, parsedBy.get(h.index)!) });
      });
      hits = loaded;
      // the cross-encoder picks each snippet's evidence window in the hits it reranked
      if (outcome?.cross) {
        const cross = outcome.cross;
        const reranked = new Set([...cross.reranked].map((c) => `${c.index}\u0000${c.id}`));
        const t = performance.now();
        hits = await Promise.all(hits.map(async (h) => (reranked.has(`${h.index}\u0000${h.id}`) ? { ...h, evidence: await pickEvidence(cross.encoder, r.query, h.snippets.map((s) => s.text)) } : h)));
        outcome.stages.push({ stage: 'evidence', us: Math.round((performance.now() - t) * 1000), hits: hits.filter((h) => h.evidence).length });
      }
    }
    const loadUs = (performance.now() - tLoad) * 1000;

    let correctedQuery: string | null = null;
    if (r.query.trim() !== '' && this.d.shards) {
      // the shards' dictionaries; a shard that did not answer makes the response partial (ADR 0265)
      const c = await this.d.shards.correctQuery(indexNames[0]!, r.query, r.possibleLanguages);
      correctedQuery = c.corrected;
      addMissingShards(retrieval.missingShards, indexNames[0]!, c.missingShards);
    } else if (r.query.trim() !== '') correctedQuery = this.d.indexes.get(indexNames[0]!).correctQuery(r.query, r.possibleLanguages);
    const traces = r.tracing ? this.#traces(retrieval, r, rrfK, plan, outcome?.stages ?? [], rankUs, pools) : null;
    const usesModels = runs.some((x) => x.channel !== 'fulltext');
    // always said, also when the candidates are the fused (RRF) list with no stage after it
    const candidateRanking = candidateRankingInfo(plan, outcome, featureContract(plan, r, rrfK, { maxQueryDims: DEFAULT_MAX_QUERY_DIMS, pruning: DEFAULT_PRUNING, heapFactor: DEFAULT_HEAP_FACTOR }));
    return {
      rankingMode: retrieval.rankingMode,
      hits: hits.map((h, i) => ({ ...h, explanation: r.tracing && i < TRACE_EXPLAIN_HITS ? h.explanation : undefined })),
      totalHits,
      hasNext,
      correctedQuery,
      embedMs: usesModels ? Math.round(retrieval.embedUs / 1000) : null,
      traces,
      candidateRanking,
      rankingStages: (outcome?.stages ?? []).map((x) => ({ stage: x.stage, us: x.us })),
      ...(retrieval.missingShards.length > 0 ? { partial: { shards: retrieval.shardCount, missing: retrieval.missingShards } } : {}),
      engineUs: searchUs + rankUs,
      recordsUs,
      snippetsUs: Math.max(0, loadUs - recordsUs),
      queueUs: 0,
    };
  }

  /**
   * The indexes' stored display records (ADR 0280): this process's indexes, or on a cluster's api node
   * the shards' (the fetch phase); null when no links were given (records from store.getDisplayMany).
   */
  #storedRecords(fetched: Retrieval['fetched'] | null = null): StoredRecords | null {
    const links = this.d.workLinks;
    if (!links) return null;
    const link: StoredRecords['link'] = (docs) => links.link(docs);
    const plain = this.d.featureStore ?? this.d.store;
    const shards = this.d.shards;
    if (shards) {
      return {
        plain,
        records: async (index, ids) => {
          const out = new Map<string, DisplayDocument>();
          // records that came with the search's hits (ADR 0292); a records call only for the others
          const pre = fetched?.get(index);
          const rest = pre ? ids.filter((id) => !pre.covered.has(id)) : ids;
          if (pre) {
            for (const id of ids) {
              const text = pre.records.get(id);
              if (text !== undefined) out.set(id, JSON.parse(text) as DisplayDocument);
            }
          }
          if (rest.length > 0) for (const [id, text] of await shards.records(index, rest)) out.set(id, JSON.parse(text) as DisplayDocument);
          return out;
        },
        link,
      };
    }
    const indexes = this.d.indexes;
    return localStoredRecords((name) => indexes.get(name), link, plain, this.d.hitRecordCache ?? null);
  }

  /**
   * Records the hits as `shown` (a failure is reported, never thrown) and signs the trajectory's feedback
   * token, with the query it answered so feedback can train rankers (ADR 0128).
   */
  async #shown(principal: Principal, ids: readonly string[], judged: { query: string; indexNames: string[] } | null = null): Promise<SearchResult['trajectory']> {
    const now = nowSeconds(this.d.clock);
    try {
      if (ids.length > 0) await this.d.activity.record(ids.map((id) => ({ documentId: id, kind: 'shown' as const, accountId: principal.accountId, visitor: null, at: now })));
    } catch (e) {
      this.d.report(e, 'recording shown activity');
    }
    const trajectoryId = randomUUID();
    return { id: trajectoryId, feedbackToken: signFeedbackToken(this.d.secret, { trajectoryId, accountId: principal.accountId, expiresAt: now + FEEDBACK_TOKEN_TTL_S, ...(judged ?? {}) }) };
  }

  /**
   * Documents similar to one (SimilarRequestV2): the source document's stored title+abstract vector
   * seeds an exact dense search of its own index; the source itself and other records of its work are
   * left out. Billed like a search; 404 for an unknown document; 422 when its index has no dense model.
   */
  async similar(principal: Principal, q: SimilarQuery, requestId: string): Promise<SearchResult> {
    const t0 = performance.now();
    if (!(q.limit >= 1 && q.limit <= 100)) throw new AppError('validation_failed', `limit must be 1 to 100 (got ${q.limit}).`);
    checkLanguages({ filter_languages: q.languages });
    const doc = await this.d.store.get(q.documentId);
    if (!doc) throw new AppError('not_found', `No document ${q.documentId}.`);
    const dense = this.d.indexes.dense(doc.index);
    if (!dense) throw unavailable(`short_document: similar documents need document vectors from the dense model, which the ${doc.index} index does not have; ${TRAIN_HINT}.`);
    await this.d.billing.reserve(principal, this.d.prices.search, 'search', requestId, searchCost(this.d.prices, q.limit));
    const index = this.d.indexes.get(doc.index);
    const tEmbed = performance.now();
    // the indexed vector; a document not yet indexed (committed within seconds) is embedded from its text
    // cluster: the vector from the shard the document's work routes to, the search over every shard (ADR 0246)
    const shards = this.d.shards;
    const stored = shards ? await shards.documentVector(doc.index, { id: doc.id, workKey: routingKey(doc) }) : index.documentVector(doc.id);
    const vector = stored ?? (await dense.documentVector(doc.title, doc.abstract, doc.language));
    const embedUs = (performance.now() - tEmbed) * 1000;
    const tSearch = performance.now();
    const ownWork = doc.workKey;
    let ranked: EngineHit[] = [];
    let result: (EngineResult & { scanned: number }) | null = null;
    let missing: { index: IndexName; shard: number }[] = [];
    if (vector !== null) {
      const dq = { limit: Math.min(500, q.limit + 1), filters: { languages: q.languages, types: q.types }, collapseByWorkKey: true, passagesPerHit: 1 };
      if (shards) {
        const sh = await shards.searchVectors(doc.index, { vector, method: 'auto', ...dq });
        result = sh.result;
        missing = sh.missingShards.map((shard) => ({ index: doc.index, shard }));
      } else result = denseSearch(index, vector, 'auto', dq);
      ranked = result.hits.filter((h) => h.id !== doc.id && (ownWork === null || h.workKey !== ownWork)).slice(0, q.limit);
    }
    const searchUs = (performance.now() - tSearch) * 1000;
    const tLoad = performance.now();
    const parsed = index.parse('', null);
    const { docs, sources } = await loadHitRecords(this.d.store, ranked.map((hit) => ({ hit, index: doc.index })), 1, this.#storedRecords(), this.d.bodySlices ? () => parsed : null);
    const hits: SearchHit[] = [];
    for (const h of ranked) {
      const d = docs.get(h.id);
      if (d) hits.push({ id: h.id, index: doc.index, score: h.score, snippets: snippetsFor(sources.get(h.id)!, h, parsed, 1), doc: d, rrf: null });
    }
    const loadUs = (performance.now() - tLoad) * 1000;
    const cost = searchCost(this.d.prices, hits.length);
    await this.d.billing.charge(principal, cost, 'search', requestId);
    const trajectory = await this.#shown(principal, hits.map((h) => h.id));
    return {
      rankingMode: 'documents',
      hits,
      totalHits: Math.max(hits.length, (result?.scanned ?? 1) - 1),
      hasNext: false,
      correctedQuery: null,
      ...(missing.length > 0 ? { partial: { shards: shards!.shards, missing } } : {}),
      embedMs: Math.round(embedUs / 1000),
      timings: { searchUs: Math.round(searchUs), loadUs: Math.round(loadUs), totalUs: Math.round((performance.now() - t0) * 1000) },
      trajectory,
      traces: null,
      cost,
    };
  }

  /**
   * The lexical model of an index for another capability (conversations score answer sentences with
   * it): the index analyzer's terms of a text (stemmed, stop words dropped) and each term's inverse
   * document frequency over the index's live documents (BM25's form; a term no document holds gets the
   * largest value). Document frequencies are looked up once per term per model.
   */
  /**
   * {@link termModel} for the terms of `texts` (the question's): on a cluster their document frequencies
   * and the document count come from the shards, summed (ADR 0248); a term outside `texts` gets the
   * largest value there. On one node, the index's model.
   */
  async termModelFor(index: IndexName, language: string, texts: readonly string[]): Promise<TermModel> {
    const shards = this.d.shards;
    if (!shards) return this.termModel(index, language);
    const analyzer = analyzerFor(language);
    const terms = (text: string): string[] => {
      const out: string[] = [];
      analyzer.analyze(text, (term) => {
        if (term !== null) out.push(term);
      });
      return out;
    };
    const wanted = [...new Set(texts.flatMap(terms))];
    const st = await shards.termStats(index, wanted);
    // the answer's term weights from part of the corpus would be a silently different answer (ADR 0265)
    if (st.missingShards.length > 0) throw shardsUnavailable(st.missingShards.map((shard) => ({ index, shard })));
    const n = Math.max(1, st.documents);
    return {
      documents: n,
      maxIdf: Math.log(1 + (n + 0.5) / 0.5),
      terms,
      idf: (term: string) => {
        const df = st.df[term] ?? 0;
        return Math.log(1 + (n - df + 0.5) / (df + 0.5));
      },
    };
  }

  termModel(index: IndexName, language = 'en'): TermModel {
    const idx = this.d.indexes.get(index);
    const n = Math.max(1, idx.stats().docs);
    const analyzer = analyzerFor(language);
    const dfs = new Map<string, number>();
    return {
      documents: n,
      maxIdf: Math.log(1 + (n + 0.5) / 0.5),
      terms(text: string): string[] {
        const out: string[] = [];
        analyzer.analyze(text, (term) => {
          if (term !== null) out.push(term);
        });
        return out;
      },
      idf(term: string): number {
        let df = dfs.get(term);
        if (df === undefined) dfs.set(term, (df = idx.docFreq(term)));
        return Math.log(1 + (n - df + 0.5) / (df + 0.5));
      },
    };
  }

  /**
   * Retrieval for another capability (conversations): the same plan, channels, fusion, documents and
   * snippets as {@link search}, without billing, activity or a trajectory (the caller bills its own
   * operation and records what it shows). Returns the page of hits with documents loaded.
   */
  /**
   * The work budget of a search (docs/operations.md): throws 422 (`budget` terms, postings or
   * result_terms) when `r` asks for more than one search may do. Conversations check their questions
   * with it (issue 25).
   */
  async checkBudget(r: SearchRequest): Promise<void> {
    const { missing } = await this.#checkBudget(r);
    // a conversation has no partial flag: its budget from part of the corpus is refused (ADR 0265)
    if (missing.length > 0) throw shardsUnavailable(missing);
  }

  /** The budget check; returns the ranking plan it made (null without a budget or query) and the work estimate the fair turns charge (ADR 0212). */
  async #checkBudget(r: SearchRequest): Promise<{ plan: RankingPlan | null; cost: number; missing: { index: IndexName; shard: number }[] }> {
    const missing: { index: IndexName; shard: number }[] = [];
    if (!this.d.budget || r.query.trim() === '') return { plan: null, cost: workEstimate({ postings: 0, resultTerms: 0 }), missing };
    const names = resolveIndexes(r.indexNames);
    // a ranking stage retrieves its whole pool with passages: the pool counts as results (docs/ranking.md)
    const plan = this.#plan(r);
    const page = r.offset + r.limit;
    const results = plan.active ? Math.max(page, plan.depth) : page;
    // only what pruning cannot fit is refused (ADR 0231); the measure is the pruned query's work
    // on a cluster the postings are the corpus's: the query's terms' document frequencies summed over
    // the shards (the DFS call), so an api node without postings refuses and prunes as one node (ADR 0266)
    const budgeted = this.d.shards ? await Promise.all(names.map((n) => this.#shardBudgeted(n, r, missing))) : names.map((n) => this.d.indexes.get(n));
    const measure = checkWorkBudget(budgeted, r.query, r.possibleLanguages, this.d.budget, results);
    return { plan, cost: workEstimate(measure), missing };
  }

  /**
   * An index as the work budget reads it on a cluster (ADR 0266): this process's analysis of the query (a
   * pure function of the text) and its terms' document frequencies summed over the shards. A shard that
   * does not answer is left out of the sums and added to `missing` (the response names it, ADR 0265).
   */
  async #shardBudgeted(name: IndexName, r: SearchRequest, missing: { index: IndexName; shard: number }[]): Promise<BudgetedIndex> {
    const index = this.d.indexes.get(name);
    const terms = [...queryTerms(index.parse(r.query, r.possibleLanguages))];
    const { df, missingShards } = await this.d.shards!.termStats(name, terms);
    addMissingShards(missing, name, missingShards);
    return { parse: (text, languages) => index.parse(text, languages), docFreq: (t) => df[t] ?? 0 };
  }

  /**
   * A conversation's retrieval: the same work budget as a search (422 before any work) and, with
   * `accountId`, the same fair turns (the account's concurrency limit, round-robin slots).
   */
  async retrieve(r: SearchRequest, accountId?: number): Promise<SearchHit<StoredDocument>[]> {
    const { cost, missing } = await this.#checkBudget(r);
    if (missing.length > 0) throw shardsUnavailable(missing);
    const ticket = accountId === undefined ? undefined : this.#turns?.admit(accountId, cost);
    try {
      await ticket?.turn();
      return await this.#retrieveHits(r);
    } finally {
      ticket?.leave();
    }
  }

  async #retrieveHits(r: SearchRequest): Promise<SearchHit<StoredDocument>[]> {
    // the same ranking stages as a search (without candidate scores or evidence)
    const plan = this.#plan({ ...r, includeCandidateScores: false });
    const { indexNames, ranked: organic, retrieval, base } = await this.#retrieve({ ...r, tracing: false }, SNIPPETS_PER_HIT, plan);
    const { ranked } = await this.#stages(r, plan, organic, retrieval, indexNames, base);
    // a conversation's answer has no partial flag: a shard without a live replica fails the turn clearly
    // rather than answering from part of the corpus (ADR 0265)
    if (retrieval.missingShards.length > 0) throw shardsUnavailable(retrieval.missingShards);
    const page = ranked.slice(r.offset, r.offset + r.limit);
    if (page.length === 0) return [];
    const docs = await this.d.store.getMany(page.map((p) => p.hit.id));
    const parsedBy = new Map(indexNames.map((n) => [n, this.d.indexes.get(n).parse(r.query, r.possibleLanguages)]));
    const out: SearchHit<StoredDocument>[] = [];
    for (const p of page) {
      const doc = docs.get(p.hit.id);
      if (doc) out.push({ id: p.hit.id, index: p.index, score: p.score, snippets: withBody(doc, snippetsFor(doc, p.hit, parsedBy.get(p.index)!, SNIPPETS_PER_HIT, ANSWER_SNIPPET_CHARS), parsedBy.get(p.index)!), doc, rrf: p.rrf });
    }
    return out;
  }

  /**
   * The organic top `depth` candidates of `query` in one index with their full v1 feature rows
   * (featureRow: every group): the candidates and rows the L2 stage scores, for training
   * (ranking/training-source.ts). No billing, activity or trajectory.
   */
  async candidatePool(query: string, index: IndexName, depth: number, mode: SearchRequest['mode'] = 'hybrid'): Promise<{ id: string; row: Float64Array }[]> {
    const limit = Math.max(1, Math.min(500, depth));
    const r = defaultSearchRequest({ query, mode, indexNames: [index], limit, l2Rerank: 'off', crossRerank: false, candidateRanking: 'rrf', includeCandidateScores: true });
    const plan = this.#plan(r);
    const { ranked, retrieval, base } = await this.#retrieve(r, 0, plan);
    const pool = buildPool(ranked, retrieval.runs, limit);
    const sources = featureSources(r, base, { indexes: this.d.indexes, store: this.d.featureStore ?? this.d.store, engagement: this.d.engagement ?? null, shards: this.d.shards ?? null, now: nowSeconds(this.d.clock) });
    await computeFeatures(pool, ALL_GROUPS, sources, { enabled: false, asOfAt: 0, computedAt: 0, observedDocuments: 0, requestedDocuments: 0, elapsedUs: 0 });
    return pool.map((c) => ({ id: c.id, row: featureRow(c) }));
  }

  /** The channels (ranking branches) a request of `mode` runs on `index` with default settings: a trained model's lane. */
  plannedChannels(mode: string, index: IndexName): string[] {
    return [...plannedBranches(defaultSearchRequest({ mode: mode as SearchRequest['mode'], indexNames: [index] }), [index], this.d.indexes)].sort();
  }

  /**
   * Named documents as hits for `query` (conversations' pinned `document_ids`): each document's best
   * passages for the query, or its abstract/title window when nothing matches. Unknown ids are left out.
   */
  async pinnedHits(ids: readonly string[], query: string): Promise<SearchHit<StoredDocument>[]> {
    if (ids.length === 0) return [];
    const docs = await this.d.store.getMany([...ids]);
    const out: SearchHit<StoredDocument>[] = [];
    for (const id of ids) {
      const doc = docs.get(id);
      if (!doc) continue;
      const index = this.d.indexes.get(doc.index);
      const parsed = index.parse(query, null);
      const r = index.search({ text: query, rankingMode: 'passages', limit: 1, passagesPerHit: SNIPPETS_PER_HIT, filters: { ids: [doc.id] } });
      const hit = r.hits[0];
      const snippets = withBody(doc, hit ? snippetsFor(doc, hit, parsed, SNIPPETS_PER_HIT, ANSWER_SNIPPET_CHARS) : snippetsFor(doc, { id: doc.id, score: 0, passages: [] } as unknown as EngineHit, parsed, SNIPPETS_PER_HIT, ANSWER_SNIPPET_CHARS), parsed);
      out.push({ id: doc.id, index: doc.index, score: hit?.score ?? 0, snippets, doc, rrf: null });
    }
    return out;
  }

  /**
   * The full ranking (top offset+limit) with scores and RRF attribution. One list is the ranking itself
   * (its own scores); several are fused by weighted RRF (a vote is weight / (rrf_k + rank)). A channel
   * that does not nominate (sparse with sparse_nomination off) votes only for documents another channel
   * of the same index returned.
   */
  #rank(runs: ChannelRun[], r: SearchRequest, rrfK: number): RankedEntry[] {
    const indexes = new Set(runs.map((x) => x.index)).size;
    const channel = (x: ChannelRun) => (indexes === 1 ? x.channel : `${x.channel}:${x.index}`);
    const key = (x: ChannelRun, id: string) => `${x.index}\u0000${id}`;
    const byId = new Map<string, { hit: EngineHit; index: IndexName }>();
    // prefer the lexical channels' hits (they carry matched passages for snippets)
    for (const x of [...runs].reverse()) for (const h of x.result.hits) byId.set(key(x, h.id), { hit: h, index: x.index });
    const nominated = new Set<string>();
    for (const x of runs) if (x.nominates) for (const h of x.result.hits) nominated.add(key(x, h.id));
    const lists = runs.map((x) => ({
      channel: channel(x),
      weight: x.weight,
      ids: x.result.hits.map((h) => key(x, h.id)).filter((id) => x.nominates || nominated.has(id)),
    }));
    const fused = fuseRrf(lists, { k: rrfK });
    const weightOf = new Map(lists.map((l) => [l.channel, l.weight]));
    const rrfOf = (f: (typeof fused)[number]) =>
      r.includeRrfScores ? { score: f.score, contributions: f.votes.map((v) => ({ channel: v.channel, rank: v.rank, weight: weightOf.get(v.channel) ?? 1, contribution: v.contribution })) } : null;
    if (runs.length === 1) {
      // One channel: the fused order is the channel's order; scores stay the channel's scores.
      return fused.map((f) => {
        const e = byId.get(f.id)!;
        return { hit: e.hit, index: e.index, score: e.hit.score, rrf: rrfOf(f), fused: f.score };
      });
    }
    return fused.map((f) => {
      const e = byId.get(f.id)!;
      return { hit: e.hit, index: e.index, score: f.score, rrf: rrfOf(f), fused: f.score };
    });
  }

  #traces(ret: Retrieval, r: SearchRequest, rrfK: number, plan: RankingPlan, stages: readonly unknown[], rankUs: number, pools: PoolSources | null = null): unknown[] {
    const traces: unknown[] = ret.runs.map((p) => ({
      shard: p.index,
      branch: p.channel,
      total_hits: p.result.totalHits,
      total_hits_exact: p.result.totalHitsExact,
      has_more: p.result.hasMore,
      us: Math.round(p.us),
      rrf_weight: p.weight,
      ...(p.detail ?? {}),
      ...(p.result.pruned ? { pruned: { dropped_terms: p.result.pruned.droppedTerms, terms: p.result.pruned.terms, postings: p.result.pruned.postings, passage_terms: p.result.pruned.passageTerms, clauses: p.result.pruned.clauses } } : {}),
      engine: p.result.trace ?? null,
    }));
    const pruned = ret.runs.filter((x) => x.result.pruned);
    const channels = [...new Set(ret.runs.map((x) => x.channel))];
    const onlyLexical = channels.length === 1 && channels[0] === 'fulltext';
    traces.push({
      branch: 'fusion',
      mode: r.mode,
      resolved: ret.runs.length === 1 ? ret.runs[0]!.channel : 'rrf',
      note:
        r.mode === 'hybrid'
          ? onlyLexical
            ? 'hybrid fuses the configured channels; only the lexical (fulltext) channel is configured, so the ranking equals fulltext'
            : `hybrid fuses ${channels.join(', ')} by weighted RRF`
          : `${r.mode}: this channel only`,
      channels: ret.runs.map((x) => (new Set(ret.runs.map((y) => y.index)).size === 1 ? x.channel : `${x.channel}:${x.index}`)),
      unconfigured: ret.unconfigured.map((c) => `${c} (not configured: ${TRAIN_HINT})`),
      ...(r.mode === 'hybrid' ? { binary: 'not a separate hybrid vote: binary codes quantize the short_document vectors' } : {}),
      embed_us: Math.round(ret.embedUs),
      rrf_k: rrfK,
      // pruned evaluation of a long query (ADR 0231), as Lucene's max clause count and Elasticsearch's timeouts flag theirs
      ...(pruned.length > 0
        ? {
            pruned: true,
            pruning: pruned.map((x) => {
              const p = x.result.pruned!;
              const parts = [p.droppedTerms.length > 0 ? `${p.droppedTerms.length} most common terms left out (${p.droppedTerms.slice(0, 8).join(', ')}${p.droppedTerms.length > 8 ? ', ...' : ''}); ${p.terms} evaluated` : null, p.passageTerms !== null ? `passages, snippets and proximity read the ${p.passageTerms} weightiest of ${p.clauses} words` : null].filter(Boolean);
              return `${x.channel}${new Set(ret.runs.map((y) => y.index)).size > 1 ? `:${x.index}` : ''}: ${parts.join('; ')} (limits.queryMaxTerms, queryMaxPostings, queryMaxResultTerms)`;
            }),
          }
        : {}),
    });
    traces.push({
      branch: 'ranking',
      candidate_ranking: plan.method,
      pool: plan.active ? plan.depth : 0,
      pool_sources: pools ?? {},
      us: Math.round(rankUs),
      stages,
      l2: plan.l2 ? `${plan.l2.requested}: ${[...plan.l2.models].map(([n, m]) => `${n} ${m.sha256.slice(0, 12)} (mode ${m.trainedFor.mode})`).join(', ')}` : r.l2Rerank === 'off' ? 'off' : plan.l2Skipped.length > 0 ? 'skipped: no model for this mode and channels' : 'not run',
      l2_skipped: plan.l2Skipped.map((x) => ({ corpus: x.corpus, model_sha256: x.modelSha256, trained_for: { mode: x.trainedFor.mode, channels: x.trainedFor.channels, feature_version: x.trainedFor.featureVersion, recorded: x.trainedFor.recorded }, reason: x.reason })),
      cross_rerank: plan.cross > 0 ? `${plan.cross} candidates` : r.crossRerank ? 'not run' : 'off',
      notes: plan.notes,
    });
    return traces;
  }
}

/** URI prefixes compare against canonical URIs: the scheme and DOI prefixes are lower-cased. */
function normalizePrefix(p: string): string {
  const m = /^([a-z]+):\/\/(.*)$/is.exec(p.trim());
  if (!m) return p.trim();
  const scheme = m[1]!.toLowerCase();
  return `${scheme}://${scheme === 'doi' ? m[2]!.toLowerCase() : m[2]}`;
}
