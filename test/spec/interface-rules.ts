// Traceability: the numbered rules and limits of ../shared/spec/interface.md, each with the tests that
// prove it (`<test file under test/>` :: `<test name>`). Rules of capabilities that are not built yet
// carry `notBuilt` with the reason, and list the route that must not exist until they are (so the list
// cannot silently fall behind the code). test/spec/traceability.test.ts checks all of it.

export interface Rule {
  id: string;
  text: string;
  tests: string[];
  /** Why there is no test yet: the capability is not built (no open issue). */
  notBuilt?: { reason: string; routes: string[] };
}


export const RULES: Rule[] = [
  // What the service does
  { id: 'does-1', text: 'searches documents and social', tests: ['api/search.test.ts :: include_rrf_scores gives exact votes; several indexes are fused by RRF'] },
  {
    id: 'does-2',
    text: 'text of one document by id or canonical URI, bounded by tokens, characters or a text filter',
    tests: [
      'api/documents.test.ts :: max_tokens returns exactly the first N content tokens and bills only those',
      'api/documents.test.ts :: max_chars returns at most N characters (code points) and reports the full length',
      'api/search.test.ts :: returns up to five matching passages of that document as a V2SearchResponse; billed 15',
    ],
  },
  {
    id: 'does-3',
    text: 'streams originals with byte ranges to eligible accounts only',
    tests: ['api/downloads.test.ts :: multiple ranges: 206 multipart/byteranges with each part', 'api/downloads.test.ts :: not eligible: 403 with a clear detail'],
  },
  { id: 'does-4', text: 'retrieval-augmented conversations', tests: ['api/conversations.test.ts :: a turn answers with verified citations, stores request and response steps, bills once, records activity', 'api/conversations.test.ts :: editing the first request recomputes it and every later step; bills the edit once; a response step is 404'] },
  { id: 'does-5', text: 'relevance feedback, agent comments, votes', tests: ['api/community.test.ts :: done when: the whole flow, retries change nothing'] },
  { id: 'does-6', text: 'document activity counters and a trending list', tests: ['api/community.test.ts :: done when: the whole flow, retries change nothing'] },
  {
    id: 'does-7',
    text: 'converts uploaded PDF, EPUB and DJVU into structured Markdown with a per-document quality report: submit, poll, fetch the result; billed per document; an identical resubmission is free',
    tests: [
      'recognition-jobs/api.test.ts :: PDF end to end: 202 pending, poll to completed, result as JSON and as Markdown, billed once per page',
      'recognition-jobs/api.test.ts :: EPUB end to end',
      'recognition-jobs/api.test.ts :: DJVU end to end (text layer)',
      'recognition-jobs/api.test.ts :: identical resubmission is free and returns the same job; another account gets its own job, converted once, billed once',
    ],
  },
  {
    id: 'does-8',
    text: 'billing: search and document fetch spend credits; 402 when short; a cut document bills only returned tokens; repeated fetch charged again',
    tests: [
      'api/search.test.ts :: billed 10 + 1 per returned hit; shown activity recorded; 402 leaves no entry',
      'api/documents.test.ts :: 402 when the balance cannot pay: no content, no ledger entry',
      'api/documents.test.ts :: full document: content, URIs, retraction flag; billed the flat price',
    ],
  },
  { id: 'does-9', text: 'canonical URI schemes doi, arxiv, pubmed, pmc, isbn, https', tests: ['property/canonical-uri.test.ts :: normalisation is idempotent for every scheme', 'property/canonical-uri.test.ts :: ISBN-10 and its ISBN-13 are one URI; hyphens ignored; bad check digits refused'] },

  // Limits
  { id: 'limit-query-length', text: 'query at most 16 KiB', tests: ['api/search.test.ts :: validation: limits, unknown properties, query size, index names'] },
  { id: 'limit-hits', text: 'search limit 1..500, default 10', tests: ['api/search.test.ts :: validation: limits, unknown properties, query size, index names'] },
  { id: 'limit-offset', text: 'offset 0..499; offset + limit <= 500', tests: ['api/search.test.ts :: paging: pages concatenate to the full ranking; has_next; offset + limit <= 500'] },
  { id: 'limit-indexes', text: 'index_names 1..8 items', tests: ['api/search.test.ts :: validation: limits, unknown properties, query size, index names'] },
  { id: 'limit-reranker-candidates', text: 'cross_rerank_candidates 0..256', tests: ['api/search.test.ts :: validation: limits, unknown properties, query size, index names'] },
  { id: 'limit-similar', text: 'similar limit 1..100, default 10', tests: ['api/channels.test.ts :: similar documents: nearest by content, without the source; filters, limit 1..100, 404, billed like a search'] },
  { id: 'limit-lexical-weights', text: 'fulltext_weight and fulltext_phrase_boost 0..10', tests: ['api/search.test.ts :: validation: limits, unknown properties, query size, index names', 'api/search.test.ts :: a quoted phrase is required (straight, curly, guillemets); boost 0 keeps the constraint'] },
  { id: 'limit-citing-identifiers', text: 'referenced_by_uri up to 16 identifiers', tests: ['api/search.test.ts :: referenced_by_uri: documents citing a work, through any of its identifiers'] },
  { id: 'limit-passages', text: 'by-uri text_filter: up to 5 passages', tests: ['api/search.test.ts :: returns up to five matching passages of that document as a V2SearchResponse; billed 15'] },
  { id: 'limit-trending', text: 'trending limit 1..50, default 20', tests: ['api/community.test.ts :: trending is not shadowed by /v2/documents/{document_id}; bad limit or period is 422; activity of an unknown document is 404'] },

  // Errors
  {
    id: 'errors-body',
    text: 'every error is an ApiError with X-Request-Id',
    tests: ['api/errors.test.ts :: unknown route: 404 ApiError', 'api/errors.test.ts :: errors before routing (oversize headers) are ApiErrors with X-Request-Id', 'api/errors.test.ts :: 500 never leaks internals'],
  },
  { id: 'errors-401', text: 'missing or invalid credential: 401 Unauthorized', tests: ['api/errors.test.ts :: missing or invalid credential: 401 with detail Unauthorized'] },
  { id: 'errors-1', text: '429: detail {code rate_limited, retry_after_seconds, scope} and Retry-After >= 1', tests: ['api/errors.test.ts :: 429 with Retry-After and the rate_limited detail; buckets refill'] },
  { id: 'errors-400-uri', text: '400 invalid URI or text filter (by-uri)', tests: ['api/documents.test.ts :: 400 invalid URI, 404 unknown, 422 bad parameters; none of them charges', 'api/search.test.ts :: 400 for an invalid text filter or URI; nothing charged'] },
  { id: 'errors-422', text: '422: query or parameters cannot be processed', tests: ['api/documents.test.ts :: 400 invalid URI, 404 unknown, 422 bad parameters; none of them charges'] },

  // Documents endpoint rules
  { id: 'documents-uri-encoded', text: 'uri is a percent-encoded canonical URI', tests: ['api/documents.test.ts :: by-uri accepts percent-encoded canonical URIs and common spellings'] },
  { id: 'documents-text-filter-verbatim', text: 'double-quoted spans must occur verbatim in the passage', tests: ['api/search.test.ts :: double-quoted spans must occur verbatim'] },
  { id: 'documents-content-length', text: 'a cut body reports its full length in content_length', tests: ['api/documents.test.ts :: max_chars returns at most N characters (code points) and reports the full length'] },

  // Search request rules
  { id: 'search-unknown-properties', text: 'SearchRequestV2: unknown properties rejected', tests: ['api/search.test.ts :: validation: limits, unknown properties, query size, index names'] },
  { id: 'search-phrases', text: 'quoted spans (straight, curly, guillemets) are required phrases with a bonus', tests: ['api/search.test.ts :: a quoted phrase is required (straight, curly, guillemets); boost 0 keeps the constraint'] },
  { id: 'search-empty-query', text: 'empty query may be combined with filters', tests: ['api/search.test.ts :: an empty query with filters lists matching documents'] },
  { id: 'search-ranking-mode', text: 'response ranking_mode is resolved, never auto', tests: ['api/search.test.ts :: words rank by relevance; the response has every required field'] },
  { id: 'search-return-documents', text: 'return_documents false: ids and scores only', tests: ['api/search.test.ts :: return_documents false: ids and scores only'] },
  { id: 'search-deduplicate', text: 'deduplicate collapses duplicate documents', tests: ['api/search.test.ts :: deduplicate collapses a preprint and its published version'] },
  { id: 'search-referenced-by', text: 'referenced_by_uri returns documents citing the work', tests: ['api/search.test.ts :: referenced_by_uri: documents citing a work, through any of its identifiers'] },
  { id: 'search-fulltext-weight-0', text: 'fulltext_weight 0 disables the lexical channel', tests: ['api/search.test.ts :: components that are not configured: 422 naming what is missing, never a silent fallback'] },
  { id: 'search-cross-rerank-default', text: 'cross_rerank has no effect unless configured; l2 auto activates a configured profile only', tests: ['api/search.test.ts :: components that are not configured: 422 naming what is missing, never a silent fallback'] },
  { id: 'search-rrf', text: 'include_rrf_scores: exact RRF votes', tests: ['api/search.test.ts :: include_rrf_scores gives exact votes; several indexes are fused by RRF'] },
  { id: 'search-modes', text: 'SearchMode: sparse, short_document, binary, hybrid, fulltext', tests: ['api/channels.test.ts :: every mode answers; hybrid fuses fulltext, sparse and short_document with exact weighted votes', 'api/channels.test.ts :: before training: model modes and similar documents answer 422 naming the missing model; hybrid names the unconfigured channels'] },
  { id: 'search-sparse-params', text: 'max_query_dims, weight_threshold, pruning, heap_factor shape the sparse query', tests: ['api/channels.test.ts :: sparse parameters: max_query_dims bounds the vector, weight_threshold and pruning drop generated terms', 'engine/corpus-model.test.ts :: sparse expansion: weighted extra clauses find documents without the query words; heap factor 1 is exact'] },
  { id: 'search-similar', text: 'SimilarRequestV2: document_id seeds similarity retrieval; filter_languages, filter_types', tests: ['api/channels.test.ts :: similar documents: nearest by content, without the source; filters, limit 1..100, 404, billed like a search'] },
  { id: 'search-tracing', text: 'tracing returns bounded traces', tests: ['api/search.test.ts :: hybrid with only the lexical channel equals fulltext, and the trace says so'] },
  { id: 'search-snippet-source', text: 'SnippetSource offsets in Unicode scalar values, exclusive end, field_length', tests: ['api/search.test.ts :: snippets point at the field text by code points and highlight matches'] },

  // Authentication
  {
    id: 'auth-credentials',
    text: 'X-Api-Key, Bearer API key or OAuth access token; 401 Unauthorized otherwise',
    tests: ['api/errors.test.ts :: X-Api-Key and Authorization: Bearer both authenticate', 'mcp/transport.test.ts :: [11] X-Api-Key and Authorization: Bearer both carry API keys (decision 7)', 'mcp/protected-resource.test.ts :: [24] tokens for {mcp_url} and for the legacy address read documents; other audiences do not'],
  },
  { id: 'auth-discovery', text: 'agent_auth object of the authorization server metadata', tests: ['auth/metadata.test.ts :: [36] agent_auth holds skill, identity, claim, claim_complete and revocation addresses and the supported types'] },
  { id: 'auth-choosing-3', text: 'anonymous registration and external identity assertions are rejected', tests: ['auth/claim.test.ts :: [75] anonymous registration, other types and external identity assertions get 4xx'] },
  {
    id: 'auth-service-auth-flow',
    text: 'service_auth: register, show verification_uri + user_code, poll, token with identity_assertion, renew with jwt-bearer, revoke one token',
    tests: [
      'auth/claim.test.ts :: [74] registration returns the record: id, type, claim_url, claim_token (>= 128 bits), expiry ~now+900 s, scopes, claim',
      'auth/claim.test.ts :: [76] verification_uri carries its own attempt token (not the claim token, not the user code); nothing is emailed',
      'auth/claim.test.ts :: [79] after approval the next poll gets 200 with access_token, Bearer, 3600, search and identity_assertion',
      'auth/claim.test.ts :: [85] jwt-bearer with the identity assertion returns a new access token (3600 s, search)',
      'auth/revoke.test.ts :: [71] revoking an access token ends that token only: a sibling keeps working and the assertion mints more',
    ],
  },
  {
    id: 'auth-browser-oauth',
    text: 'dynamic client registration, PKCE S256, scope search, resource {mcp_url}',
    tests: [
      'auth/registration.test.ts :: [39] a valid registration gets 201 Created with client_id',
      'auth/authorize.test.ts :: [48] PKCE is enforced: no challenge, plain, or no method is invalid_request',
      'auth/authorize.test.ts :: [52] resource must be {mcp_url} or the legacy address, else invalid_target; missing means {mcp_url} (decision 4)',
      'auth/authorize.test.ts :: [45] the consent page shows the self-reported client_name and the callback host, and warns when every redirect is localhost',
    ],
  },
  {
    id: 'states-claim',
    text: 'claim pending -> approved | denied | expired; slow_down; token expiry and revocation',
    tests: [
      'auth/claim.test.ts :: [77] before the person decides, a poll gets 400 authorization_pending',
      'auth/claim.test.ts :: [78] a poll faster than the interval gets slow_down; a client that adds 5 s is not slowed again',
      'auth/claim.test.ts :: [80] deny gives access_denied, lifetime elapsed gives expired_token; both terminal',
      'auth/token.test.ts :: [66, 69] an access token stops working after 3600 s',
      'auth/claim-e2e.test.ts :: [74, 77, 78, 79, 85, 71, 69] the claim flow end to end over HTTP: register, pending, slow_down, approve in the page, token, renew, revoke, refused, renew again',
    ],
  },
  { id: 'errors-2', text: 'claim-flow token errors: authorization_pending, slow_down, access_denied, expired_token', tests: ['auth/claim.test.ts :: [82] claim-flow errors are JSON {error} with Cache-Control: no-store', 'auth/claim.test.ts :: [80] deny gives access_denied, lifetime elapsed gives expired_token; both terminal'] },
  { id: 'limit-claim-lifetime', text: 'claim.expires_in 900 seconds', tests: ['auth/claim.test.ts :: [74] registration returns the record: id, type, claim_url, claim_token (>= 128 bits), expiry ~now+900 s, scopes, claim'] },
  { id: 'limit-claim-interval', text: 'claim.interval: 5 seconds minimum between polls', tests: ['auth/claim.test.ts :: [78] a poll faster than the interval gets slow_down; a client that adds 5 s is not slowed again'] },
  { id: 'limit-access-token', text: 'access tokens live 3600 seconds', tests: ['auth/token.test.ts :: [66, 69] an access token stops working after 3600 s', 'auth/token.test.ts :: [61, 66] success: access_token, token_type Bearer, expires_in 3600 (a number), scope search, refresh_token for refresh clients'] },

  // Versioning
  { id: 'versioning-1', text: 'OpenAPI 3.1.0 document, version 0.1.0, MIT licence for the description', tests: ['api/openapi.test.ts :: validates as OpenAPI 3.1', 'api/openapi.test.ts :: title, version 0.1.0 and MIT licence for the description'] },
  { id: 'versioning-2', text: 'paths prefixed /v2/ (search, documents, downloads, ...) and /v1/ (recognitions)', tests: ['api/openapi.test.ts :: every route that exists is listed (and nothing else)'] },

  // States
  { id: 'states-conversation-sharing', text: 'conversation sharing and existence transitions', tests: ['api/conversations.test.ts :: sharing: private is 404 to others; shared is readable; PATCH/DELETE by others 404; unknown properties 400; delete'] },
  { id: 'states-comment', text: 'comment status and duplicate comment_id', tests: ['api/community.test.ts :: done when: the whole flow, retries change nothing', 'api/community.test.ts :: bad comments: URIs, quotes, contribution, replies, size, key reuse; bad votes'] },

  {
    id: 'states-recognition-job',
    text: 'recognition job: pending right after submission, completed when the result is fetchable (Lectern adds processing, failed, cancelled)',
    tests: [
      'recognition-jobs/api.test.ts :: PDF end to end: 202 pending, poll to completed, result as JSON and as Markdown, billed once per page',
      'recognition-jobs/api.test.ts :: before completion the result is 409 recognition_not_ready; DELETE cancels (nothing charged), then 409 recognition_failed and 409 on a second DELETE',
      'recognition-jobs/resume.test.ts :: restart resume (SQLite): a job stopped mid-conversion completes after a restart without redoing checkpointed pages',
    ],
  },
  {
    id: 'recognition-endpoints',
    text: 'POST /v1/recognitions multipart/form-data with one PDF, EPUB or DJVU file -> id and status pending; GET /v1/recognitions/{job_id}/result -> Markdown and quality report',
    tests: [
      'recognition-jobs/api.test.ts :: request errors: 401 without a credential, 415 for another body type, 400 without the file part',
      'recognition-jobs/api.test.ts :: random bytes: 422 unsupported_format, no job, nothing charged',
      'recognition-jobs/api.test.ts :: 413 over the upload limit (declared or streamed); nothing charged',
    ],
  },

  // Events
  { id: 'events-1', text: 'streaming operations answer text/event-stream; failures after headers arrive in the stream', tests: ['api/conversations.test.ts :: progress events, deltas, then the final ConversationResponse', 'api/conversations.test.ts :: refusals before work are ordinary errors; an upstream failure after headers is a final error event'] },
];
