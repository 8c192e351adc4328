// /v2/conversations/ (interface: Conversations): turns, the streamed twin, step edits and their stream,
// read, share (PATCH), delete, list. Streams are text/event-stream (docs/events.md): headers go out
// with the first event, so anything refused before the work starts (bad input, unknown model, 402,
// 404) is an ordinary ApiError; an error after that is a final `error` event. A client that
// disconnects aborts the work and is charged nothing.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ConversationService, TurnEvent, TurnOptions } from '../../../conversations/index.js';
import { AppError, errorDetail } from '../../../domain/errors.js';
import type { HttpDeps } from '../../deps.js';
import { toAppError } from '../../errors.js';
import { toFullConversation, toTurnInput, toWireEvent, toWireMetadata, toWireResponse } from '../../presenters/conversations.js';
import { errorResponses, ref } from '../../schemas/common.js';
import {
  ConversationRequest,
  ConversationResponse,
  EditStepRequest,
  FullConversation,
  ListConversationsResponse,
  UpdateConversationRequest,
} from '../../schemas/conversations.js';
import { principalOf } from '../../server.js';

const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 200 }) });
const EditParams = Type.Object({ conversation_id_or_slug: Type.String({ minLength: 1, maxLength: 200 }), step_id: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }) });
const ListQuery = Type.Object({ page: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000, default: 0, description: 'Page of 50 conversations, newest first (0-based).' })) });
const STREAM_RESPONSE = { 200: { description: 'text/event-stream: accepted, classified, searching, retrieved, answering, delta..., then result (or error). See docs/events.md.', content: { 'text/event-stream': { schema: { type: 'string' } } } } };

/** Runs `work` as a server-sent event stream (see the file header). */
export async function sse(request: FastifyRequest, reply: FastifyReply, work: (opts: TurnOptions) => Promise<unknown>): Promise<void> {
  const abort = new AbortController();
  let started = false;
  let finished = false;
  reply.raw.on('close', () => {
    if (!finished) abort.abort(new AppError('bad_request', 'The client closed the connection.'));
  });
  const write = (event: string, data: unknown) => {
    if (reply.raw.destroyed) return;
    if (!started) {
      started = true;
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-request-id': request.id, 'x-accel-buffering': 'no' });
    }
    reply.raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    // Node corks the socket on a response write until the next tick; the turn's next stage may run
    // without yielding to the event loop (SQLite calls are synchronous), which would hold every event
    // back until the result. Uncork now: the event leaves when its stage ends (issue 26, ADR 0226).
    const socket = reply.raw.socket;
    if (socket && socket.writableCorked > 0) socket.uncork();
  };
  try {
    const result = await work({ requestId: request.id, signal: abort.signal, onEvent: (e: TurnEvent) => write(e.type, toWireEvent(e)) });
    write('result', result);
  } catch (e) {
    if (!started) throw e;
    const err = toAppError(e, request);
    if (err.status >= 500) request.log.error({ err: e }, 'conversation stream failed');
    write('error', { status: 'error', http_status: err.status, detail: errorDetail(err) });
  } finally {
    finished = true;
  }
  if (started) reply.raw.end();
}

