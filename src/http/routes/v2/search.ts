// POST /v2/search/ (interface: Search and feedback; SearchRequestV2 -> V2SearchResponse).
import type { FastifyInstance } from 'fastify';
import type { HttpDeps } from '../../deps.js';
import { toSearchRequest, toSearchResponse } from '../../presenters/search.js';
import { errorResponses, ref } from '../../schemas/common.js';
import { SearchRequestV2, V2SearchResponse } from '../../schemas/search.js';
import { principalOf } from '../../server.js';

export function registerSearchRoutes(app: FastifyInstance, deps: HttpDeps): void {
  app.post<{ Body: SearchRequestV2 }>(
    '/v2/search/',
    {
      config: { rateScope: 'search' },
      schema: {
        summary: 'Search the corpus (documents, social): BM25F with quoted phrases, filters, citations, fusion.',
        description:
          'Billed prices.search + prices.search_per_hit per returned hit (defaults 10 + 1). Unknown properties are refused. ' +
          'Requests that need a component this server does not have (sparse/binary/short_document channels, formula or CatBoost ranking, l1) get 422 feature_unavailable. See docs/search.md.',
        tags: ['search'],
        body: ref(SearchRequestV2),
        response: { 200: ref(V2SearchResponse), ...errorResponses(400, 401, 402, 413, 415, 422, 429, 500) },
      },
    },
    async (request) => {
      const result = await deps.search.search(principalOf(request), toSearchRequest(request.body), request.id);
      return toSearchResponse(result, deps.config.baseUrl);
    },
  );
}
