// The search node's framed shard calls (issue 24, "Cost of distribution", ADR 0291): the calls of the
// internal shard endpoints (http/shard-server.ts) as length-prefixed frames, many calls multiplexed on
// one persistent connection (domain/shard-frames.ts), on the node's own HTTP port. A coordinator opens
// the connection with an HTTP upgrade,
//   GET /internal/v1/shard-frames   Connection: Upgrade   Upgrade: lectern-shard-frames/1
//   Authorization: Bearer <cluster secret>
// checked as every internal endpoint checks it (constant time through SHA-256 digests; 401 otherwise),
// then sends frames. Each request frame names the shard, so one connection serves every shard the
// process holds. Bodies are validated against the HTTP endpoints' schemas (422 validation_failed as an
// error frame), a shard the node does not hold is 404, and the answers are what the endpoints answer;
// stored records travel as their bytes. Answers written in one turn of the event loop leave in one write.
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { timingSafeEqual } from 'node:crypto';
import type { AnySchema, ValidateFunction } from 'ajv';
import type { TSchema } from 'typebox';
import { AppError, ERROR_CATALOG, errorDetail } from '../domain/errors.js';
import { FRAMES_PATH, FRAMES_PROTOCOL, FrameReader, decodeRequest, encodeAnswer, encodeError, type FrameOp } from '../domain/shard-frames.js';
import type { ShardSearcher } from '../search/shard-searcher.js';
import type { ShardCitedByRequest, ShardDocumentVectorRequest, ShardRecordsRequest, ShardScorePartsRequest, ShardSearchRequest, ShardStatsRequest, ShardSuggestRequest, ShardVectorRequest } from '../ports/shard-client.js';
import { validationProblems } from './errors.js';
import { strictBodyAjv } from './validation.js';

export interface ShardFramesOptions {
  /** The searcher of a shard (throws not_found for a shard the node does not hold). */
  searcherOf(shard: number): ShardSearcher;
  /** SHA-256 of the cluster secret. */
  expected: Buffer;
  /** SHA-256 of a presented secret. */
  digest(s: string): Buffer;
  /** The request bodies' schemas, by call (the HTTP endpoints'). */
  schemas: Record<FrameOp, TSchema>;
  /** Largest request frame. */
  maxBytes: number;
}

/** Answers an upgrade that is not ours, or refused, on the raw socket, and closes it. */
function refuse(socket: Duplex, status: number, text: string, body: unknown): void {
  const json = JSON.stringify(body);
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`);
}

/**
 * Serves framed shard calls on `server`'s upgrades to FRAMES_PATH. Returns `close()`, which ends the
 * upgraded connections (the HTTP server's own close does not see them).
 */
export function attachShardFrames(server: Server, opts: ShardFramesOptions): { close(): void } {
  // strict bodies, with the HTTP endpoints' own validator (http/validation.ts): no coercion, no removal
  const ajv = strictBodyAjv();
  const validators = new Map<FrameOp, ValidateFunction>(Object.entries(opts.schemas).map(([op, schema]) => [op as FrameOp, ajv.compile(schema as AnySchema)]));
  const sockets = new Set<Duplex>();

  const answer = (op: FrameOp, shard: number, body: unknown): { json: unknown; stored: ReadonlyMap<string, Uint8Array> | null } => {
    const v = validators.get(op)!;
    if (!v(body)) {
      const problems = validationProblems(v.errors ?? [], 'body');
      throw new AppError('validation_failed', problems.map((p) => `${p.path} ${p.message}`).join('; ') || 'The request does not match the schema.', { extra: { errors: problems } });
    }
    const s = opts.searcherOf(shard);
    switch (op) {
      case 'stats':
        return { json: s.stats(body as ShardStatsRequest), stored: null };
      case 'search': {
        const r = s.searchStored(body as ShardSearchRequest);
        return { json: r.answer, stored: r.stored };
      }
      case 'records': {
        const r = s.recordsStored(body as ShardRecordsRequest);
        return { json: r.answer, stored: r.stored };
      }
      case 'vectors':
        return { json: s.vectors(body as ShardVectorRequest), stored: null };
      case 'document-vector':
        return { json: s.documentVector(body as ShardDocumentVectorRequest), stored: null };
      case 'suggest':
        return { json: s.suggest(body as ShardSuggestRequest), stored: null };
      case 'score-parts':
        return { json: s.scoreParts(body as ShardScorePartsRequest), stored: null };
      case 'cited-by':
        return { json: s.citedBy(body as ShardCitedByRequest), stored: null };
    }
  };

  const serve = (socket: Duplex, head: Buffer): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    // the HTTP server's sockets are half-open: the coordinator's end closes ours
    socket.once('end', () => socket.destroy());
    (socket as Duplex & { setNoDelay?(v: boolean): void }).setNoDelay?.(true);
    let corked = false;
    const send = (frame: Buffer): void => {
      if (!corked) {
        // every answer of this turn of the event loop in one write (one writev for all of them)
        corked = true;
        socket.cork();
        process.nextTick(() => {
          corked = false;
          socket.uncork();
        });
      }
      socket.write(frame);
    };
    const reader = new FrameReader(opts.maxBytes, (id, kind, payload) => {
      let frame: Buffer;
      try {
        const { op, shard, body } = decodeRequest(kind, payload);
        const r = answer(op, shard, body);
        frame = encodeAnswer(id, r.json, r.stored);
      } catch (e) {
        const err = e instanceof AppError ? e : e instanceof SyntaxError ? new AppError('malformed_json', `The call's body is not valid JSON (${e.message}).`) : new AppError('internal', 'internal');
        const d = errorDetail(err);
        frame = encodeError(id, { status: ERROR_CATALOG[err.code].status, code: err.code, message: typeof d === 'string' ? d : String(d['message']), ...(typeof d === 'object' && d['errors'] ? { extra: { errors: d['errors'] } } : {}) });
      }
      send(frame);
    });
    const onData = (chunk: Buffer): void => {
      try {
        reader.push(chunk);
      } catch {
        socket.destroy(); // a frame over the limit, or not frames at all
      }
    };
    if (head.length > 0) onData(head);
    socket.on('data', onData);
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== FRAMES_PATH || (req.headers.upgrade ?? '').toLowerCase() !== FRAMES_PROTOCOL) {
      refuse(socket, 400, 'Bad Request', { status: 'error', detail: { code: 'bad_request', message: `This server upgrades only ${FRAMES_PATH} to ${FRAMES_PROTOCOL}.` } });
      return;
    }
    const m = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(req.headers.authorization ?? '');
    if (!m || !timingSafeEqual(opts.digest(m[1]!), opts.expected)) {
      refuse(socket, 401, 'Unauthorized', { status: 'error', detail: 'Unauthorized' });
      return;
    }
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${FRAMES_PROTOCOL}\r\nConnection: Upgrade\r\n\r\n`);
    serve(socket, head);
  };
  server.on('upgrade', onUpgrade);
  return {
    close: () => {
      server.off('upgrade', onUpgrade);
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
  };
}
