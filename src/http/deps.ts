// What the HTTP layer needs from the composition root: configuration, services and ports.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Config, RateScope } from '../config/index.js';
import type { PassageSearch } from '../search/passage-search.js';
import type { SearchService } from '../search/search-service.js';
import type { CredentialVerifier } from '../accounts/credentials.js';
import type { RateLimitService } from '../limits/rate-limit-service.js';
import type { DocumentService } from '../documents/document-service.js';
import type { DownloadService } from '../downloads/download-service.js';
import type { Auth } from '../auth/index.js';

/** Readiness of the service's dependencies: name -> 'ok' or a short reason. */
export type ReadinessCheck = () => Promise<Record<string, string>>;

export interface HttpDeps {
  config: Config;
  logger: FastifyBaseLogger;
  metricsRegistry: Registry;
  credentials: CredentialVerifier;
  rateLimits: RateLimitService<RateScope>;
  readiness: ReadinessCheck;
  documents: DocumentService;
  downloads: DownloadService;
  search: SearchService;
  /** In-document passage search (`text_filter` on by-uri). */
  passages: PassageSearch;
  /** The authorization server, sign-in pages and claim flow (src/http/routes/auth/); absent: not served. */
  auth?: Auth;
  /** Extra route registrations (tests, optional components). */
  extraRoutes?: readonly ((app: FastifyInstance) => Promise<void> | void)[];
}
