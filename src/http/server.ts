// Builds the Fastify application: logging with request ids, strict validation, one error path,
// authentication and rate limits per route (route `config`), Prometheus metrics, the OpenAPI document
// and every route. `listen` is the caller's business (tests use `inject`).
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import fastifySwagger from '@fastify/swagger';
import type { TSchema } from 'typebox';
import { AppError } from '../domain/errors.js';
import type { Principal } from '../domain/principal.js';
import type { RateScope } from '../config/index.js';
import { clientErrorHandler, frameworkErrorHandler, installErrorHandling } from './errors.js';
import { installRequestLog, RequestLogController } from './request-log.js';
import { operationIdFor } from './operation-ids.js';
import { sharedSerializers } from './serializers.js';
import { installUnstorableTextCheck, installValidation } from './validation.js';
import { ALL_SCHEMAS } from './schemas/index.js';
import { createHttpMetrics } from './metrics.js';
import { installSearchTimings } from './search-timings.js';
import type { HttpDeps } from './deps.js';
import { registerOpsRoutes } from './routes/ops.js';
import { publishableOpenApi } from './openapi-document.js';
import { securityOf, securitySchemes, withContract } from './openapi-contract.js';
import { registerDocumentRoutes } from './routes/v2/documents.js';
import { registerDownloadRoutes } from './routes/v2/downloads.js';
import { registerSearchRoutes } from './routes/v2/search.js';
import { registerMcpRoutes } from './routes/mcp.js';
import { registerProtectedResourceRoutes } from './routes/protected-resource.js';
import { registerAuthRoutes } from './routes/auth/index.js';
import { registerRecognitionRoutes } from './routes/v1/recognitions.js';
import { registerConversationRoutes } from './routes/v2/conversations.js';
import { registerCommunityRoutes } from './routes/v2/community.js';
import { registerWebPages } from './routes/web/index.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `required` (default): 401 without a valid credential; `optional`; `none`: never looked at. */
    auth?: 'required' | 'optional' | 'none';
    /** Rate-limit bucket; null disables. Default `default` for authenticated routes. */
    rateScope?: RateScope | null;
    /**
     * Unauthenticated routes: the bucket of `rateScope` within the address (e.g. the client of an OAuth
     * request), read from the parsed body; the check then runs before the handler instead of on request.
     */
    rateSubject?: (request: FastifyRequest) => string;
    /** Unauthenticated routes: a budget per address alone, checked on request (a flood guard). */
    rateAddressScope?: RateScope;
    /** Status for schema violations: 422 (default) or 400 where the interface says so. */
    validationStatus?: 400 | 422;
    /** How the route appears in /openapi.json when its Fastify path cannot say it (e.g. `{document_id}.{extension}`). */
    openapi?: { path: string; params: TSchema };
  }
  interface FastifyInstance {
    /** Every registered route (for the OpenAPI completeness test). */
    lecternRoutes: readonly { method: string; url: string; hidden: boolean }[];
  }
  interface FastifyRequest {
    /** The authenticated caller (null on unauthenticated routes). */
    principal: Principal | null;
  }
}

/** The credential presented with a request: `X-Api-Key`, else `Authorization: Bearer`. */
export function presentedCredential(request: FastifyRequest): string | null | 'malformed' {
  const apiKey = request.headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.length > 0) return apiKey.trim();
  const authz = request.headers.authorization;
  if (typeof authz !== 'string' || authz.length === 0) return null;
  const m = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(authz);
  return m ? m[1]! : 'malformed';
}


