// The request log (docs/operations.md, "Request logs"): one JSON line per request at `info`, written
// when the response is done, with the fields an operator needs to follow a request and nothing that
// identifies a credential: time, request_id, method, path (no query string), status, ms, the account
// when one was authenticated, the error code of a refusal, and the client address. Fastify's own two
// lines per request ("incoming request", "request completed") are left out by RequestLogController;
// failures keep their own line with the error (a 5xx, a response stream that broke), under the same
// request_id.
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';

const codes = new WeakMap<FastifyRequest, string>();

/** Records the error code a request was refused with, for its log line. */
export function noteRefusal(request: FastifyRequest, code: string): void {
  codes.set(request, code);
}

/** Fastify's request logging without the two lines per request that request-log.ts replaces. */
export class RequestLogController extends LogController {
  constructor() {
    super({ requestIdLogLabel: 'request_id' });
  }
  override incomingRequest(): void {}
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ err: error, status: reply.statusCode }, 'request errored');
  }
}

export function installRequestLog(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    // below `info` (a quieter level set) no line is written: nothing is built for it (issue 29, ADR 0371)
    if ((request.log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.('info') === false) return done();
    const principal = (request as { principal?: { accountId: number } | null }).principal;
    const code = codes.get(request);
    request.log.info(
      {
        method: request.method,
        path: request.url.split('?', 1)[0]!.slice(0, 512),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        ...(principal ? { account: principal.accountId } : {}),
        ...(code ? { code } : {}),
        remote: request.ip,
      },
      'request',
    );
    done();
  });
}
