// GET /v2/documents/{document_id} and GET /v2/documents/by-uri/{uri} (interface, Documents).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { AppError } from '../../../domain/errors.js';
import type { FetchedDocument } from '../../../documents/document-service.js';
import type { HttpDeps } from '../../deps.js';
import { toWireDocument } from '../../presenters/document.js';
import { toSearchResponse } from '../../presenters/search.js';
import { errorResponses, ref } from '../../schemas/common.js';
import { ByUriResponse, DocumentQuery, V2DocumentResponse } from '../../schemas/documents.js';
import { principalOf } from '../../server.js';

type DocQuery = Static<typeof DocumentQuery>;

export function registerDocumentRoutes(app: FastifyInstance, deps: HttpDeps): void {
  const present = (f: FetchedDocument): V2DocumentResponse => ({
    id: f.doc.id,
    uris: f.doc.uris,
    document: {
      ...toWireDocument(f.doc, deps.config.baseUrl),
      content: f.content,
      content_length: f.contentLength,
      content_tokens: f.contentTokens,
      truncated: f.truncated,
    },
  });
  const cutOf = (q: DocQuery) => ({ maxTokens: q.max_tokens, maxChars: q.max_chars });

  app.get<{ Params: { document_id: string }; Querystring: DocQuery }>(
    '/v2/documents/:document_id',
    {
      config: { rateScope: 'documents' },
      schema: {
        summary: 'The text of one document by id, optionally cut by content tokens or characters.',
        description:
          'Billed: the full document costs prices.document_fetch; with max_tokens/max_chars only the returned content tokens count. Recorded as an agent read.',
        tags: ['documents'],
        params: Type.Object({ document_id: Type.String({ minLength: 1, maxLength: 512 }) }),
        querystring: Type.Omit(DocumentQuery, ['text_filter'], { additionalProperties: false }),
        response: { 200: ref(V2DocumentResponse), ...errorResponses(400, 401, 402, 404, 422, 429, 500) },
      },
    },
    async (request) => present(await deps.documents.fetchById(principalOf(request), request.params.document_id, cutOf(request.query), request.id)),
  );

  const byUri = async (uri: string | undefined, request: FastifyRequest<{ Querystring: DocQuery }>) => {
    if (!uri) throw new AppError('invalid_uri', 'Give a percent-encoded canonical URI after /v2/documents/by-uri/.');
    if (request.query.text_filter !== undefined) {
      if (request.query.max_tokens !== undefined || request.query.max_chars !== undefined) {
        throw new AppError('validation_failed', 'text_filter returns passages; it cannot be combined with max_tokens or max_chars.');
      }
      return toSearchResponse(await deps.passages.passages(principalOf(request), uri, request.query.text_filter, request.id), deps.config.baseUrl);
    }
    return present(await deps.documents.fetchByUri(principalOf(request), uri, cutOf(request.query), request.id));
  };
  const byUriSchema = {
    summary: 'A document by canonical URI (percent-encoded), or up to five passages of it with text_filter.',
    description:
      'Without text_filter: a V2DocumentResponse, billed like GET /v2/documents/{document_id}. With text_filter: a V2SearchResponse of up to five passages (double-quoted spans verbatim), billed prices.document_passages.',
    tags: ['documents'],
    querystring: DocumentQuery,
    response: { 200: ref(ByUriResponse), ...errorResponses(400, 401, 402, 404, 422, 429, 500, 503) },
  };

  app.get<{ Params: { uri: string }; Querystring: DocQuery }>(
    '/v2/documents/by-uri/:uri',
    {
      config: { rateScope: 'documents' },
      schema: { ...byUriSchema, params: Type.Object({ uri: Type.String({ description: 'Percent-encoded canonical URI, e.g. doi%3A%2F%2F10.1016%2Fj.fuel.2022.125636.' }) }) },
    },
    async (request) => byUri(request.params.uri, request),
  );
  // The same, for clients that leave the slashes of the URI unencoded (not in the OpenAPI document).
  app.get<{ Params: { '*': string }; Querystring: DocQuery }>(
    '/v2/documents/by-uri/*',
    { config: { rateScope: 'documents' }, schema: { ...byUriSchema, hide: true, params: Type.Object({ '*': Type.String() }) } },
    async (request) => byUri(request.params['*'], request),
  );
}
