// /v1/recognitions (interface: Recognition; docs/recognition.md "Jobs"): submit one PDF, EPUB or DJVU
// as multipart/form-data (part `file`), poll the job, fetch the result (JSON, or Markdown alone with
// `Accept: text/markdown`), cancel, list one's jobs and the formats this machine converts. The routes live in
// their own encapsulated scope: only here is multipart/form-data parsed, and any other body type is
// refused with 415 naming what to send.
import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../../domain/errors.js';
import type { RecognitionJob } from '../../../ports/recognition-job-store.js';
import type { RecognitionJobService, StagedUpload } from '../../../recognition-jobs/index.js';
import type { HttpDeps } from '../../deps.js';
import { errorResponses, ref } from '../../schemas/common.js';
import { RecognitionFormats, RecognitionJob as RecognitionJobSchema, RecognitionJobList, RecognitionResult } from '../../schemas/recognition.js';
import { principalOf } from '../../server.js';

/** The multipart part that carries the document. */
export const FILE_PART = 'file';

const SEND = `Send one PDF, EPUB or DJVU file as multipart/form-data in the part named "${FILE_PART}", e.g. curl -F ${FILE_PART}=@paper.pdf`;

/** The wire form of a job (snake_case). */
export function toWireJob(j: RecognitionJob) {
  return {
    id: j.id,
    status: j.status,
    format: j.format,
    sha256: j.sha256,
    bytes: j.bytes,
    pages_total: j.pagesTotal,
    pages_done: j.pagesDone,
    error: j.error,
    charged_credits: j.chargedCredits,
    created_at: j.createdAt,
    updated_at: j.updatedAt,
  };
}

const JobParams = Type.Object({ job_id: Type.String({ minLength: 1, maxLength: 64, description: 'The job id returned by POST /v1/recognitions.' }) });

/**
 * Streams exactly one file, from the part `file`, into the job service's staging area (never whole in
 * memory); anything else is a 400 that says what to send. The caller submits or discards the result.
 */
async function receiveUpload(request: FastifyRequest, jobs: RecognitionJobService, maxBytes: number): Promise<StagedUpload> {
  if (!request.isMultipart()) throw new AppError('unsupported_media_type', `This endpoint takes multipart/form-data. ${SEND}.`);
  let staged: StagedUpload | null = null;
  try {
    for await (const part of request.parts()) {
      if (part.type !== 'file') continue; // ordinary fields are ignored
      if (part.fieldname !== FILE_PART || staged !== null) {
        part.file.resume();
        throw new AppError('bad_request', staged !== null ? `Only one file per request. ${SEND}.` : `Unexpected file part "${part.fieldname}". ${SEND}.`);
      }
      staged = await jobs.stage(part.file);
      if (part.file.truncated) throw tooLarge(maxBytes);
    }
  } catch (e) {
    if (staged) await jobs.discard(staged);
    const code = (e as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(maxBytes);
    if (code === 'FST_FILES_LIMIT') throw new AppError('bad_request', `Only one file per request. ${SEND}.`);
    if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') throw new AppError('bad_request', `Too many parts. ${SEND}.`);
    if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' || code === 'FST_MP_PREMATURE_CLOSE' || (e instanceof Error && /boundary|multipart/i.test(e.message) && !(e instanceof AppError))) {
      throw new AppError('bad_request', `The multipart body could not be read (${(e as Error).message}). ${SEND}.`);
    }
    throw e;
  }
  if (staged === null) throw new AppError('bad_request', `No file part. ${SEND}.`);
  return staged;
}

const tooLarge = (maxBytes: number) => new AppError('payload_too_large', `The file is larger than ${maxBytes} bytes, the upload limit.`, { extra: { limit_bytes: maxBytes } });

/** `Accept` prefers text/markdown over JSON. */
function wantsMarkdown(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  if (!accept) return false;
  let best: { type: string; q: number } | null = null;
  for (const item of accept.split(',')) {
    const [type, ...params] = item.trim().toLowerCase().split(';');
    const q = Number(params.map((p) => p.trim()).find((p) => p.startsWith('q='))?.slice(2) ?? '1');
    if ((type === 'text/markdown' || type === 'application/json') && (!best || q > best.q)) best = { type: type!, q };
  }
  return best?.type === 'text/markdown';
}

