// POST /v2/search/ (interface: Search and feedback; SearchRequestV2 -> V2SearchResponse).
import type { FastifyInstance } from 'fastify';
import type { HttpDeps } from '../../deps.js';
import { encodedHitsBody, releaseHitBuffer, spliceEncodedHits, toSearchRequest, toSearchResponse } from '../../presenters/search.js';
import { PacedBody } from '../../paced-body.js';
import { errorResponses, ref } from '../../schemas/common.js';
import { SearchRequestV2, SimilarRequestV2, V2SearchResponse } from '../../schemas/search.js';
import { recordSearchStages } from '../../search-timings.js';
import { principalOf } from '../../server.js';

export function registerSearchRoutes(app: FastifyInstance, deps: HttpDeps): void {
  app.post<{ Body: SearchRequestV2 }>(
    '/v2/search/',
    {
      config: { rateScope: 'search' },
      schema: {
        summary: 'Search the corpus (documents, social): BM25F with quoted phrases, filters, citations, fusion.',
        description:
          'Billed prices.search + prices.search_per_hit per returned hit (defaults 10 + 1); a page with no hit is not billed. Unknown properties are refused. ' +
          'Modes: fulltext (BM25F), sparse (learned query expansion), short_document (dense vectors), binary (sign-quantized vectors), hybrid (weighted RRF over every configured channel; the trace names unconfigured ones). ' +
          'Requests that need a component this server does not have (sparse/binary/short_document without trained corpus models, formula or CatBoost ranking, l1) get 422 feature_unavailable. See docs/search.md.',
        tags: ['search'],
        body: ref(SearchRequestV2),
        response: { 200: ref(V2SearchResponse), ...errorResponses(400, 401, 402, 413, 415, 422, 429, 500) },
      },
    },
    async (request, reply) => {
      // on search threads, the hits come back as the JSON they are sent as (ADR 0150)
      const result = await deps.search.search(principalOf(request), toSearchRequest(request.body), request.id, { encodeHits: true });
      recordSearchStages(request, result.timings.stages);
      const response = toSearchResponse(result, deps.config.baseUrl);
      if (!result.encodedHits) return response;
      // the envelope by the route's own serializer (as for any reply), the thread's hits spliced in
      reply.beforeSerializing(response);
      // with limits.pacedResponseChunkBytes, a large body goes out a chunk per turn of the event loop,
      // without a copy (ADR 0305; off by default); same bytes, same Content-Length
      const envelope = reply.serialize(response) as string;
      const paced = deps.config.limits.pacedResponseChunkBytes ?? 0;
      const body = paced > 0 ? encodedHitsBody(envelope, result.encodedHits.bytes, paced) : spliceEncodedHits(envelope, result.encodedHits.bytes);
      reply.type('application/json; charset=utf-8');
      if (body instanceof PacedBody) reply.header('content-length', body.byteLength);
      // written whole ('finish' follows the last write's completion): the hits' own buffer is freed now,
      // not at the next mark-compact (ADR 0378); a response cut short leaves it to the collector
      else {
        const hits = result.encodedHits.bytes;
        reply.raw.once('finish', () => releaseHitBuffer(hits));
      }
      return reply.send(body);
    },
  );

  app.post<{ Body: SimilarRequestV2 }>(
    '/v2/search/similar',
    {
      config: { rateScope: 'search' },
      schema: {
        summary: 'Documents similar to one document (SimilarRequestV2), nearest by its title+abstract vector.',
        description:
          'Seeds a dense retrieval with the source document\'s whole-document vector (corpus-trained model; docs/models.md) and returns the nearest other works as a V2SearchResponse, best first. ' +
          'Billed like a search: prices.search + prices.search_per_hit per returned hit. 404 not_found for an unknown document; 422 feature_unavailable when the document\'s index has no trained dense model.',
        tags: ['search'],
        body: ref(SimilarRequestV2),
        response: { 200: ref(V2SearchResponse), ...errorResponses(400, 401, 402, 404, 413, 415, 422, 429, 500, 503) },
      },
    },
    async (request) => {
      const b = request.body;
      const result = await deps.search.similar(principalOf(request), { documentId: b.document_id, languages: b.filter_languages ?? null, types: b.filter_types ?? null, limit: b.limit }, request.id);
      return toSearchResponse(result, deps.config.baseUrl);
    },
  );
}
