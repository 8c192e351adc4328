// Conversations: turns (classify -> retrieve through the search service -> answer -> verify citations),
// follow-ups over earlier turns, step edits that recompute that step and every later one, sharing,
// deletion, listing. Billing: prices.conversationTurn per turn and prices.conversationEdit per edit,
// checked (402) before any work and charged once after success; nothing on failure or abort.
// Activity: `shown` for the documents of an answer, `ai_citation` for the cited ones.
import { randomUUID } from 'node:crypto';
import type { ActivityRecorder } from '../activity/activity-buffer.js';
import type { BillingService } from '../billing/billing-service.js';
import type { ConversationRecord, ConversationStepRecord, RequestStepData, ResponseDocument, ResponseStepData } from '../domain/conversation.js';
import { INDEX_NAMES, type IndexName, type StoredDocument } from '../domain/document.js';
import { AppError } from '../domain/errors.js';
import type { PriceTable } from '../domain/prices.js';
import type { Principal } from '../domain/principal.js';
import type { ChatModelRegistry } from '../ports/chat-model.js';
import type { Clock } from '../ports/clock.js';
import { nowSeconds } from '../ports/clock.js';
import type { ConversationStore, RepairReport } from '../ports/conversation-store.js';
import type { DocumentStore } from '../ports/document-store.js';
import type { ErrorReporter } from '../ports/error-reporter.js';
import { FEEDBACK_TOKEN_TTL_S, signFeedbackToken } from '../search/feedback-token.js';
import { fieldText, type SearchService } from '../search/search-service.js';
import { defaultSearchRequest, type SearchHit, type SearchRequest } from '../search/search-types.js';
import type { Answerer } from './answerer.js';
import { classify } from './classifier.js';
import { EXTRACTIVE_MODEL_NAME, ExtractiveAnswerer, type ExtractiveOptions } from './extractive.js';
import { LlmAnswerer } from './llm-answerer.js';
import { contentWords, type Passage } from './passages.js';
import { TurnLocks } from './turn-lock.js';

/** Longest query, UTF-8 bytes (interface, Limits: query length). */
export const MAX_QUERY_BYTES = 16 * 1024;
/** Documents retrieved when the request gives no `limit` (or 0). */
export const DEFAULT_LIMIT = 10;
/** Most documents retrieved for one turn. */
export const MAX_LIMIT = 100;
/** Conversations per page of the list. */
export const LIST_PAGE = 50;

/** Progress of a turn, as the stream reports it (docs/events.md). */
export type TurnEvent =
  | { type: 'accepted'; conversationId: string; stepId: number }
  | { type: 'classified'; query: ResponseStepData['query'] }
  | { type: 'searching'; query: string }
  | { type: 'retrieved'; documents: number; selected: number }
  | { type: 'answering'; modelName: string }
  | { type: 'delta'; text: string };

export interface TurnOptions {
  requestId: string;
  /** Aborts the work (the client went away); nothing is charged. */
  signal?: AbortSignal;
  onEvent?: (e: TurnEvent) => void;
}

export interface TurnInput extends RequestStepData {
  conversationId: string | null;
  /** The caller's provider key for this call only (never stored). */
  apiKey: string | null;
}

/** A conversation with its steps and the documents its responses refer to. */
export interface ConversationView {
  conversation: ConversationRecord;
  steps: ConversationStepRecord[];
  documents: Map<string, StoredDocument>;
  /**
   * Feedback tokens of the response steps by position, for the conversation's owner only (another
   * reader of a shared conversation gets none): each lets its holder rate that step's documents.
   */
  feedbackTokens: Map<number, string>;
}

export interface TurnResult {
  conversation: ConversationRecord;
  response: ResponseStepData;
  documents: Map<string, StoredDocument>;
  /** Position of the response step (its wire `id`). */
  position: number;
  cost: number;
  /** Feedback token of the response's trajectory (SearchTrajectory.feedback_token), if it has one. */
  feedbackToken: string | null;
}

export interface ConversationServiceDeps {
  store: ConversationStore;
  search: SearchService;
  documents: DocumentStore;
  billing: BillingService;
  prices: PriceTable;
  activity: ActivityRecorder;
  clock: Clock;
  models: ChatModelRegistry;
  report: ErrorReporter;
  /** Server secret that signs feedback tokens (the same tokens searches return). */
  secret: string;
  /** Turn lease lifetime, ms (default TURN_LEASE_MS). */
  turnLeaseMs?: number;
  /** The extractive answerer's tunables (default: the calibrated ones; benchmarks sweep them). */
  extractive?: Partial<ExtractiveOptions>;
}

