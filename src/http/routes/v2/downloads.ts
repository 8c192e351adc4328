// GET /v2/downloads/{document_id}.{extension} and /v2/downloads/by-uri/{uri}?format= (interface,
// Originals). Streams the file with validators (ETag = quoted SHA-256, Last-Modified), conditional
// requests (If-None-Match, If-Modified-Since, If-Range) and byte ranges: one range -> 206 with
// Content-Range; several -> 206 multipart/byteranges; unsatisfiable -> 416 with `bytes */N`
// (RFC 9110 §13, §14).
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import parseRange from 'range-parser';
import { Type, type TSchema } from 'typebox';
import { AppError } from '../../../domain/errors.js';
import type { ResolvedOriginal } from '../../../downloads/download-service.js';
import type { HttpDeps } from '../../deps.js';
import { ORIGINAL_MEDIA_TYPES } from '../../../domain/document.js';
import { ApiError, Binary, errorResponses, mediaResponse, NoBody, ref } from '../../schemas/common.js';
import { principalOf } from '../../server.js';

const etagOf = (r: ResolvedOriginal) => `"${r.original.sha256}"`;

/** Weak comparison for If-None-Match (RFC 9110 §13.1.2). */
function noneMatch(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  const strip = (t: string) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => strip(t) === strip(etag));
}

async function send(deps: HttpDeps, request: FastifyRequest, reply: FastifyReply, r: ResolvedOriginal) {
  const size = r.blob.bytes;
  const etag = etagOf(r);
  const lastModified = new Date(Math.floor(r.blob.modifiedMs / 1000) * 1000);
  const filename = `${r.doc.id}.${r.original.format}`.replace(/[^A-Za-z0-9._-]/g, '_');
  reply.header('ETag', etag);
  reply.header('Last-Modified', lastModified.toUTCString());
  reply.header('Accept-Ranges', 'bytes');
  reply.header('Cache-Control', 'private, max-age=3600');
  reply.header('Content-Disposition', `inline; filename="${filename}"`);

  const inm = request.headers['if-none-match'];
  const ims = request.headers['if-modified-since'];
  if (inm !== undefined ? noneMatch(inm, etag) : ims !== undefined && !Number.isNaN(Date.parse(ims)) && lastModified.getTime() <= Date.parse(ims)) {
    return reply.code(304).send();
  }

  let rangeHeader = request.headers.range;
  const ifRangeRaw = request.headers['if-range'];
  const ifRange = Array.isArray(ifRangeRaw) ? ifRangeRaw[0] : ifRangeRaw;
  if (rangeHeader && ifRange !== undefined) {
    // If-Range: a strong ETag must match exactly, or a date must equal Last-Modified; else send all.
    const matches = ifRange.startsWith('"') ? ifRange === etag : Date.parse(ifRange) === lastModified.getTime();
    if (!matches) rangeHeader = undefined;
  }
  const ranges = rangeHeader ? parseRange(size, rangeHeader, { combine: true }) : -2;
  if (ranges === -1) {
    throw new AppError('range_not_satisfiable', `The range ${rangeHeader} is outside the file's ${size} bytes.`, { headers: { 'Content-Range': `bytes */${size}` } });
  }
  const mediaType = r.original.mediaType;
  if (ranges === -2 || ranges.type !== 'bytes') {
    reply.code(200).header('Content-Type', mediaType).header('Content-Length', String(size));
    return reply.send(deps.downloads.open(r.original));
  }
  if (ranges.length === 1) {
    const { start, end } = ranges[0]!;
    reply.code(206).header('Content-Type', mediaType).header('Content-Range', `bytes ${start}-${end}/${size}`).header('Content-Length', String(end - start + 1));
    return reply.send(deps.downloads.open(r.original, { start, end }));
  }
  const parts: parseRange.Ranges = ranges;
  const boundary = `lectern-${randomBytes(12).toString('hex')}`;
  const heads = parts.map((rg) => Buffer.from(`--${boundary}\r\nContent-Type: ${mediaType}\r\nContent-Range: bytes ${rg.start}-${rg.end}/${size}\r\n\r\n`));
  const tail = Buffer.from(`--${boundary}--\r\n`);
  const length = parts.reduce((n, rg, i) => n + heads[i]!.length + (rg.end - rg.start + 1) + 2, 0) + tail.length;
  const open = (start: number, end: number) => deps.downloads.open(r.original, { start, end });
  async function* body() {
    for (let i = 0; i < parts.length; i++) {
      const rg = parts[i]!;
      yield heads[i]!;
      for await (const chunk of open(rg.start, rg.end)) yield chunk as Buffer;
      yield Buffer.from('\r\n');
    }
    yield tail;
  }
  reply.code(206).header('Content-Type', `multipart/byteranges; boundary=${boundary}`).header('Content-Length', String(length));
  return reply.send(Readable.from(body()));
}

