// Conversations on the wire: ConversationRequest -> TurnInput, and the stored steps back to
// ConversationRequest / ConversationResponse / FullConversation / ConversationMetadata (interface:
// Conversations). The caller's api_key is never echoed.
import type { ClassifiedQuery, ConversationRecord, RequestStepData, ResponseStepData } from '../../domain/conversation.js';
import type { StoredDocument } from '../../domain/document.js';
import type { ConversationView, TurnEvent, TurnInput } from '../../conversations/index.js';
import type { ConversationRequest } from '../schemas/conversations.js';
import { toWireDocument } from './document.js';
import { toWireSnippet } from './search.js';

export function toTurnInput(b: ConversationRequest): TurnInput {
  return {
    query: b.query,
    modelName: b.llm_config.model_name,
    apiKey: b.llm_config.api_key ?? null,
    maxContextLength: b.llm_config.max_context_length ?? null,
    conversationId: b.conversation_id ?? null,
    documentIds: [...new Set(b.document_ids ?? [])],
    limit: b.limit ?? null,
    maxModelDocuments: b.max_model_documents ?? null,
    sourcesFilters: b.sources_filters ?? null,
    sourcesLiteralFilters: b.sources_literal_filters ?? null,
    resolvedSourcesLiteralFilters: b.resolved_sources_literal_filters ?? null,
  };
}

export function toWireQuery(q: ClassifiedQuery) {
  return {
    classified_aspects: q.classifiedAspects,
    content_type: q.contentType,
    date: q.date,
    date_expression: q.dateExpression,
    filters: {},
    instruction: null,
    is_event: q.isEvent,
    is_recent: q.isRecent,
    keywords: q.keywords,
    knowledge_source: null,
    original_query: q.originalQuery,
    query_language: q.queryLanguage,
    reformulated_query: q.reformulatedQuery,
    related_queries: q.relatedQueries,
    title: q.title,
  };
}

export function toWireRequestStep(r: RequestStepData, position: number) {
  return {
    kind: 'request' as const,
    id: position,
    query: r.query,
    llm_config: { model_name: r.modelName, max_context_length: r.maxContextLength },
    document_ids: r.documentIds,
    ...(r.limit !== null ? { limit: r.limit } : {}),
    max_model_documents: r.maxModelDocuments,
    ...(r.sourcesFilters != null ? { sources_filters: r.sourcesFilters } : {}),
    ...(r.sourcesLiteralFilters != null ? { sources_literal_filters: r.sourcesLiteralFilters } : {}),
    ...(r.resolvedSourcesLiteralFilters != null ? { resolved_sources_literal_filters: r.resolvedSourcesLiteralFilters } : {}),
  };
}

export function toWireResponse(conversationId: string, r: ResponseStepData, position: number | null, documents: Map<string, StoredDocument>, baseUrl: string, feedbackToken: string | null) {
  return {
    conversation_id: conversationId,
    answer: r.answer,
    citations: r.citations.map((c) => ({ citation_index: c.citationIndex, document_index: c.documentIndex, excerpt: c.excerpt, snippet_index: c.snippetIndex })),
    id: position,
    kind: 'response' as const,
    model_name: r.modelName,
    query: toWireQuery(r.query),
    query_details: {
      compared: r.queryDetails.compared,
      retrieved: r.queryDetails.retrieved,
      selected: r.queryDetails.selected,
      incomplete_queries: [],
      planning_fallback: r.queryDetails.planningFallback,
      queries: r.queryDetails.queries,
      query: r.queryDetails.query,
      ranking_fallback: r.queryDetails.rankingFallback,
    },
    search_documents: r.documents.map((d) => {
      const doc = documents.get(d.documentId);
      return {
        source: d.source,
        // A document deleted since the answer keeps its id so citations still resolve to something.
        document: doc ? toWireDocument(doc, baseUrl) : { id: d.documentId, deleted: true },
        score: d.score,
        snippets: d.snippets.map((s) => toWireSnippet(s)),
      };
    }),
    trajectory: r.trajectoryId ? { id: r.trajectoryId, feedback_token: feedbackToken } : null,
  };
}

export function toWireMetadata(c: ConversationRecord) {
  return { id: c.id, created_at: c.createdAt, is_shared: c.isShared, preview: c.preview, query: c.query, slug: c.slug, title: c.title, user_id: c.accountId };
}

export function toFullConversation(v: ConversationView, baseUrl: string) {
  return {
    conversation_metadata: toWireMetadata(v.conversation),
    conversation_steps: v.steps.map((s) => (s.kind === 'request' ? toWireRequestStep(s.data, s.position) : toWireResponse(v.conversation.id, s.data, s.position, v.documents, baseUrl, v.feedbackTokens.get(s.position) ?? null))),
  };
}

/** A progress event's payload on the wire (docs/events.md). */
export function toWireEvent(e: TurnEvent): Record<string, unknown> {
  switch (e.type) {
    case 'accepted':
      return { conversation_id: e.conversationId, step_id: e.stepId };
    case 'classified':
      return { query: toWireQuery(e.query) };
    case 'searching':
      return { query: e.query };
    case 'retrieved':
      return { documents: e.documents, selected: e.selected };
    case 'answering':
      return { model_name: e.modelName };
    case 'delta':
      return { text: e.text };
  }
}