export async function buildHttpServer(deps: HttpDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    loggerInstance: deps.logger,
    // A well-formed, short X-Request-Id from the client is kept (traceable from the client's logs);
    // anything else is replaced by a UUID.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[A-Za-z0-9._:-]{8,128}$/.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    // one line per request, written by request-log.ts (issue 25: Fastify's two lines were 441 bytes)
    logController: new RequestLogController(),
    bodyLimit: config.limits.jsonBodyBytes,
    // Slow headers: Node's requestTimeout answers 408 through clientErrorHandler; slow bodies: preParsing below.
    requestTimeout: config.limits.requestTimeoutMs,
    trustProxy: config.trustProxy,
    clientErrorHandler,
    frameworkErrors: frameworkErrorHandler,
    forceCloseConnections: 'idle',
    routerOptions: { maxParamLength: 4096, ignoreTrailingSlash: true },
    // one serializer per distinct response schema, compiled on first use (serializers.ts; ADRs 0222, 0243)
    schemaController: { compilersFactory: { buildSerializer: sharedSerializers as never } },
  });

  app.decorateRequest('principal', null);
  // Hooks every request runs are callback hooks, not async functions, where they do not wait for
  // anything: an async hook costs a promise and a microtask turn per request (issue 29, ADR 0371).
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });

  installErrorHandling(app);
  installRequestLog(app);
  // A body that does not arrive within limits.requestTimeoutMs is cut off: 408 request_timeout, and the
  // connection is closed (a slow body cannot hold a socket forever, authenticated or not).
  app.addHook('preParsing', (request, reply, payload, next) => {
    const timer = setTimeout(() => {
      reply.header('Connection', 'close');
      payload.emit('error', new AppError('request_timeout', `The request body did not arrive within ${Math.round(config.limits.requestTimeoutMs / 1000)} s.`));
    }, config.limits.requestTimeoutMs);
    timer.unref();
    const done = () => clearTimeout(timer);
    payload.once('end', done);
    payload.once('close', done);
    payload.once('error', done);
    next(null, payload);
  });
  // A response sent before the request's body arrived (a 401 or 429 from an onRequest hook, on any route
  // including /mcp and /v2/mcp) closes the connection: otherwise the socket stays open for the rest of
  // a body that nobody reads, and a slow client holds it past the body timeout (issue 25).
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!request.raw.complete) reply.header('Connection', 'close');
    done(null, payload);
  });
  installValidation(app, ALL_SCHEMAS);
  installUnstorableTextCheck(app);

  // Billing tied to delivery (issue 12, ADR 0078): the handler runs in a settlement scope; credits
  // it holds are captured when the whole response has been handed to the network, and released when
  // the client went away first or the request failed. A callback hook: the handler runs inside
  // runInScope's continuation.
  app.addHook('preHandler', (request, reply, done) => {
    const scope = deps.billing.openScope();
    // The socket is detached from the response before our 'finish' listener runs: taken now.
    const socket = request.raw.socket as { destroyed?: boolean; errored?: unknown; readableEnded?: boolean } | null;
    // Gone already (the client hung up while the body arrived): nothing can be delivered.
    if (reply.raw.destroyed || socket?.destroyed === true) void deps.billing.settle(scope, false);
    else {
      // 'finish' comes first when the response was handed over whole; settle() acts once. Not
      // delivered although 'finish' came: the client reset the connection (Node emits 'finish' after
      // the failed write; the socket carries the error), or it had closed its side before the
      // response was complete (like nginx's 499, a client that hung up is treated as gone).
      reply.raw.once('finish', () => void deps.billing.settle(scope, reply.statusCode < 400 && !socket?.errored && socket?.readableEnded !== true));
      reply.raw.once('close', () => void deps.billing.settle(scope, false));
    }
    deps.billing.runInScope(scope, done);
  });

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Lectern API',
        version: '0.1.0',
        description:
          'Research search, retrieval, conversation and comment service. The description is MIT-licensed; retrieved content keeps its own rights.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: config.baseUrl }],
      components: { securitySchemes: securitySchemes(config.authUrl) },
      security: securityOf('required'),
    },
    transform: ({ schema, url, route }) => {
      const cfg = route.config as { openapi?: { path: string; params: TSchema }; auth?: 'required' | 'optional' | 'none'; rateScope?: unknown; validationStatus?: 400 | 422 } | undefined;
      const method = [route.method].flat()[0] ?? 'GET';
      const published = withContract(schema as Parameters<typeof withContract>[0], cfg, method) as typeof schema;
      const o = cfg?.openapi;
      // a stable operationId per operation (operation-ids.ts), so generated clients do not invent names
      const operationId = operationIdFor(method, o ? o.path : url);
      const named = (operationId ? { ...published, operationId } : published) as typeof schema;
      return o ? { schema: { ...named, params: o.params }, url: o.path } : { schema: named, url };
    },
    transformObject: (d) => publishableOpenApi((d as { openapiObject: Record<string, unknown> }).openapiObject) as never,
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String((json as { $id?: string }).$id ?? `def-${i}`) },
  });

  const metrics = createHttpMetrics(deps.metricsRegistry);
  installSearchTimings(app, deps.metricsRegistry);
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observe(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  // A DELETE without a body is accepted whatever Content-Type it names (clients often send their
  // default `application/json` with no body): with nothing to parse, the header is dropped (issue 26).
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.method === 'DELETE' && request.headers['content-type'] !== undefined) {
      const length = request.headers['content-length'];
      if (request.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) delete request.raw.headers['content-type'];
    }
    done();
  });

  // Authentication, then the rate limit, before the body is parsed: an unauthenticated caller gets
  // 401 whatever it sent, and a throttled one never costs a parse.
  app.addHook('onRequest', async (request) => {
    const cfg = request.routeOptions.config ?? {};
    const mode = cfg.auth ?? 'required';
    if (request.is404 || mode === 'none') {
      if (cfg.rateAddressScope) await deps.rateLimits.check(cfg.rateAddressScope, `ip:${request.ip}`);
      if (cfg.rateScope && !cfg.rateSubject) await deps.rateLimits.check(cfg.rateScope, `ip:${request.ip}`);
      return;
    }
    const presented = presentedCredential(request);
    if (presented === null && mode === 'optional') {
      // Anonymous on a route that serves anyone (a shared conversation): the scope's budget per address.
      const scope = cfg.rateScope === undefined ? 'default' : cfg.rateScope;
      if (scope) await deps.rateLimits.check(scope, `ip:${request.ip}`);
      return;
    }
    if (presented === null || presented === 'malformed') throw new AppError('unauthorized');
    // Guessing keys is bounded: failed checks spend the address's `authFailures` bucket, and an
    // address that spent it gets 429 for every failed check until it refills. The credential is checked
    // first (one lookup by key id, or a token's signature, then its record), so a valid one is accepted
    // from a blocked address: others' wrong guesses behind the same NAT never lock it out (ADR 0271).
    const principal = await deps.credentials.verify(presented);
    if (!principal) {
      await deps.rateLimits.failedCredential('authFailures', `ip:${request.ip}`);
      throw new AppError('unauthorized');
    }
    // OAuth tokens are bound to a resource; the HTTP API accepts those issued for {mcp_url} or the
    // legacy MCP address (auth requirements, decision 5). API keys have no audience.
    if (principal.audience !== null && principal.audience !== config.mcpUrl && principal.audience !== config.legacyMcpUrl) throw new AppError('unauthorized');
    request.principal = principal;
    const scope = cfg.rateScope === undefined ? 'default' : cfg.rateScope;
    if (scope) await deps.rateLimits.check(scope, `a:${principal.accountId}`);
  });

  // Buckets keyed by what the body says (OAuth client, grant, registration): after parsing.
  app.addHook('preHandler', (request, _reply, done) => {
    const cfg = request.routeOptions.config ?? {};
    if (!(cfg.rateScope && cfg.rateSubject && cfg.auth === 'none')) return done();
    let key: string;
    try {
      key = `ip:${request.ip}|${cfg.rateSubject(request)}`;
    } catch (e) {
      return done(e as Error);
    }
    deps.rateLimits.check(cfg.rateScope, key).then(() => done(), (e: unknown) => done(e as Error));
  });

  const routes: { method: string; url: string; hidden: boolean }[] = [];
  app.addHook('onRoute', (r) => {
    for (const m of [r.method].flat()) {
      if (m !== 'HEAD') routes.push({ method: m, url: (r.config as { openapi?: { path: string } } | undefined)?.openapi?.path ?? r.url, hidden: (r.schema as { hide?: boolean } | undefined)?.hide === true });
    }
  });
  app.decorate('lecternRoutes', routes);

  registerOpsRoutes(app, deps);
  registerDocumentRoutes(app, deps);
  registerDownloadRoutes(app, deps);
  registerSearchRoutes(app, deps);
  registerProtectedResourceRoutes(app, deps);
  if (deps.recognitions) await registerRecognitionRoutes(app, { ...deps, recognitions: deps.recognitions });
  if (deps.conversations) registerConversationRoutes(app, { ...deps, conversations: deps.conversations });
  if (deps.community) registerCommunityRoutes(app, { ...deps, community: deps.community });
  if (deps.mcp) registerMcpRoutes(app, { ...deps, mcp: deps.mcp });
  // Authorization server, sign-in pages and the service_auth claim flow (issue 4; src/http/routes/auth/).
  if (deps.auth) await registerAuthRoutes(app, deps);
  // The web application's pages (issue 11; src/http/routes/web/), over the sign-in pages' sessions.
  if (deps.auth) await registerWebPages(app, deps);
  for (const extra of deps.extraRoutes ?? []) await extra(app);
  return app;
}

/** The authenticated principal of a route declared with `auth: 'required'`. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('unauthorized');
  return request.principal;
}
