// Every operation of /openapi.json has a stable, readable `operationId` (issue 25: without them,
// generators invent names such as `putV2ConversationsByConversationIdOrSlugEditStepByStepIdStream`).
// One table, keyed by method and published path, so a renamed handler cannot rename an operation and
// a client's method names stay what they were. A route without an entry gets none, which
// test/api/openapi.test.ts refuses: add it here.

const OPERATION_IDS: Readonly<Record<string, string>> = {
  // operations
  'GET /healthz': 'getHealth',
  'GET /readyz': 'getReadiness',
  'GET /metrics': 'getMetrics',
  'GET /openapi.json': 'getOpenApiDocument',
  // search and documents
  'POST /v2/search/': 'searchDocuments',
  'POST /v2/search/similar': 'searchSimilarDocuments',
  'GET /v2/documents/{document_id}': 'getDocument',
  'GET /v2/documents/by-uri/{uri}': 'getDocumentByUri',
  'GET /v2/documents/trending': 'listTrendingDocuments',
  'GET /v2/documents/{document_id}/activity': 'getDocumentActivity',
  'GET /v2/documents/{document_id}/comments': 'listDocumentComments',
  // originals
  'GET /v2/downloads/{document_id}.{extension}': 'downloadOriginal',
  'GET /v2/downloads/by-uri/{uri}': 'downloadOriginalByUri',
  // community
  'POST /v2/search/feedback': 'submitSearchFeedback',
  'POST /v2/search/comments': 'submitComment',
  'PUT /v2/comments/{comment_id}/vote': 'voteOnComment',
  'DELETE /v2/comments/{comment_id}/vote': 'withdrawCommentVote',
  // conversations
  'GET /v2/conversations/': 'listConversations',
  'POST /v2/conversations/': 'createConversationTurn',
  'POST /v2/conversations/stream': 'streamConversationTurn',
  'PUT /v2/conversations/{conversation_id_or_slug}/edit-step/{step_id}': 'editConversationStep',
  'PUT /v2/conversations/{conversation_id_or_slug}/edit-step/{step_id}/stream': 'streamConversationStepEdit',
  'GET /v2/conversations/{slug}': 'getConversation',
  'PATCH /v2/conversations/{slug}': 'updateConversation',
  'DELETE /v2/conversations/{slug}': 'deleteConversation',
  // recognition
  'POST /v1/recognitions': 'createRecognition',
  'GET /v1/recognitions': 'listRecognitions',
  'GET /v1/recognitions/formats': 'listRecognitionFormats',
  'GET /v1/recognitions/{job_id}': 'getRecognition',
  'DELETE /v1/recognitions/{job_id}': 'cancelRecognition',
  'GET /v1/recognitions/{job_id}/result': 'getRecognitionResult',
  // agents (MCP) and their discovery
  'POST /mcp': 'callMcp',
  'POST /v2/mcp': 'callLegacyMcp',
  'GET /.well-known/oauth-protected-resource': 'getProtectedResourceMetadata',
  'GET /.well-known/oauth-protected-resource/mcp': 'getMcpProtectedResourceMetadata',
  'GET /mcp/.well-known/oauth-protected-resource': 'getMcpProtectedResourceMetadataBelowResource',
  'GET /.well-known/oauth-protected-resource/v2/mcp': 'getLegacyMcpProtectedResourceMetadata',
  'GET /v2/mcp/.well-known/oauth-protected-resource': 'getLegacyMcpProtectedResourceMetadataBelowResource',
  // OAuth and agent identity
  'GET /.well-known/oauth-authorization-server': 'getAuthorizationServerMetadata',
  'GET /v2/oauth/jwks': 'getJsonWebKeySet',
  'POST /v2/oauth/register': 'registerOAuthClient',
  'GET /v2/oauth/authorize': 'authorize',
  'POST /v2/oauth/token': 'requestToken',
  'POST /v2/oauth/revoke': 'revokeToken',
  'POST /v2/agent/identity': 'registerAgentIdentity',
  'POST /v2/agent/identity/claim': 'startAgentClaim',
  'GET /v2/agent/skill.md': 'getAgentSkill',
  'POST /v2/agent/verify/complete': 'completeAgentClaim',
};

/** The operationId of `method path` (the published OpenAPI path, `{param}` style), if it has one. */
export function operationIdFor(method: string, path: string): string | undefined {
  return OPERATION_IDS[`${method.toUpperCase()} ${path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`];
}
