// Operations: liveness, readiness, Prometheus metrics, the OpenAPI document.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../domain/errors.js';
import type { HttpDeps } from '../deps.js';
import { errorResponses, mediaResponse } from '../schemas/common.js';

const Health = Type.Object({
  status: Type.String(),
  checks: Type.Optional(Type.Record(Type.String(), Type.String())),
  index_seq: Type.Optional(Type.Integer({ minimum: 0, description: 'The document store change sequence up to which this server\'s indexes are committed and searchable (docs/ingest.md "Waiting until searchable").' })),
});

export function registerOpsRoutes(app: FastifyInstance, deps: HttpDeps): void {
  const open = { auth: 'none' as const, rateScope: null };

  app.get('/healthz', { config: open, schema: { summary: 'Liveness: the process answers.', tags: ['operations'], security: [], response: { 200: Health } } }, async () => ({
    status: 'ok',
  }));

  app.get(
    '/readyz',
    { config: open, schema: { summary: 'Readiness: storage and rate limiter answer, and the indexes are open and caught up with the store as of the start (docs/operations.md "Start-up and readiness").', tags: ['operations'], security: [], response: { 200: Health, ...errorResponses(503) } } },
    async () => {
      const { checks, indexSeq } = await deps.readiness();
      const failing = Object.entries(checks).filter(([, v]) => v !== 'ok');
      if (failing.length > 0) throw new AppError('service_unavailable', `Not ready: ${failing.map(([k, v]) => `${k}: ${v}`).join('; ')}`, { extra: { checks, ...(indexSeq !== undefined ? { index_seq: indexSeq } : {}) }, headers: { 'Retry-After': '1' } });
      return { status: 'ok', checks, ...(indexSeq !== undefined ? { index_seq: indexSeq } : {}) };
    },
  );

  app.get('/metrics', { config: open, schema: { summary: 'Prometheus metrics (text exposition format).', tags: ['operations'], security: [], response: { 200: mediaResponse('Metrics in the Prometheus text format.', { 'text/plain': Type.String() }) } } }, async (_req, reply) => {
    reply.type(deps.metricsRegistry.contentType);
    return deps.metricsRegistry.metrics();
  });

  app.get('/openapi.json', { config: open, schema: { summary: 'This OpenAPI 3.1 document.', tags: ['operations'], security: [], response: { 200: Type.Object({}, { additionalProperties: true, description: 'An OpenAPI 3.1.0 document.' }) } } }, async () => app.swagger());
}