const CONTENT_TYPE_FILTERS: Record<string, string[]> = {
  review: ['review'],
  preprint: ['preprint', 'posted-content'],
  dissertation: ['dissertation'],
  dataset: ['dataset'],
  book: ['book', 'monograph', 'book-chapter'],
};

const notFound = (what = 'Conversation') => new AppError('not_found', `${what} not found.`);

/** A readable title from a query: its first words, at most 80 characters. */
export function titleOf(query: string): string {
  const q = query.replace(/\s+/g, ' ').trim();
  if (q.length <= 80) return q;
  const cut = q.slice(0, 80);
  return `${cut.slice(0, cut.lastIndexOf(' ') > 40 ? cut.lastIndexOf(' ') : 80)}…`;
}

/** A readable, unique slug: the title's words in ASCII, then the first 8 hex digits of the id. */
export function slugOf(title: string, id: string): string {
  const words = title.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60).replace(/-+$/, '');
  return `${words || 'conversation'}-${id.replace(/-/g, '').slice(0, 8)}`;
}

/** The answer without markers, at most 200 characters (the list's preview). */
export function previewOf(answer: string): string {
  const a = answer.replace(/\s*\[\d+\]/g, '').replace(/\s+/g, ' ').trim();
  return a.length <= 200 ? a : `${a.slice(0, 199)}…`;
}

export class ConversationService {
  readonly #extractive: ExtractiveAnswerer;
  readonly #locks: TurnLocks;
  constructor(private readonly d: ConversationServiceDeps) {
    this.#extractive = new ExtractiveAnswerer(d.extractive);
    this.#locks = new TurnLocks(d.store, d.clock, { ...(d.turnLeaseMs ? { leaseMs: d.turnLeaseMs } : {}) });
  }

  /** Public model names this server answers with (the extractive answerer first). */
  modelNames(): string[] {
    return [EXTRACTIVE_MODEL_NAME, ...this.d.models.names().filter((n) => n !== EXTRACTIVE_MODEL_NAME)];
  }

  /** The answerer for a model name; 422 naming the offered models when unknown. */
  answererFor(modelName: string): Answerer {
    if (modelName === EXTRACTIVE_MODEL_NAME) return this.#extractive;
    const m = this.d.models.resolve(modelName);
    if (!m) {
      throw new AppError('validation_failed', `Unknown model_name ${JSON.stringify(modelName)}; this server offers: ${this.modelNames().join(', ')}.`, { extra: { models: this.modelNames() } });
    }
    return new LlmAnswerer(m.model, m.providerModel, modelName, m.contextTokens);
  }

