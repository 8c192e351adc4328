// What the HTTP layer needs from the composition root: configuration, services and ports.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Config, RateScope } from '../config/index.js';
import type { Principal } from '../domain/principal.js';
import type { PassageSearch } from '../search/passage-search.js';
import type { SearchService } from '../search/search-service.js';
import type { CredentialVerifier } from '../accounts/credentials.js';
import type { RateLimitService } from '../limits/rate-limit-service.js';
import type { DocumentService } from '../documents/document-service.js';
import type { DownloadService } from '../downloads/download-service.js';
import type { Auth } from '../auth/index.js';
import type { RecognitionJobService } from '../recognition-jobs/index.js';
import type { ConversationService } from '../conversations/index.js';
import type { CommunityService } from '../community/index.js';
import type { ReferenceService } from '../citations/reference-service.js';
import type { ActivityRecorder } from '../activity/activity-buffer.js';
import type { SelfService } from '../accounts/self-service.js';
import type { BillingService } from '../billing/billing-service.js';

/** Readiness of the service's dependencies: name -> 'ok' or a short reason. */
/**
 * What /readyz reports: each check ('ok' or why not) and the store change sequence the server's indexes
 * have made searchable (`lectern ingest --wait`, docs/ingest.md; absent without indexes).
 */
export type ReadinessCheck = () => Promise<{ checks: Record<string, string>; indexSeq?: number }>;

export interface HttpDeps {
  config: Config;
  logger: FastifyBaseLogger;
  metricsRegistry: Registry;
  credentials: CredentialVerifier;
  rateLimits: RateLimitService<RateScope>;
  /** Credit holds of each request are captured when its response is delivered, released otherwise. */
  billing: BillingService;
  readiness: ReadinessCheck;
  documents: DocumentService;
  downloads: DownloadService;
  search: SearchService;
  /** In-document passage search (`text_filter` on by-uri). */
  passages: PassageSearch;
  /** The MCP endpoint served at {mcp_url} and the legacy address (built in mcp/, wired by app.ts); absent: not mounted. */
  mcp?: McpHandler;
  /** The authorization server, sign-in pages and claim flow (src/http/routes/auth/); absent: not served. */
  auth?: Auth;
  /** Recognition jobs (/v1/recognitions); absent: not served. */
  recognitions?: RecognitionJobService;
  /** Conversations (/v2/conversations/); absent: not served. */
  conversations?: ConversationService;
  /** Feedback, comments, votes, activity and trending (docs/community.md); absent: not served. */
  community?: CommunityService;
  /** Works a document cites (the document page's references); absent: the web pages show none. */
  references?: ReferenceService;
  /** Activity events (the document page records a `view`); absent: views are not recorded. */
  activity?: ActivityRecorder;
  /** Balance, usage and API keys of one's own account (the web account page); absent: not shown. */
  selfService?: SelfService;
  /** Extra route registrations (tests, optional components). */
  extraRoutes?: readonly ((app: FastifyInstance) => Promise<void> | void)[];
}

/** One authenticated MCP exchange, as the HTTP layer hands it to the MCP server. */
export interface McpRequestContext {
  principal: Principal;
  /** The resource address the request came to ({mcp_url} or the legacy address). */
  resource: string;
  /** The X-Request-Id (billing reference, logs). */
  requestId: string;
  /** The parsed JSON body of a POST; undefined for GET and DELETE. */
  body: unknown;
}

/**
 * The MCP Streamable HTTP endpoint (mcp/ implements it; http/ and mcp/ never import each other, so the
 * shape is repeated there and app.ts checks they agree). The HTTP layer has already checked Origin,
 * the credential, its audience and scope; the handler answers the rest (protocol version, sessions,
 * rate limits, JSON-RPC). It throws AppError to refuse a request with an ApiError.
 */
export interface McpHandler {
  handle(request: Request, context: McpRequestContext): Promise<Response>;
}
