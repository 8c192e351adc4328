// The one serializer from any error to an ApiError response (interface, Errors). Handles AppError,
// Fastify's own errors (validation, body limits, content types) and anything unexpected (500, logged,
// never leaked). Also answers client errors raised before routing (431, 400) on the raw socket.
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorDetail, type ErrorCode } from '../domain/errors.js';
import { noteRefusal } from './request-log.js';

interface AjvLikeError {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** Human-readable problems from ajv errors, e.g. `body/limit must be <= 500`. */
export function validationProblems(errors: readonly AjvLikeError[], context: string): { path: string; message: string }[] {
  const seen = new Set<string>();
  const out: { path: string; message: string }[] = [];
  const specific = errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && e.keyword !== 'if');
  for (const e of specific.length > 0 ? specific : errors) {
    const path = `${context}${e.instancePath ?? ''}`;
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'additionalProperties') message = `has unknown property "${String(e.params?.additionalProperty)}"`;
    else if (e.keyword === 'enum' || e.keyword === 'const') {
      const allowed = (e.params?.allowedValues ?? (e.params?.allowedValue !== undefined ? [e.params.allowedValue] : undefined)) as unknown[] | undefined;
      if (allowed) message = `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
    } else if (e.keyword === 'required') message = `is missing required property "${String(e.params?.missingProperty)}"`;
    const key = `${path} ${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ path, message });
    }
  }
  return out.slice(0, 20);
}

/** Maps Fastify's internal error codes to the catalog. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'malformed_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'malformed_json',
  FST_ERR_BAD_URL: 'bad_request',
  FST_ERR_ASYNC_CONSTRAINT: 'bad_request',
  FST_ERR_INVALID_URL: 'bad_request',
};

/** Converts anything thrown while handling a request into an AppError. */
export function toAppError(err: unknown, request?: FastifyRequest): AppError {
  if (err instanceof AppError) return err;
  const fe = err as FastifyError & { validation?: AjvLikeError[]; validationContext?: string };
  if (fe && Array.isArray(fe.validation)) {
    const problems = validationProblems(fe.validation, fe.validationContext ?? 'request');
    const status = (request?.routeOptions.config as { validationStatus?: number } | undefined)?.validationStatus;
    const summary = problems.map((p) => `${p.path} ${p.message}`).join('; ');
    return new AppError(status === 400 ? 'bad_request' : 'validation_failed', summary || 'The request does not match the schema.', { extra: { errors: problems } });
  }
  if (fe && typeof fe.code === 'string' && FASTIFY_CODES[fe.code]) {
    const code = FASTIFY_CODES[fe.code]!;
    let message: string | undefined;
    if (code === 'unsupported_media_type') message = `Content-Type ${JSON.stringify(request?.headers['content-type'] ?? '')} is not supported here; send application/json.`;
    else if (code === 'payload_too_large') message = 'The request body is larger than this endpoint accepts.';
    else if (code === 'malformed_json') message = fe.message;
    return new AppError(code, message, { cause: err });
  }
  if (fe && typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    const code: ErrorCode = fe.statusCode === 404 ? 'not_found' : fe.statusCode === 413 ? 'payload_too_large' : fe.statusCode === 415 ? 'unsupported_media_type' : 'bad_request';
    return new AppError(code, fe.message, { cause: err });
  }
  return new AppError('internal', undefined, { cause: err });
}

/** Sends `err` as an ApiError on `reply`. */
export function sendError(reply: FastifyReply, err: AppError): FastifyReply {
  // the code goes on the request's one log line (request-log.ts), not on a line of its own
  noteRefusal(reply.request, err.code);
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  // RFC 6750 §3: a 401 names the scheme; `invalid_token` when a credential was presented and refused.
  if (err.status === 401 && !reply.hasHeader('WWW-Authenticate')) {
    const h = reply.request.headers;
    const presented = typeof h.authorization === 'string' || typeof h['x-api-key'] === 'string';
    reply.header('WWW-Authenticate', `Bearer realm="lectern"${presented ? ', error="invalid_token", error_description="The API key or access token is not valid."' : ''}`);
  }
  reply.header('Cache-Control', 'no-store');
  return reply.code(err.status).type('application/json; charset=utf-8').send({ status: 'error', detail: errorDetail(err) });
}

/** Installs the error handler, the 404 handler and the JSON body parser with located syntax errors. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => {
    const appErr = toAppError(err, request);
    // A 503 that says when to come back (not ready yet, a shard with no live replica, a drain) is the
    // service working as documented: logged as a warning without the stack; other 5xx are errors.
    if (appErr.status === 503 && appErr.code === 'service_unavailable') request.log.warn({ code: appErr.code, detail: appErr.message }, 'request refused: service unavailable');
    else if (appErr.status >= 500) request.log.error({ err }, 'request failed');
    return sendError(reply, appErr);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new AppError('route_not_found', `No route ${request.method} ${request.url.split('?')[0]}.`)),
  );
  // Only the content types an endpoint declares are accepted (others: 415).
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  // Bodies are decoded strictly: malformed UTF-8 is refused (400), never replaced by U+FFFD.
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, raw, done) => {
    let text: string;
    try {
      text = utf8.decode(raw as Buffer);
    } catch {
      return done(new AppError('malformed_json', 'The request body is not valid UTF-8; send UTF-8 encoded JSON.'), undefined);
    }
    if (text.trim() === '') return done(new AppError('malformed_json', 'The request body is empty; send a JSON object.'), undefined);
    try {
      done(null, JSON.parse(text));
    } catch (e) {
      done(new AppError('malformed_json', describeJsonError(text, (e as Error).message)), undefined);
    }
  });
}

/**
 * Errors the router raises before a route runs (a bad percent-escape or overlong UTF-8 in the path, a
 * path parameter over the length limit): answered through the same serializer, with X-Request-Id
 * (Fastify `frameworkErrors`).
 */
export function frameworkErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('X-Request-Id', request.id);
  const code = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'uri_too_long' : 'bad_request';
  const message =
    code === 'uri_too_long'
      ? 'A path segment is longer than this service accepts.'
      : 'The request path is not valid: a percent-escape is malformed or does not decode to UTF-8 (encode "%" as %25).';
  void sendError(reply, new AppError(code, message, { cause: err }));
}

/** "Malformed JSON at line 3, column 7: Unexpected token ..." from V8's message. */
export function describeJsonError(text: string, message: string): string {
  const m = /position (\d+)/.exec(message);
  const clean = message.replace(/ in JSON at position \d+.*$/, '').replace(/\s*\(line \d+ column \d+\)$/, '');
  if (!m) return `Malformed JSON: ${clean}.`;
  const pos = Number(m[1]);
  const before = text.slice(0, pos);
  const line = before.split('\n').length;
  const column = pos - before.lastIndexOf('\n');
  return `Malformed JSON at line ${line}, column ${column} (offset ${pos}): ${clean}.`;
}

/**
 * Answers errors Node raises before a request exists (oversize headers, bad request lines) with an
 * ApiError body and an X-Request-Id, then closes the socket (Fastify `clientErrorHandler`).
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable) return;
  const code = err.code === 'HPE_HEADER_OVERFLOW' ? 'headers_too_large' : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'bad_request' : 'bad_request';
  const status = code === 'headers_too_large' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const reason = status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request';
  const message = status === 431 ? 'Request headers (or the request line) are too large.' : status === 408 ? 'The request took too long to arrive.' : 'The request could not be parsed as HTTP.';
  const body = JSON.stringify({ status: 'error', detail: { code: status === 408 ? 'request_timeout' : code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${randomUUID()}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}
