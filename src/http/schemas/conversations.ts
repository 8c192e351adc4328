// Conversations (interface: Conversations). The shapes exist now; the behaviour comes with the
// conversations issue.
import { Type, type Static } from 'typebox';
import { Int32, Int64, Nullable, ref } from './common.js';
import { SearchDocument } from './documents.js';
import { SearchTrajectory } from './search.js';

const FreeForm = () => Type.Unknown({ description: 'Free-form (structure not defined by the interface).' });

export const ConversationMetadata = Type.Object(
  {
    id: Type.String(),
    created_at: Int64(),
    is_shared: Type.Optional(Type.Boolean()),
    preview: Type.Optional(Nullable(Type.String())),
    query: Type.Optional(Nullable(Type.String())),
    slug: Type.Optional(Nullable(Type.String())),
    title: Type.Optional(Nullable(Type.String())),
    user_id: Type.Optional(Nullable(Int64())),
  },
  { $id: 'ConversationMetadata' },
);

export const LlmConfig = Type.Object(
  {
    model_name: Type.String({ minLength: 1, maxLength: 256 }),
    api_key: Type.Optional(Nullable(Type.String({ maxLength: 4096 }))),
    max_context_length: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }))),
  },
  { $id: 'LlmConfig' },
);

export const ConversationRequest = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 16384 }),
    llm_config: ref(LlmConfig),
    conversation_id: Type.Optional(Nullable(Type.String({ maxLength: 128 }))),
    document_ids: Type.Optional(Type.Array(Type.String({ maxLength: 512 }), { maxItems: 100, description: 'Exact documents merged into retrieval regardless of the query classifier.' })),
    id: Type.Optional(Nullable(Int64())),
    kind: Type.Optional(Type.String({ maxLength: 64 })),
    limit: Type.Optional(Int32({ minimum: 0 })),
    max_model_documents: Type.Optional(Nullable(Int32({ minimum: 0, description: 'Cap on documents sent to the model; absent or 0 means no cap.' }))),
    sources_filters: Type.Optional(FreeForm()),
    sources_literal_filters: Type.Optional(FreeForm()),
    resolved_sources_literal_filters: Type.Optional(FreeForm()),
  },
  { $id: 'ConversationRequest' },
);

export const CitationOccurrence = Type.Object(
  {
    citation_index: Type.Integer({ minimum: 0, description: 'Zero-based position among citation markers in the answer.' }),
    document_index: Type.Optional(Type.Integer({ minimum: 0, description: 'One-based index into search_documents.' })),
    excerpt: Type.String({ description: 'Claim-specific excerpt.' }),
    snippet_index: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
  },
  { $id: 'CitationOccurrence' },
);

export const Query = Type.Object(
  {
    classified_aspects: Type.Optional(Type.Array(Type.String())),
    content_type: Type.Optional(Nullable(Type.String())),
    date: Type.Optional(Nullable(Type.Array(Int64(), { minItems: 2, maxItems: 2 }))),
    date_expression: Type.Optional(Nullable(Type.String())),
    filters: Type.Optional(FreeForm()),
    instruction: Type.Optional(Nullable(Type.String())),
    is_event: Type.Optional(Type.Boolean()),
    is_recent: Type.Optional(Type.Boolean()),
    keywords: Type.Optional(Type.Array(Type.String())),
    knowledge_source: Type.Optional(Nullable(Type.String())),
    original_query: Type.Optional(Type.String()),
    query_language: Type.Optional(Nullable(Type.String())),
    reformulated_query: Type.Optional(Type.String()),
    related_queries: Type.Optional(Type.Array(Type.String())),
    title: Type.Optional(Nullable(Type.String())),
  },
  { $id: 'Query' },
);

export const QueryDetails = Type.Object(
  {
    compared: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
    retrieved: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
    selected: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
    incomplete_queries: Type.Optional(Type.Array(Type.String())),
    planning_fallback: Type.Optional(Type.Boolean()),
    queries: Type.Optional(Type.Array(Type.String())),
    query: Type.Optional(Nullable(Type.String())),
    ranking_fallback: Type.Optional(Type.Boolean()),
  },
  { $id: 'QueryDetails' },
);

export const ConversationResponse = Type.Object(
  {
    conversation_id: Type.String(),
    answer: Type.String(),
    citations: Type.Optional(Type.Array(ref(CitationOccurrence))),
    id: Type.Optional(Nullable(Int64())),
    kind: Type.Optional(Type.String()),
    model_name: Type.Optional(Nullable(Type.String())),
    query: Type.Optional(Nullable(ref(Query))),
    query_details: Type.Optional(Nullable(ref(QueryDetails))),
    search_documents: Type.Optional(Type.Array(ref(SearchDocument))),
    trajectory: Type.Optional(Nullable(ref(SearchTrajectory))),
  },
  { $id: 'ConversationResponse' },
);

export const ConversationStep = Type.Union(
  [
    Type.Intersect([Type.Object({ kind: Type.Literal('request') }), ref(ConversationRequest)]),
    Type.Intersect([Type.Object({ kind: Type.Literal('response') }), ref(ConversationResponse)]),
  ],
  { $id: 'ConversationStep', description: 'Discriminated on `kind`: a request step or a response step.' },
);

export const FullConversation = Type.Object(
  { conversation_metadata: ref(ConversationMetadata), conversation_steps: Type.Array(ref(ConversationStep)) },
  { $id: 'FullConversation' },
);

export const ListConversationsResponse = Type.Object({ conversations: Type.Array(ref(ConversationMetadata)) }, { $id: 'ListConversationsResponse' });

export const EditStepRequest = Type.Object(
  { new_query: Type.String({ minLength: 1, maxLength: 16384, description: 'Replacement query for the selected request step.' }) },
  { $id: 'EditStepRequest' },
);

export const UpdateConversationRequest = Type.Object({ is_shared: Type.Boolean() }, { $id: 'UpdateConversationRequest', additionalProperties: false });

export const CONVERSATION_SCHEMAS = [
  ConversationMetadata,
  LlmConfig,
  ConversationRequest,
  CitationOccurrence,
  Query,
  QueryDetails,
  ConversationResponse,
  ConversationStep,
  FullConversation,
  ListConversationsResponse,
  EditStepRequest,
  UpdateConversationRequest,
];

export type ConversationRequest = Static<typeof ConversationRequest>;
export type EditStepRequest = Static<typeof EditStepRequest>;
export type UpdateConversationRequest = Static<typeof UpdateConversationRequest>;
