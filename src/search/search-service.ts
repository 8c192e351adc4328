// POST /v2/search/: request -> plan (which channels exist, what must be refused) -> engine per index
// -> fusion -> documents and snippets -> billing, `shown` activity, trajectory.
//
// Channels: Lectern has one retrieval channel today, the stemmed BM25F lexical channel (`fulltext`).
// `hybrid` fuses what is available, so with only the lexical channel it returns exactly the `fulltext`
// ranking (the trace says so). Anything that needs a component that is not configured (sparse, binary
// or short-document channels, formula or CatBoost ranking, `l1`) is refused with 422
// `feature_unavailable` naming the component, never silently downgraded. The defaults
// `cross_rerank: true` and `l2_rerank: auto` have no effect without a configured reranker/profile.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { checkWorkBudget, FairScheduler, type WorkBudget } from './work-budget.js';
import { buildSnippet, fuseRrf, type EngineHit, type EngineQuery, type EngineResult, type FieldName, type ParsedQuery, type SearchIndex, type SnippetWindow } from '../engine/index.js';
import type { IndexName, StoredDocument } from '../domain/document.js';
import { INDEX_NAMES } from '../domain/document.js';
import { AppError } from '../domain/errors.js';
import { searchCost, type PriceTable } from '../domain/prices.js';
import type { Principal } from '../domain/principal.js';
import type { BillingService } from '../billing/billing-service.js';
import type { ActivityRecorder } from '../activity/activity-buffer.js';
import type { Clock } from '../ports/clock.js';
import { nowSeconds } from '../ports/clock.js';
import type { DocumentStore } from '../ports/document-store.js';
import type { ErrorReporter } from '../ports/error-reporter.js';
import { citedWorkUris } from './citations.js';
import { FEEDBACK_TOKEN_TTL_S, signFeedbackToken } from './feedback-token.js';
import type { IndexSet } from './index-set.js';
import type { SearchHit, SearchRequest, SearchResult } from './search-types.js';

/** RRF smoothing constant when the request gives none (interface: service default 60). */
export const DEFAULT_RRF_K = 60;
/** Snippets per hit. */
const SNIPPETS_PER_HIT = 3;
/** Snippet windows of retrieve()/pinnedHits(), code points: long enough to hold whole sentences to answer from. */
const ANSWER_SNIPPET_CHARS = 1200;
/** Traces are bounded: at most this many hits carry an explanation. */
const TRACE_EXPLAIN_HITS = 10;

export interface SearchServiceDeps {
  indexes: IndexSet;
  store: DocumentStore;
  activity: ActivityRecorder;
  billing: BillingService;
  prices: PriceTable;
  clock: Clock;
  secret: string;
  report: ErrorReporter;
  /** Work limits of one query and searches in flight per account (absent: unbounded). */
  budget?: WorkBudget;
}

const unavailable = (what: string) => new AppError('feature_unavailable', what, { extra: { missing: what.split(':')[0] } });

/** Refuses requests that need components Lectern does not have configured (never a silent fallback). */
export function checkAvailable(r: SearchRequest): void {
  if (r.mode === 'sparse' || r.mode === 'binary' || r.mode === 'short_document') {
    throw unavailable(`${r.mode}: mode "${r.mode}" needs the ${r.mode.replace('_', '-')} retrieval channel, which is not configured on this server; use "hybrid" or "fulltext".`);
  }
  if (r.candidateRanking === 'formula') throw unavailable('formula: candidate_ranking "formula" needs a formula model or artifact for the ranking profile; none is configured. Use "auto" or "rrf".');
  if (r.l2Rerank === 'catboost') throw unavailable('catboost: l2_rerank "catboost" needs a CatBoost model; none is configured. Use "auto" or "off".');
  if (r.l1Formula !== null) throw unavailable('l1: l1 formula ranking needs the ranking pipeline (raw branch scores), which is not configured; omit l1.');
  if (r.sparseNomination === true) throw unavailable('sparse: sparse_nomination needs the sparse retrieval channel, which is not configured.');
  if (r.binaryPool) throw unavailable('binary: binary_pool needs the binary retrieval channel and an L2 reranker, which are not configured.');
  if (r.documentDiscovery === true) throw unavailable('reranker: document_discovery merges into a reranker pool; no reranker is configured.');
  if (r.fulltextWeight === 0) throw unavailable('channels: fulltext_weight 0 disables the lexical channel and no other retrieval channel is configured, so nothing could be retrieved.');
  // Interface, Limits: the query is at most 16 KiB of UTF-8 (the schema bounds characters; this, bytes).
  const bytes = Buffer.byteLength(r.query, 'utf8');
  if (bytes > 16_384) throw new AppError('validation_failed', `query is ${bytes} bytes of UTF-8; the limit is 16384 bytes (16 KiB).`);
  if (r.offset + r.limit > 500) throw new AppError('validation_failed', `offset + limit must not exceed 500 (got ${r.offset} + ${r.limit}).`);
}

