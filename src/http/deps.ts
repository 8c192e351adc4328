// What the HTTP layer needs from the composition root: configuration, services and ports.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Config, RateScope } from '../config/index.js';
import type { Principal } from '../domain/principal.js';
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
  /** In-document passage search (`text_filter` on by-uri); absent until the search engine is wired. */
  passages?: (principal: Principal, uri: string, textFilter: string, requestId: string) => Promise<unknown>;
  /** The authorization server, sign-in pages and claim flow (src/http/routes/auth/); absent: not served. */
  auth?: Auth;
  /** Extra route registrations (tests, optional components). */
  extraRoutes?: readonly ((app: FastifyInstance) => Promise<void> | void)[];
}