  /**
   * A turn: a new conversation, or the next turn of `input.conversationId` (owner only). Turns on one
   * conversation take their turn one at a time, in arrival order (TurnLocks); the question and its
   * answer are stored together once the answer is computed, so a crash leaves both or neither.
   */
  async turn(principal: Principal, input: TurnInput, opts: TurnOptions): Promise<TurnResult> {
    checkQuery(input.query);
    // Refused as a search's limit is (422), never clamped silently.
    if (input.limit !== null && input.limit !== undefined && input.limit > MAX_LIMIT) {
      throw new AppError('validation_failed', `limit is ${input.limit}; a turn retrieves at most ${MAX_LIMIT} documents (0 or absent: ${DEFAULT_LIMIT}).`, { extra: { errors: [{ path: 'body/limit', message: `must be <= ${MAX_LIMIT}` }] } });
    }
    await this.#checkBudget(input.query, input);
    const answerer = this.answererFor(input.modelName);
    if (input.documentIds.length > 0) {
      const found = await this.d.documents.getMany(input.documentIds);
      const missing = input.documentIds.filter((id) => !found.has(id));
      if (missing.length > 0) throw new AppError('bad_request', `Unknown document_ids: ${missing.slice(0, 10).join(', ')}.`, { extra: { missing } });
    }
    let conversation: ConversationRecord | null = null;
    if (input.conversationId) conversation = await this.#owned(principal, input.conversationId);
    // The turn's price is held before any work (402 when short) and captured once the answer is stored.
    await this.d.billing.reserve(principal, this.d.prices.conversationTurn, 'conversation_turn', opts.requestId);
    const now = nowSeconds(this.d.clock);
    const request: RequestStepData = stripKey(input);
    const cost = this.d.prices.conversationTurn;
    const result = (c: ConversationRecord, computed: { response: ResponseStepData; documents: Map<string, StoredDocument> }, position: number): TurnResult => ({
      conversation: c,
      response: computed.response,
      documents: computed.documents,
      position,
      cost,
      feedbackToken: computed.response.trajectoryId ? this.#feedbackToken(principal.accountId, computed.response.trajectoryId) : null,
    });
    if (!conversation) {
      // A new conversation is stored with its first turn, in one transaction, once the answer is computed
      // (until then its id, sent in `accepted`, names nothing: a crash leaves no trace).
      const id = randomUUID();
      opts.onEvent?.({ type: 'accepted', conversationId: id, stepId: 0 });
      const computed = await this.#compute(principal.accountId, answerer, [], request, input.apiKey, opts);
      const title = titleOf(input.query);
      const created = await this.d.store.createWithTurn(
        { id, slug: slugOf(title, id), accountId: principal.accountId, title, preview: previewOf(computed.response.answer), query: input.query, createdAt: now },
        { kind: 'request', data: request },
        { kind: 'response', data: computed.response },
      );
      // Stored is delivered: the answer can be read back from the conversation from now on.
      await this.d.billing.charge(principal, cost, 'conversation_turn', opts.requestId, { captureNow: true });
      await this.#recordActivity(principal, computed.response);
      return result(created, computed, 1);
    }
    const held = await this.#locks.acquire(conversation.id, opts.signal);
    try {
      // Read under the turn: the history includes every earlier turn, stored whole.
      const history = await this.d.store.steps(conversation.id);
      opts.onEvent?.({ type: 'accepted', conversationId: conversation.id, stepId: history.length });
      const computed = await this.#compute(principal.accountId, answerer, history, request, input.apiKey, opts);
      const position = await this.d.store.appendTurn(conversation.id, { kind: 'request', data: request }, { kind: 'response', data: computed.response });
      await this.d.billing.charge(principal, cost, 'conversation_turn', opts.requestId, { captureNow: true });
      const updated = (await this.d.store.update(conversation.id, { query: input.query, preview: history.length === 0 ? previewOf(computed.response.answer) : undefined, updatedAt: now })) ?? conversation;
      await this.#recordActivity(principal, computed.response);
      return result(updated, computed, position);
    } finally {
      await held.release().catch((err: unknown) => this.d.report(err, 'releasing a conversation turn'));
    }
  }

  /**
   * Replaces the query of request step `stepId` and recomputes it and every later turn (each later
   * request keeps its own query). Billed prices.conversationEdit once, after all turns succeeded. A
   * model other than the extractive one is called with the configured key (edits carry no api_key).
   * Takes the conversation's turn like a turn does; the recomputed steps replace the old ones in one
   * transaction once all are computed (a failure or crash keeps the conversation as it was).
   */
  async editStep(principal: Principal, idOrSlug: string, stepId: number, newQuery: string, opts: TurnOptions): Promise<ConversationView> {
    checkQuery(newQuery);
    const conversation = await this.#owned(principal, idOrSlug);
    const check = async (steps: ConversationStepRecord[]) => {
      const target = steps.find((s) => s.position === stepId);
      if (!target || target.kind !== 'request') throw new AppError('not_found', `Step ${stepId} is not a request step of this conversation; request steps are ${steps.filter((s) => s.kind === 'request').map((s) => s.position).join(', ') || 'none'}.`);
      const later = steps.filter((s) => s.position > stepId && s.kind === 'request').map((s) => s.data as RequestStepData);
      await this.#checkBudget(newQuery, target.data as RequestStepData);
      return { target, later, answerers: [target.data as RequestStepData, ...later].map((r) => this.answererFor(r.modelName)) };
    };
    await check(await this.d.store.steps(conversation.id));
    await this.d.billing.reserve(principal, this.d.prices.conversationEdit, 'conversation_edit', opts.requestId);
    const held = await this.#locks.acquire(conversation.id, opts.signal);
    let responses: ResponseStepData[] = [];
    try {
      // Read again under the turn: an earlier turn or edit may have changed the steps meanwhile.
      const steps = await this.d.store.steps(conversation.id);
      const { target, later, answerers } = await check(steps);
      const edited: RequestStepData = { ...(target.data as RequestStepData), query: newQuery };
      const history = steps.filter((s) => s.position < stepId);
      const requests = [edited, ...later];
      responses = [];
      for (let i = 0; i < requests.length; i++) {
        opts.onEvent?.({ type: 'accepted', conversationId: conversation.id, stepId: stepId + 2 * i });
        const sofar: ConversationStepRecord[] = [...history];
        for (let j = 0; j < i; j++) sofar.push({ position: -1, kind: 'request', data: requests[j]! }, { position: -1, kind: 'response', data: responses[j]! });
        const { response } = await this.#compute(principal.accountId, answerers[i]!, sofar, requests[i]!, null, opts);
        responses.push(response);
      }
      await this.d.store.rewriteFrom(
        conversation.id,
        stepId,
        requests.flatMap((r, i) => [
          { kind: 'request' as const, data: r },
          { kind: 'response' as const, data: responses[i]! },
        ]),
      );
      await this.d.billing.charge(principal, this.d.prices.conversationEdit, 'conversation_edit', opts.requestId, { captureNow: true });
      const firstRequest = steps.find((s) => s.kind === 'request')?.position;
      await this.d.store.update(conversation.id, {
        query: requests.at(-1)!.query,
        ...(stepId === firstRequest ? { title: titleOf(newQuery), preview: previewOf(responses[0]!.answer) } : {}),
        updatedAt: nowSeconds(this.d.clock),
      });
    } finally {
      await held.release().catch((err: unknown) => this.d.report(err, 'releasing a conversation turn'));
    }
    for (const r of responses) await this.#recordActivity(principal, r);
    return this.view((await this.d.store.get(conversation.id))!, principal);
  }