/** The original's own media type per format (ORIGINAL_MEDIA_TYPES), each a binary body. */
const fileTypes = Object.fromEntries(Object.values(ORIGINAL_MEDIA_TYPES).map((t) => [t, Binary()]));
const fileHeaders = {
  ETag: Type.String({ description: 'The quoted SHA-256 of the file (a strong validator for If-None-Match and If-Range).' }),
  'Last-Modified': Type.String({ description: 'HTTP date.' }),
  'Accept-Ranges': Type.Literal('bytes'),
  'Content-Disposition': Type.String({ description: 'inline; filename="{document_id}.{extension}"' }),
};
const downloadResponses = {
  200: mediaResponse('The whole file, with ETag, Last-Modified, Accept-Ranges: bytes and Content-Disposition; Content-Type is the format\'s media type.', fileTypes, fileHeaders),
  206: mediaResponse(
    'Part of the file (Range, honouring If-Range): one range with Content-Range: bytes START-END/SIZE, or several ranges as multipart/byteranges (each part with its own Content-Type and Content-Range).',
    { ...fileTypes, 'multipart/byteranges': Binary() },
    { ...fileHeaders, 'Content-Range': Type.String({ description: 'bytes START-END/SIZE (one range only).' }) },
  ),
  304: NoBody('Not modified (If-None-Match / If-Modified-Since).'),
  ...errorResponses(401, 403, 404, 429, 500, 503),
  416: { ...ref(ApiError), headers: { 'Content-Range': Type.String({ description: 'bytes */SIZE: the size of the file.' }) } } as unknown as TSchema,
};

export function registerDownloadRoutes(app: FastifyInstance, deps: HttpDeps): void {
  app.get<{ Params: { file: string } }>(
    '/v2/downloads/:file',
    {
      config: {
        rateScope: 'downloads',
        openapi: {
          path: '/v2/downloads/{document_id}.{extension}',
          params: Type.Object({ document_id: Type.String(), extension: Type.String({ description: 'pdf, epub or djvu.' }) }),
        },
      },
      schema: {
        summary: 'Stream an original (PDF, EPUB, DJVU) by document id: {document_id}.{extension}. Byte ranges supported.',
        description: 'Eligible accounts only (403 otherwise). Not billed. 416 (with Content-Range: bytes */SIZE) when no requested range overlaps the file.',
        tags: ['originals'],
        params: Type.Object({ file: Type.String({ minLength: 1, maxLength: 600, description: '{document_id}.{extension}, e.g. W123.pdf' }) }),
        response: downloadResponses,
      },
    },
    async (request, reply) => {
      const file = request.params.file;
      const dot = file.lastIndexOf('.');
      if (dot <= 0 || dot === file.length - 1) throw new AppError('not_found', `Use /v2/downloads/{document_id}.{extension}, e.g. ${file}.pdf.`);
      const r = await deps.downloads.resolveById(principalOf(request), file.slice(0, dot), file.slice(dot + 1));
      return send(deps, request, reply, r);
    },
  );

  const byUriSchema = {
    summary: 'Stream an original by canonical URI (percent-encoded); `format` picks pdf, epub or djvu (default: the first available).',
    tags: ['originals'],
    querystring: Type.Object({ format: Type.Optional(Type.String({ maxLength: 16 })) }, { additionalProperties: false }),
    response: downloadResponses,
  };
  const byUri = async (uri: string | undefined, request: FastifyRequest<{ Querystring: { format?: string } }>, reply: FastifyReply) => {
    if (!uri) throw new AppError('invalid_uri', 'Give a percent-encoded canonical URI after /v2/downloads/by-uri/.');
    const r = await deps.downloads.resolveByUri(principalOf(request), uri, request.query.format);
    return send(deps, request, reply, r);
  };
  app.get<{ Params: { uri: string }; Querystring: { format?: string } }>(
    '/v2/downloads/by-uri/:uri',
    { config: { rateScope: 'downloads' }, schema: { ...byUriSchema, params: Type.Object({ uri: Type.String({ description: 'Percent-encoded canonical URI.' }) }) } },
    async (request, reply) => byUri(request.params.uri, request, reply),
  );
  app.get<{ Params: { '*': string }; Querystring: { format?: string } }>(
    '/v2/downloads/by-uri/*',
    { config: { rateScope: 'downloads' }, schema: { ...byUriSchema, hide: true, params: Type.Object({ '*': Type.String() }) } },
    async (request, reply) => byUri(request.params['*'], request, reply),
  );
}