export function registerConversationRoutes(app: FastifyInstance, deps: HttpDeps & { conversations: ConversationService }): void {
  const svc = deps.conversations;
  const base = deps.config.baseUrl;
  const turnDescription = (stream: boolean) =>
    `Billed prices.conversation_turn (default 100) once after the answer is computed; 402 before any work when short; nothing charged on failure${stream ? ' or when the client disconnects' : ''}. ` +
    '`llm_config.model_name` is `lectern-extractive` (offline, default) or a configured model; unknown names get 422 listing the offered ones. See docs/conversations.md.';
  const turn = async (request: FastifyRequest<{ Body: ConversationRequest }>, opts: TurnOptions) => {
    const r = await svc.turn(principalOf(request), toTurnInput(request.body), opts);
    return toWireResponse(r.conversation.id, r.response, r.position, r.documents, base, r.feedbackToken);
  };

  app.get<{ Querystring: { page?: number } }>(
    '/v2/conversations/',
    {
      config: { rateScope: 'default' },
      schema: { summary: 'The caller’s conversations, newest first, 50 per page.', tags: ['conversations'], querystring: ListQuery, response: { 200: ref(ListConversationsResponse), ...errorResponses(401, 422, 429, 500) } },
    },
    async (request) => ({ conversations: (await svc.list(principalOf(request), request.query.page ?? 0)).map(toWireMetadata) }),
  );

  app.post<{ Body: ConversationRequest }>(
    '/v2/conversations/',
    {
      config: { rateScope: 'conversations', validationStatus: 400 },
      schema: { summary: 'Ask a question (a conversation turn) and get an answer with verified citations.', description: turnDescription(false), tags: ['conversations'], body: ref(ConversationRequest), response: { 200: ref(ConversationResponse), ...errorResponses(400, 401, 402, 404, 422, 429, 500, 502, 503, 504) } },
    },
    async (request, reply) => {
      // A client that goes away before the answer is sent stops the work (nothing is charged).
      const abort = new AbortController();
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) abort.abort(new AppError('bad_request', 'The client closed the connection.'));
      });
      return turn(request, { requestId: request.id, signal: abort.signal });
    },
  );

  app.post<{ Body: ConversationRequest }>(
    '/v2/conversations/stream',
    {
      config: { rateScope: 'conversations', validationStatus: 400 },
      schema: { summary: 'A conversation turn as a text/event-stream of progress, answer deltas and the final ConversationResponse.', description: turnDescription(true), tags: ['conversations'], body: ref(ConversationRequest), response: { ...STREAM_RESPONSE, ...errorResponses(400, 401, 402, 404, 422, 429, 500) } },
    },
    async (request, reply) => sse(request, reply, (opts) => turn(request, opts)),
  );

  const editDescription = 'Replaces the query of request step `step_id` and recomputes that step and every later one; returns the whole conversation. Billed prices.conversation_edit (default 100) once after success; 404 when the step is not a request step.';
  const edit = async (request: FastifyRequest<{ Params: { conversation_id_or_slug: string; step_id: number }; Body: EditStepRequest }>, opts: TurnOptions) =>
    toFullConversation(await svc.editStep(principalOf(request), request.params.conversation_id_or_slug, request.params.step_id, request.body.new_query, opts), base);

  app.put<{ Params: { conversation_id_or_slug: string; step_id: number }; Body: EditStepRequest }>(
    '/v2/conversations/:conversation_id_or_slug/edit-step/:step_id',
    {
      config: { rateScope: 'conversations', validationStatus: 400 },
      schema: { summary: 'Edit a request step and recompute the conversation from it.', description: editDescription, tags: ['conversations'], params: EditParams, body: ref(EditStepRequest), response: { 200: ref(FullConversation), ...errorResponses(400, 401, 402, 404, 422, 429, 500, 502, 503, 504) } },
    },
    async (request) => edit(request, { requestId: request.id }),
  );

  app.put<{ Params: { conversation_id_or_slug: string; step_id: number }; Body: EditStepRequest }>(
    '/v2/conversations/:conversation_id_or_slug/edit-step/:step_id/stream',
    {
      config: { rateScope: 'conversations', validationStatus: 400 },
      schema: { summary: 'Edit a request step, streamed (text/event-stream; the result event is the FullConversation).', description: editDescription, tags: ['conversations'], params: EditParams, body: ref(EditStepRequest), response: { ...STREAM_RESPONSE, ...errorResponses(400, 401, 402, 404, 422, 429, 500) } },
    },
    async (request, reply) => sse(request, reply, (opts) => edit(request, opts)),
  );

  app.get<{ Params: { slug: string } }>(
    '/v2/conversations/:slug',
    {
      // Shared conversations are readable without a credential, as the web page is (issue 26).
      config: { rateScope: 'default', auth: 'optional' },
      schema: {
        summary: 'A conversation: readable by its owner, or by anyone when shared, also without a credential (404 otherwise; 401 without a credential when it is not shared).',
        tags: ['conversations'],
        params: SlugParams,
        response: { 200: ref(FullConversation), ...errorResponses(401, 404, 429, 500) },
      },
    },
    async (request) => {
      if (!request.principal) {
        try {
          return toFullConversation(await svc.getShared(request.params.slug), base);
        } catch (e) {
          // Not shared (or not there): a credential might make it readable; existence is not revealed.
          if (e instanceof AppError && e.code === 'not_found') throw new AppError('unauthorized');
          throw e;
        }
      }
      return toFullConversation(await svc.get(request.principal, request.params.slug), base);
    },
  );

  app.patch<{ Params: { slug: string }; Body: UpdateConversationRequest }>(
    '/v2/conversations/:slug',
    {
      config: { rateScope: 'default', validationStatus: 400 },
      schema: { summary: 'Share or unshare a conversation (owner only; not billed).', tags: ['conversations'], params: SlugParams, body: ref(UpdateConversationRequest), response: { 200: ref(FullConversation), ...errorResponses(400, 401, 404, 429, 500) } },
    },
    async (request) => toFullConversation(await svc.setShared(principalOf(request), request.params.slug, request.body.is_shared), base),
  );

  app.delete<{ Params: { slug: string } }>(
    '/v2/conversations/:slug',
    {
      config: { rateScope: 'default' },
      schema: { summary: 'Delete a conversation (owner only; no restore).', tags: ['conversations'], params: SlugParams, response: { 200: { description: 'Deleted; no body.', type: 'null' }, ...errorResponses(401, 404, 429, 500) } },
    },
    async (request, reply) => {
      await svc.delete(principalOf(request), request.params.slug);
      return reply.code(200).send();
    },
  );
}