  /**
   * Start-up repair (issue 25): removes what a crash in the middle of a turn left behind by a version
   * that stored the question before its answer (a trailing question without answer) and conversations
   * whose first turn never finished. `ownsStore`: this process is the store's only user (SQLite), so
   * every turn lease is stale and is dropped.
   */
  async repairInterrupted(ownsStore: boolean): Promise<RepairReport> {
    return this.d.store.repairInterrupted(this.d.clock.nowMs(), ownsStore);
  }

  /** A conversation readable by `principal`: its owner, or anyone when shared (404 otherwise). */
  async get(principal: Principal, idOrSlug: string): Promise<ConversationView> {
    const c = await this.d.store.get(idOrSlug);
    if (!c || (c.accountId !== principal.accountId && !c.isShared)) throw notFound();
    return this.view(c, principal);
  }

  /** A shared conversation for anyone with its link, signed in or not (404 when not shared). */
  async getShared(idOrSlug: string): Promise<ConversationView> {
    const c = await this.d.store.get(idOrSlug);
    if (!c || !c.isShared) throw notFound();
    return this.view(c);
  }

  async setShared(principal: Principal, idOrSlug: string, isShared: boolean): Promise<ConversationView> {
    const c = await this.#owned(principal, idOrSlug);
    const updated = await this.d.store.update(c.id, { isShared, updatedAt: nowSeconds(this.d.clock) });
    if (!updated) throw notFound();
    return this.view(updated, principal);
  }

  async delete(principal: Principal, idOrSlug: string): Promise<void> {
    const c = await this.#owned(principal, idOrSlug);
    if (!(await this.d.store.delete(c.id))) throw notFound();
  }

  /** The caller's conversations, newest first; `page` is 0-based, LIST_PAGE per page. */
  list(principal: Principal, page = 0, size = LIST_PAGE): Promise<ConversationRecord[]> {
    return this.d.store.listForAccount(principal.accountId, size, page * size);
  }

  /** The conversation as `viewer` may see it: feedback tokens only when the viewer owns it. */
  async view(conversation: ConversationRecord, viewer: Principal | null = null): Promise<ConversationView> {
    const steps = await this.d.store.steps(conversation.id);
    const ids = new Set<string>();
    for (const s of steps) if (s.kind === 'response') for (const d of s.data.documents) ids.add(d.documentId);
    const documents = ids.size > 0 ? await this.d.documents.getMany([...ids]) : new Map<string, StoredDocument>();
    const feedbackTokens = new Map<number, string>();
    if (viewer && viewer.accountId === conversation.accountId) {
      for (const s of steps) if (s.kind === 'response' && s.data.trajectoryId) feedbackTokens.set(s.position, this.#feedbackToken(viewer.accountId, s.data.trajectoryId));
    }
    return { conversation, steps, documents, feedbackTokens };
  }

  /** A fresh 7-day token for rating the documents of one answer's retrieval, bound to the account. */
  #feedbackToken(accountId: number, trajectoryId: string): string {
    return signFeedbackToken(this.d.secret, { trajectoryId, accountId, expiresAt: nowSeconds(this.d.clock) + FEEDBACK_TOKEN_TTL_S });
  }