function resolveIndexes(names: readonly string[]): IndexName[] {
  const out: IndexName[] = [];
  for (const n of names) {
    if (!(INDEX_NAMES as readonly string[]).includes(n)) throw new AppError('validation_failed', `Unknown index ${JSON.stringify(n)}; the indexes are ${INDEX_NAMES.join(', ')}.`);
    if (!out.includes(n as IndexName)) out.push(n as IndexName);
  }
  return out;
}

/** The field text a passage points into. */
export function fieldText(doc: StoredDocument, field: FieldName): string {
  return field === 'title' ? doc.title : field === 'abstract' ? (doc.abstract ?? '') : (doc.fullText ?? '');
}

/** Snippets of a hit from its passages (or the best window of the abstract/title when it has none). */
export function snippetsFor(doc: StoredDocument, hit: EngineHit, parsed: ParsedQuery, max = SNIPPETS_PER_HIT, maxChars?: number): SnippetWindow[] {
  const out: SnippetWindow[] = [];
  for (const p of hit.passages.slice(0, max)) {
    const text = fieldText(doc, p.field);
    if (text) out.push(buildSnippet(text, parsed, { field: p.field, passage: p, language: doc.language, maxChars }));
  }
  if (out.length === 0) {
    const field: FieldName = doc.abstract ? 'abstract' : 'title';
    const text = fieldText(doc, field);
    if (text) out.push(buildSnippet(text, parsed, { field, language: doc.language, maxChars }));
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
  constructor(private readonly d: SearchServiceDeps) {
    this.#turns = d.budget ? new FairScheduler(d.budget.slots, d.budget.concurrency) : null;
  }

  /**
   * Runs a search within the work budget (docs/operations.md): a query over the term or postings
   * budget is refused with 422 before any work or charge; then it waits for a fair turn (at most
   * `budget.concurrency` of the account's searches running or waiting: 429 beyond).
   */
  async search(principal: Principal, r: SearchRequest, requestId: string): Promise<SearchResult> {
    if (this.d.budget && r.query.trim() !== '') {
      const names = resolveIndexes(r.indexNames);
      checkWorkBudget(names.map((n) => this.d.indexes.get(n)), r.query, r.possibleLanguages, r.offset + r.limit, this.d.budget);
    }
    const leave = await this.#turns?.enter(principal.accountId);
    try {
      return await this.#search(principal, r, requestId);
    } finally {
      leave?.();
    }
  }

  async #search(principal: Principal, r: SearchRequest, requestId: string): Promise<SearchResult> {
    const t0 = performance.now();
    checkAvailable(r);
    const indexNames = resolveIndexes(r.indexNames);
    await this.d.billing.reserve(principal, this.d.prices.search, 'search', requestId);
    const citing = r.referencedBy === null ? null : await citedWorkUris(this.d.store, r.referencedBy);
    const rrfK = r.rrfK ?? DEFAULT_RRF_K;
    if (!(rrfK > 0)) throw new AppError('validation_failed', 'rrf_k must be > 0.');
    const weight = r.fulltextWeight ?? 1;

    const base: EngineQuery = {
      text: r.query,
      possibleLanguages: r.possibleLanguages,
      rankingMode: r.rankingMode,
      limit: r.limit,
      offset: 0,
      phraseBoost: r.phraseBoost ?? 1,
      lexicalWeight: weight,
      collapseByWorkKey: r.deduplicate,
      // total_hits is the number of matching results (works when deduplicating), never an estimate (ADR 0082)
      exactTotal: true,
      passagesPerHit: r.returnDocuments ? SNIPPETS_PER_HIT : 0,
      explain: r.tracing,
      trace: r.tracing ? { now: () => performance.now() * 1000 } : false,
      filters: {
        types: r.filters.types,
        languages: r.filters.languages,
        issns: r.filters.issns,
        publisher: r.filters.publisher,
        issuedAfter: r.filters.issuedAfter,
        issuedBefore: r.filters.issuedBefore,
        uriPrefixes: r.filters.uriPrefixes?.map(normalizePrefix) ?? null,
        citing,
      },
    };

    // Each index answers its top offset+limit; one index is the ranking itself, several are fused by
    // RRF (their lexical scores are not comparable across collections).
    const tSearch = performance.now();
    const perIndex: { name: IndexName; index: SearchIndex; result: EngineResult }[] = [];
    for (const name of indexNames) {
      const index = this.d.indexes.get(name);
      perIndex.push({ name, index, result: index.search({ ...base, limit: r.offset + r.limit }) });
    }
    const searchUs = (performance.now() - tSearch) * 1000;

    const rankingMode = perIndex[0]!.result.rankingMode;
    const ranked = this.#rank(perIndex, r, rrfK, weight);
    const page = ranked.slice(r.offset, r.offset + r.limit);
    // Exact per index (exactTotal); indexes hold different records, so the totals add up.
    const totalHits = perIndex.reduce((n, p) => n + p.result.totalHits, 0);
    const hasNext = totalHits > r.offset + r.limit;

    const tLoad = performance.now();
    let hits: SearchHit[] = page.map((p) => ({ id: p.hit.id, index: p.index, score: p.score, snippets: [], doc: null, rrf: p.rrf, explanation: p.hit.explanation }));
    if (r.returnDocuments && hits.length > 0) {
      const docs = await this.d.store.getMany(hits.map((h) => h.id));
      const parsedBy = new Map(perIndex.map((p) => [p.name, p.index.parse(r.query, r.possibleLanguages)]));
      const loaded: SearchHit[] = [];
      hits.forEach((h, i) => {
        const doc = docs.get(h.id);
        // A document deleted after indexing is skipped; the next catch-up removes it from the index.
        if (doc) loaded.push({ ...h, doc, snippets: snippetsFor(doc, page[i]!.hit, parsedBy.get(h.index)!) });
      });
      hits = loaded;
    }
    const loadUs = (performance.now() - tLoad) * 1000;

    const correctedQuery = r.query.trim() === '' ? null : perIndex[0]!.index.correctQuery(r.query, r.possibleLanguages);
    const cost = searchCost(this.d.prices, hits.length);
    await this.d.billing.charge(principal, cost, 'search', requestId);

    const now = nowSeconds(this.d.clock);
    try {
      if (hits.length > 0) await this.d.activity.record(hits.map((h) => ({ documentId: h.id, kind: 'shown' as const, accountId: principal.accountId, visitor: null, at: now })));
    } catch (e) {
      this.d.report(e, 'recording shown activity');
    }
    const trajectoryId = randomUUID();
    const traces = r.tracing ? this.#traces(perIndex, r, indexNames.length) : null;
    return {
      rankingMode,
      hits: hits.map((h, i) => ({ ...h, explanation: r.tracing && i < TRACE_EXPLAIN_HITS ? h.explanation : undefined })),
      totalHits,
      hasNext,
      correctedQuery,
      timings: { searchUs: Math.round(searchUs), loadUs: Math.round(loadUs), totalUs: Math.round((performance.now() - t0) * 1000) },
      trajectory: { id: trajectoryId, feedbackToken: signFeedbackToken(this.d.secret, { trajectoryId, accountId: principal.accountId, expiresAt: now + FEEDBACK_TOKEN_TTL_S }) },
      traces,
      cost,
    };
  }

  /**
   * Retrieval for another capability (conversations): the same plan, engine, fusion, documents and
   * snippets as {@link search}, without billing, activity or a trajectory (the caller bills its own
   * operation and records what it shows). Returns the page of hits with documents loaded.
   */
  async retrieve(r: SearchRequest): Promise<SearchHit[]> {
    checkAvailable(r);
    const indexNames = resolveIndexes(r.indexNames);
    const citing = r.referencedBy === null ? null : await citedWorkUris(this.d.store, r.referencedBy);
    const rrfK = r.rrfK ?? DEFAULT_RRF_K;
    const weight = r.fulltextWeight ?? 1;
    const f = r.filters;
    const base: EngineQuery = {
      text: r.query,
      possibleLanguages: r.possibleLanguages,
      rankingMode: r.rankingMode,
      limit: r.offset + r.limit,
      offset: 0,
      phraseBoost: r.phraseBoost ?? 1,
      lexicalWeight: weight,
      collapseByWorkKey: r.deduplicate,
      passagesPerHit: SNIPPETS_PER_HIT,
      filters: { types: f.types, languages: f.languages, issns: f.issns, publisher: f.publisher, issuedAfter: f.issuedAfter, issuedBefore: f.issuedBefore, uriPrefixes: f.uriPrefixes?.map(normalizePrefix) ?? null, citing },
    };
    const perIndex = indexNames.map((name) => {
      const index = this.d.indexes.get(name);
      return { name, index, result: index.search(base) };
    });
    const page = this.#rank(perIndex, r, rrfK, weight).slice(r.offset, r.offset + r.limit);
    if (page.length === 0) return [];
    const docs = await this.d.store.getMany(page.map((p) => p.hit.id));
    const parsedBy = new Map(perIndex.map((p) => [p.name, p.index.parse(r.query, r.possibleLanguages)]));
    const out: SearchHit[] = [];
    for (const p of page) {
      const doc = docs.get(p.hit.id);
      if (doc) out.push({ id: p.hit.id, index: p.index, score: p.score, snippets: withBody(doc, snippetsFor(doc, p.hit, parsedBy.get(p.index)!, SNIPPETS_PER_HIT, ANSWER_SNIPPET_CHARS), parsedBy.get(p.index)!), doc, rrf: p.rrf });
    }
    return out;
  }

  /**
   * Named documents as hits for `query` (conversations' pinned `document_ids`): each document's best
   * passages for the query, or its abstract/title window when nothing matches. Unknown ids are left out.
   */
  async pinnedHits(ids: readonly string[], query: string): Promise<SearchHit[]> {
    if (ids.length === 0) return [];
    const docs = await this.d.store.getMany([...ids]);
    const out: SearchHit[] = [];
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

  /** The full ranking (top offset+limit) with scores and RRF attribution. */
  #rank(perIndex: { name: IndexName; result: EngineResult }[], r: SearchRequest, rrfK: number, weight: number) {
    const channel = (name: IndexName) => (perIndex.length === 1 ? 'fulltext' : `fulltext:${name}`);
    const byId = new Map<string, { hit: EngineHit; index: IndexName }>();
    for (const p of perIndex) for (const h of p.result.hits) byId.set(`${p.name}\u0000${h.id}`, { hit: h, index: p.name });
    const fused = fuseRrf(
      perIndex.map((p) => ({ channel: channel(p.name), ids: p.result.hits.map((h) => `${p.name}\u0000${h.id}`) })),
      { k: rrfK },
    );
    const rrfOf = (f: (typeof fused)[number]) =>
      r.includeRrfScores
        ? { score: f.score * weight, contributions: f.votes.map((v) => ({ channel: v.channel, rank: v.rank, weight, contribution: v.contribution * weight })) }
        : null;
    if (perIndex.length === 1) {
      // One channel: the fused order is the channel's order; scores stay the lexical scores.
      return fused.map((f) => {
        const e = byId.get(f.id)!;
        return { hit: e.hit, index: e.index, score: e.hit.score, rrf: rrfOf(f) };
      });
    }
    return fused.map((f) => {
      const e = byId.get(f.id)!;
      return { hit: e.hit, index: e.index, score: f.score * weight, rrf: rrfOf(f) };
    });
  }

  #traces(perIndex: { name: IndexName; result: EngineResult }[], r: SearchRequest, indexes: number): unknown[] {
    const traces: unknown[] = perIndex.map((p) => ({
      shard: p.name,
      branch: 'fulltext',
      total_hits: p.result.totalHits,
      total_hits_exact: p.result.totalHitsExact,
      has_more: p.result.hasMore,
      engine: p.result.trace ?? null,
    }));
    traces.push({
      branch: 'fusion',
      mode: r.mode,
      resolved: indexes === 1 ? 'fulltext' : 'rrf',
      note:
        r.mode === 'hybrid'
          ? 'hybrid fuses the available channels; only the lexical (fulltext) channel is configured, so the ranking equals fulltext'
          : 'fulltext: the lexical channel only',
      channels: perIndex.map((p) => (perIndex.length === 1 ? 'fulltext' : `fulltext:${p.name}`)),
      rrf_k: r.rrfK ?? DEFAULT_RRF_K,
      rerank: { cross_rerank: r.crossRerank ? 'requested; no reranker configured: no effect' : 'off', l2: r.l2Rerank === 'off' ? 'off' : 'auto: no profile configured: no effect' },
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