export async function registerRecognitionRoutes(app: FastifyInstance, deps: HttpDeps & { recognitions: RecognitionJobService }): Promise<void> {
  const jobs = deps.recognitions;
  const maxBytes = deps.config.limits.uploadBytes;

  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    await scope.register(fastifyMultipart, {
      throwFileSizeLimit: true,
      // One byte over the limit reaches the service, which refuses it (413) and discards what it staged.
      limits: { fileSize: maxBytes + 1, files: 1, parts: 20, fields: 10, fieldSize: 64 * 1024, headerPairs: 100 },
    });
    scope.addContentTypeParser('*', (_request, _payload, done) => done(new AppError('unsupported_media_type', `This endpoint takes multipart/form-data. ${SEND}.`), undefined));

    scope.post(
      '/v1/recognitions',
      {
        config: { rateScope: 'recognition' },
        // Multipart bodies are streamed by the handler (receiveUpload); the body schema documents the form only.
        validatorCompiler: () => () => true,
        // A declared Content-Length over the limit is refused before the body is read (after the
        // credential and the rate limit, which the onRequest hooks of the server check first).
        onRequest: async (request) => {
          const length = Number(request.headers['content-length'] ?? NaN);
          if (Number.isFinite(length) && length > maxBytes + 64 * 1024) {
            throw new AppError('payload_too_large', `The request has ${length} bytes; the upload limit is ${maxBytes} bytes.`, { extra: { limit_bytes: maxBytes } });
          }
        },
        schema: {
          summary: 'Submit one PDF, EPUB or DJVU file for conversion to Markdown with a quality report.',
          description:
            `multipart/form-data with the file in the part "${FILE_PART}". The format is detected from the bytes. 202 with a new pending job; ` +
            '200 with the existing job when this account already submitted the same bytes (free). Billed once, when the job completes: ' +
            'prices.recognitionPerPage x pages read (blank and failed pages free; an EPUB per content document); 402 when the balance cannot cover one page. 413 over limits.uploadBytes, 415 for another ' +
            'body type, 422 unsupported_format, 503 format_unavailable (a tool is missing).',
          tags: ['recognition'],
          consumes: ['multipart/form-data'],
          body: Type.Object(
            { [FILE_PART]: Type.String({ format: 'binary', description: 'The document (PDF, EPUB or DJVU).' }) },
            { required: [FILE_PART] },
          ),
          response: {
            200: { description: 'The account already submitted these bytes: that job (pending, processing, completed, or failed for a reason of the file itself), free.', content: { 'application/json': { schema: ref(RecognitionJobSchema) } } },
            202: { description: 'A new job, status pending; Location names it.', content: { 'application/json': { schema: ref(RecognitionJobSchema) } } },
            ...errorResponses(400, 401, 402, 413, 415, 422, 429, 500, 503),
          },
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        const staged = await receiveUpload(request, jobs, maxBytes);
        const r = await jobs.submitStaged(principal, staged);
        reply.code(r.created ? 202 : 200);
        if (r.created) reply.header('Location', `/v1/recognitions/${r.job.id}`);
        return toWireJob(r.job);
      },
    );
  });

  app.get<{ Querystring: { limit: number; before?: string } }>(
    '/v1/recognitions',
    {
      schema: {
        summary: "The caller's recognition jobs, newest first.",
        description: 'Page with `before` = `next_before` of the previous page. Not billed.',
        tags: ['recognition'],
        querystring: Type.Object(
          {
            limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Jobs per page, 1..100 (default 20).' }),
            before: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'A job id from the previous page (`next_before`).' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: ref(RecognitionJobList), ...errorResponses(401, 422, 429, 500) },
      },
    },
    async (request) => {
      const r = await jobs.list(principalOf(request), request.query.limit, request.query.before);
      return { jobs: r.jobs.map(toWireJob), next_before: r.nextBefore };
    },
  );

  app.get(
    '/v1/recognitions/formats',
    {
      schema: {
        summary: 'Which formats this service converts (installed tools), with the upload limits and the price per page.',
        tags: ['recognition'],
        response: { 200: ref(RecognitionFormats), ...errorResponses(401, 429, 500) },
      },
    },
    async () => ({
      formats: (await jobs.formats()).map((f) => ({ format: f.format, available: f.available, ocr: f.ocr, missing_tools: [...f.missingTools] })),
      max_bytes: maxBytes,
      max_pages: deps.config.limits.uploadPages,
      price_per_page: deps.config.prices.recognitionPerPage,
    }),
  );

  app.get<{ Params: { job_id: string } }>(
    '/v1/recognitions/:job_id',
    {
      schema: {
        summary: 'Poll a recognition job: status, pages done of pages total, error.',
        description: 'Only the account that submitted the job can read it (404 otherwise). Not billed.',
        tags: ['recognition'],
        params: JobParams,
        response: { 200: ref(RecognitionJobSchema), ...errorResponses(401, 404, 429, 500) },
      },
    },
    async (request) => toWireJob(await jobs.get(principalOf(request), request.params.job_id)),
  );

  app.get<{ Params: { job_id: string } }>(
    '/v1/recognitions/:job_id/result',
    {
      schema: {
        summary: 'The Markdown and quality report of a completed job (Accept: text/markdown for the Markdown alone).',
        description: '409 recognition_not_ready while pending or processing; 409 recognition_failed with the reason after a failure or cancellation. Not billed.',
        tags: ['recognition'],
        params: JobParams,
        response: {
          200: {
            description: 'The result: JSON by default, the Markdown alone with Accept: text/markdown.',
            content: {
              'application/json': { schema: ref(RecognitionResult) },
              'text/markdown': { schema: Type.String({ description: 'The Markdown (UTF-8).' }) },
            },
          },
          ...errorResponses(401, 404, 409, 429, 500),
        },
      },
    },
    async (request, reply: FastifyReply) => {
      const r = await jobs.result(principalOf(request), request.params.job_id);
      reply.header('Cache-Control', 'private, max-age=3600');
      reply.header('ETag', `"${r.job.sha256}"`);
      if (wantsMarkdown(request)) {
        // Sent as a string with its own type: the JSON response schema does not apply.
        return reply.type('text/markdown; charset=utf-8').serializer((s: unknown) => s as string).send(r.markdown);
      }
      return { id: r.job.id, status: 'completed' as const, markdown: r.markdown, quality: r.report as unknown as Record<string, unknown> };
    },
  );

  app.delete<{ Params: { job_id: string } }>(
    '/v1/recognitions/:job_id',
    {
      schema: {
        summary: 'Cancel a pending or processing job (nothing is charged); 409 when it has already finished.',
        tags: ['recognition'],
        params: JobParams,
        response: { 200: ref(RecognitionJobSchema), ...errorResponses(401, 404, 409, 429, 500) },
      },
    },
    async (request) => toWireJob(await jobs.cancel(principalOf(request), request.params.job_id)),
  );
}