  /**
   * A question is under the same work budget as a search of its words (issue 25): refused before any
   * hold, stored step or work, with the search's budget detail, as 400 (the interface's status for a
   * turn it cannot take). Retrieval checks each query it runs again (`SearchService.retrieve`).
   */
  async #checkBudget(query: string, request: Pick<RequestStepData, 'limit' | 'sourcesFilters'>): Promise<void> {
    try {
      await this.d.search.checkBudget(this.#searchRequest(query, request, null));
    } catch (e) {
      if (e instanceof AppError && e.code === 'validation_failed') throw new AppError('bad_request', e.message, { extra: { ...e.extra } });
      throw e;
    }
  }

  /** The search a turn's retrieval runs for `query` (filters from the request and the classified date/type). */
  #searchRequest(query: string, request: Pick<RequestStepData, 'limit' | 'sourcesFilters'>, classified: { date: [number, number] | null; types: string[] | null } | null): SearchRequest {
    const limit = Math.min(MAX_LIMIT, request.limit && request.limit > 0 ? request.limit : DEFAULT_LIMIT);
    const sf = (request.sourcesFilters ?? {}) as Record<string, unknown>;
    const strings = (v: unknown) => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : null);
    const date = classified?.date ?? null;
    return defaultSearchRequest({
      query,
      mode: 'fulltext',
      rankingMode: 'documents',
      indexNames: strings(sf.index_names) ?? ['documents'],
      limit,
      filters: {
        languages: strings(sf.languages),
        types: strings(sf.types) ?? classified?.types ?? null,
        uriPrefixes: strings(sf.uri_prefixes),
        issuedAfter: date ? date[0] : null,
        issuedBefore: date ? date[1] - 1 : null,
      },
      crossRerank: false,
    });
  }

  async #owned(principal: Principal, idOrSlug: string): Promise<ConversationRecord> {
    const c = await this.d.store.get(idOrSlug);
    if (!c || c.accountId !== principal.accountId) throw notFound();
    return c;
  }

  async #compute(accountId: number, answerer: Answerer, history: readonly ConversationStepRecord[], request: RequestStepData, apiKey: string | null, opts: TurnOptions) {
    const signal = opts.signal ?? new AbortController().signal;
    const emit = opts.onEvent ?? (() => undefined);
    const earlier = history.filter((s) => s.kind === 'request').map((s) => (s.data as RequestStepData).query);
    const turns: { query: string; answer: string }[] = [];
    for (let i = 0; i < history.length; i++) {
      const s = history[i]!;
      const next = history[i + 1];
      if (s.kind === 'request' && next?.kind === 'response') turns.push({ query: s.data.query, answer: next.data.answer });
    }
    const query = classify(request.query, earlier, nowSeconds(this.d.clock));
    emit({ type: 'classified', query });
    emit({ type: 'searching', query: query.reformulatedQuery });
    const types = query.contentType ? CONTENT_TYPE_FILTERS[query.contentType] ?? null : null;
    const base: SearchRequest = this.#searchRequest(query.reformulatedQuery, request, { date: query.date, types });
    const queries = [base.query];
    // Each retrieval is a search of the account's: the same work budget and fair turns (issue 25).
    const retrieve = (r: SearchRequest) => this.d.search.retrieve(r, accountId);
    let hits = await retrieve(base);
    let rankingFallback = false;
    // A content type the corpus does not have must not empty the answer: retry without it.
    if (hits.length === 0 && types && base.filters.types === types) {
      hits = await retrieve({ ...base, filters: { ...base.filters, types: null } });
      rankingFallback = true;
    }
    // A follow-up whose own words find nothing more specific falls back to its own words only.
    let planningFallback = false;
    if (hits.length === 0 && query.relatedQueries.length > 0) {
      queries.push(query.relatedQueries[0]!);
      hits = await retrieve({ ...base, query: query.relatedQueries[0]! });
      planningFallback = true;
    }
    // A follow-up searches with the earlier topic added; documents that hold the follow-up's own
    // words come first (stable), so "what about in mice?" answers about mice.
    if (query.relatedQueries.length > 0) {
      const own = contentWords(query.relatedQueries[0]!);
      const holds = (h: SearchHit) => {
        const words = new Set(contentWords(`${h.doc!.title} ${h.doc!.abstract ?? ''}`));
        return own.some((w) => words.has(w));
      };
      hits = [...hits.filter(holds), ...hits.filter((h) => !holds(h))];
    }
    const pinned = await this.d.search.pinnedHits(request.documentIds, query.reformulatedQuery);
    if (signal.aborted) throw signal.reason;
    const pinnedIds = new Set(pinned.map((h) => h.id));
    const merged: (SearchHit<StoredDocument> & { pinned: boolean })[] = [...pinned.map((h) => ({ ...h, pinned: true })), ...hits.filter((h) => !pinnedIds.has(h.id)).map((h) => ({ ...h, pinned: false }))];
    const cap = request.maxModelDocuments && request.maxModelDocuments > 0 ? request.maxModelDocuments : Infinity;
    const selected = merged.slice(0, cap);
    emit({ type: 'retrieved', documents: merged.length, selected: selected.length });
    const documents = new Map<string, StoredDocument>();
    const passages: Passage[] = [];
    selected.forEach((h, i) => {
      documents.set(h.id, h.doc!);
      h.snippets.forEach((s, j) => {
        passages.push({ number: passages.length + 1, documentIndex: i + 1, snippetIndex: j, documentId: h.id, title: h.doc!.title, field: s.field, text: s.text, fieldText: fieldText(h.doc!, s.field), pinned: h.pinned });
      });
    });
    const modelName = request.modelName;
    emit({ type: 'answering', modelName });
    const searched = base.indexNames[0];
    // the question's terms' statistics (from the shards on a cluster: ADR 0248)
    const lexicon = await this.d.search.termModelFor((INDEX_NAMES as readonly string[]).includes(searched ?? '') ? (searched as IndexName) : 'documents', query.queryLanguage ?? 'en', [request.query, (query.keywords ?? []).join(' '), turns.at(-1)?.query ?? '']);
    const out = await answerer.answer({ question: request.query, history: turns, passages, maxContextLength: request.maxContextLength, apiKey, signal, onDelta: (text) => emit({ type: 'delta', text }), keywords: query.keywords, lexicon });
    if (signal.aborted) throw signal.reason;
    const docs: ResponseDocument[] = selected.map((h) => ({ documentId: h.id, source: h.index, score: h.score, snippets: h.snippets, pinned: h.pinned }));
    const response: ResponseStepData = {
      answer: out.answer,
      citations: out.citations,
      modelName: out.modelName,
      query,
      queryDetails: { queries, query: base.query, retrieved: merged.length, compared: merged.length, selected: selected.length, planningFallback, rankingFallback },
      documents: docs,
      trajectoryId: randomUUID(),
      ...(out.answerability !== undefined ? { answerability: Math.round(out.answerability * 1e4) / 1e4, abstained: out.abstained ?? false } : {}),
      ...(out.verdict !== undefined ? { verdict: out.verdict } : {}),
    };
    return { response, documents };
  }

  async #recordActivity(principal: Principal, r: ResponseStepData): Promise<void> {
    const at = nowSeconds(this.d.clock);
    const cited = new Set(r.citations.map((c) => r.documents[c.documentIndex - 1]?.documentId).filter((x): x is string => !!x));
    try {
      await this.d.activity.record([
        ...r.documents.map((d) => ({ documentId: d.documentId, kind: 'shown' as const, accountId: principal.accountId, visitor: null, at })),
        ...[...cited].map((documentId) => ({ documentId, kind: 'ai_citation' as const, accountId: principal.accountId, visitor: null, at })),
      ]);
    } catch (e) {
      this.d.report(e, 'recording conversation activity');
    }
  }
}

function checkQuery(q: string): void {
  if (q.trim() === '') throw new AppError('bad_request', 'The query is empty; ask a question.');
  const bytes = Buffer.byteLength(q, 'utf8');
  if (bytes > MAX_QUERY_BYTES) throw new AppError('bad_request', `The query is ${bytes} bytes of UTF-8; at most ${MAX_QUERY_BYTES} are allowed.`);
}

function stripKey(i: TurnInput): RequestStepData {
  return {
    query: i.query,
    modelName: i.modelName,
    maxContextLength: i.maxContextLength,
    documentIds: i.documentIds,
    limit: i.limit,
    maxModelDocuments: i.maxModelDocuments,
    sourcesFilters: i.sourcesFilters ?? null,
    sourcesLiteralFilters: i.sourcesLiteralFilters ?? null,
    resolvedSourcesLiteralFilters: i.resolvedSourcesLiteralFilters ?? null,
  };
}
