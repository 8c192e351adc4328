// The internal endpoints of a `search` node (issue 24, docs/scale.md "Scatter-gather", ADR 0203): the two
// calls of the ShardClient port over HTTP, for the coordinators of the `api` nodes.
//   POST /internal/v1/shards/{shard}/stats    ShardStatsRequest  -> ShardStatsResponse
//   POST /internal/v1/shards/{shard}/search   ShardSearchRequest -> ShardSearchResponse
//   POST /internal/v1/shards/{shard}/vectors  ShardVectorRequest -> ShardVectorResponse (dense channels)
//   POST /internal/v1/shards/{shard}/document-vector  {index, id} -> {shard, node, vector, us} (similar)
//   POST /internal/v1/shards/{shard}/suggest  {index, terms, limit} -> {shard, node, suggestions, us} (spelling)
//   POST /internal/v1/shards/{shard}/score-parts  {index, query, globalStats, ids} -> {shard, node, parts, us} (ranking features)
//   POST /internal/v1/shards/{shard}/cited-by  {index, uriSets} -> {shard, node, counts, us} (cited_by feature)
//   POST /internal/v1/shards/{shard}/snapshot -> {shard, snapshot: {id, seq, log_seq, bytes, files}, ms, deleted} (ADR 0255)
//   POST /internal/v1/shards/{shard}/records  {index, ids} -> {shard, node, records, us} (stored display records, ADR 0280)
//   GET  /internal/v1/health                  -> { status: "ok", shards: [...] }
//   GET  /internal/v1/shard-frames (Upgrade: lectern-shard-frames/1): the calls above but snapshot as
//        frames multiplexed on one persistent connection (http/shard-frames.ts, ADR 0291)
// A separate Fastify app on its own port (cluster.search_listen), never the public API: it is not in
// /openapi.json, and every call must carry `Authorization: Bearer <cluster secret>` (compared in
// constant time through SHA-256 digests; 401 otherwise). Errors are ApiError bodies with X-Request-Id.
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { Type, type Static, type TSchema } from 'typebox';
import { AppError } from '../domain/errors.js';
import { MAX_CITED_BY_SETS, type ShardSearcher } from '../search/shard-searcher.js';
import type { ShardCitedByRequest, ShardRecordsRequest, ShardScorePartsRequest, ShardSuggestRequest, ShardDocumentVectorRequest, ShardSearchRequest, ShardStatsRequest, ShardVectorRequest } from '../ports/shard-client.js';
import { installErrorHandling } from './errors.js';
import { installValidation } from './validation.js';
import { presentedCredential } from './server.js';
import { attachShardFrames } from './shard-frames.js';

/** Largest request body: a 16 KiB query with its statistics fits many times over. */
const BODY_LIMIT = 4 * 1024 * 1024;

const Num = Type.Number();
const Strs = Type.Optional(Type.Union([Type.Array(Type.String(), { maxItems: 1000 }), Type.Null()]));
const Filters = Type.Object(
  {
    types: Strs,
    languages: Strs,
    issns: Strs,
    publisher: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    issuedAfter: Type.Optional(Type.Union([Num, Type.Null()])),
    issuedBefore: Type.Optional(Type.Union([Num, Type.Null()])),
    uriPrefixes: Strs,
    citing: Type.Optional(Type.Union([Type.Array(Type.String(), { maxItems: 100_000 }), Type.Null()])),
    ids: Strs,
  },
  { additionalProperties: false },
);
const Expansion = Type.Array(Type.Object({ term: Type.String({ maxLength: 256 }), weight: Num }, { additionalProperties: false }), { maxItems: 4096 });
const Languages = Type.Optional(Type.Union([Type.Array(Type.String({ maxLength: 35 }), { maxItems: 16 }), Type.Null()]));
const IndexName = Type.String({ maxLength: 32 });
const Text = Type.String({ maxLength: 65_536 });

export const ShardStatsBody = Type.Object(
  { index: IndexName, query: Type.Object({ text: Text, possibleLanguages: Languages, expansion: Type.Optional(Expansion) }, { additionalProperties: false }) },
  { additionalProperties: false },
);

const CorpusStatsSchema = Type.Object(
  {
    docCount: Type.Integer({ minimum: 0 }),
    segmentDocs: Type.Integer({ minimum: 0 }),
    fieldTotals: Type.Tuple([Type.Integer({ minimum: 0 }), Type.Integer({ minimum: 0 }), Type.Integer({ minimum: 0 })]),
    df: Type.Record(Type.String(), Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);

export const ShardSearchBody = Type.Object(
  {
    index: IndexName,
    globalStats: CorpusStatsSchema,
    statsGeneration: Type.Optional(Type.String({ maxLength: 128 })),
    query: Type.Object(
      {
        text: Text,
        possibleLanguages: Languages,
        rankingMode: Type.Optional(Type.Union([Type.Literal('documents'), Type.Literal('passages'), Type.Literal('auto')])),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
        offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 499 })),
        phraseBoost: Type.Optional(Num),
        lexicalWeight: Type.Optional(Num),
        fieldWeights: Type.Optional(Type.Object({ title: Type.Optional(Num), abstract: Type.Optional(Num), body: Type.Optional(Num) }, { additionalProperties: false })),
        proximityWeight: Type.Optional(Num),
        filters: Type.Optional(Filters),
        collapseByWorkKey: Type.Optional(Type.Boolean()),
        explain: Type.Optional(Type.Boolean()),
        exactTotal: Type.Optional(Type.Boolean()),
        passagesPerHit: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
        trace: Type.Optional(Type.Boolean()),
        expansion: Type.Optional(Expansion),
        heapFactor: Type.Optional(Num),
        exhaustive: Type.Optional(Type.Boolean()),
        phrasePairs: Type.Optional(Type.Boolean()),
        firstStageCutoff: Type.Optional(Type.Object({ score: Num, id: Type.String({ maxLength: 4096 }) }, { additionalProperties: false })),
        budget: Type.Optional(Type.Object({ maxTerms: Type.Integer({ minimum: 1 }), maxPostings: Type.Integer({ minimum: 1 }) }, { additionalProperties: false })),
        maxPassageTerms: Type.Optional(Type.Integer({ minimum: 1 })),
      },
      { additionalProperties: false },
    ),
    fetch: Type.Optional(Type.Object({ hits: Type.Integer({ minimum: 0, maximum: 500 }), skipBodyPassages: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

export const ShardVectorBody = Type.Object(
  {
    index: IndexName,
    query: Type.Object(
      {
        vector: Type.Array(Num, { minItems: 1, maxItems: 8192 }),
        method: Type.Union([Type.Literal('exact'), Type.Literal('binary'), Type.Literal('auto')]),
        limit: Type.Integer({ minimum: 1, maximum: 500 }),
        filters: Type.Optional(Filters),
        collapseByWorkKey: Type.Optional(Type.Boolean()),
        passagesPerHit: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
        rescore: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export const ShardDocumentVectorBody = Type.Object({ index: IndexName, id: Type.String({ minLength: 1, maxLength: 4096 }) }, { additionalProperties: false });

export const ShardSuggestBody = Type.Object(
  { index: IndexName, terms: Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 64 }), limit: Type.Integer({ minimum: 1, maximum: 1000 }) },
  { additionalProperties: false },
);

export const ShardScorePartsBody = Type.Object(
  {
    index: IndexName,
    globalStats: CorpusStatsSchema,
    query: Type.Object({ text: Text, possibleLanguages: Languages, phraseBoost: Type.Optional(Num) }, { additionalProperties: false }),
    ids: Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), { maxItems: 10_000 }),
  },
  { additionalProperties: false },
);

export const ShardCitedByBody = Type.Object(
  {
    index: IndexName,
    uriSets: Type.Array(Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), { maxItems: 10_000 }), { maxItems: MAX_CITED_BY_SETS }),
  },
  { additionalProperties: false },
);

export const ShardRecordsBody = Type.Object(
  { index: IndexName, ids: Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), { maxItems: 500 }) },
  { additionalProperties: false },
);

const ShardParams = Type.Object({ shard: Type.Integer({ minimum: 0, maximum: 4095 }) });

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

export interface ShardServerOptions {
  /** The shards this node holds. */
  searchers: readonly ShardSearcher[];
  /** The cluster secret every call must present. */
  secret: string;
  /**
   * Publishes a snapshot of the node's shard now (ADR 0255): `POST /internal/v1/shards/{shard}/snapshot`
   * answers what was published (null: the index has not committed anything yet). Absent: not served.
   */
  snapshot?: () => Promise<unknown>;
}

/**
 * The shard routes as a route registration: an encapsulated plugin with its own cluster-secret check,
 * for a `search` node's HTTP app (app.ts: `extraRoutes`) or the standalone server below. The routes are
 * hidden from /openapi.json and take no account credentials.
 */
export function shardRoutes(opts: ShardServerOptions): (app: FastifyInstance) => Promise<void> {
  if (opts.secret.length < 16) throw new Error('the cluster secret must be at least 16 characters (cluster.secret)');
  const expected = digest(opts.secret);
  const byShard = new Map(opts.searchers.map((s) => [s.shard, s]));
  const searcherOf = (shard: number): ShardSearcher => {
    const s = byShard.get(shard);
    if (!s) throw new AppError('not_found', `This node does not hold shard ${shard}; it holds ${[...byShard.keys()].join(', ') || 'none'}.`);
    return s;
  };
  const route = { auth: 'none' as const };
  return async (parent) => {
    await parent.register(async (app) => {
      app.addHook('onRequest', async (request) => {
        const given = presentedCredential(request);
        if (typeof given !== 'string' || given === 'malformed' || !timingSafeEqual(digest(given), expected)) {
          throw new AppError('unauthorized', 'The internal shard endpoints need the cluster secret as a bearer token.');
        }
      });
      app.get('/internal/v1/health', { config: route, schema: { hide: true } }, async () => ({ status: 'ok', shards: [...byShard.keys()] }));
      // one POST per shard call: the body's schema, and the searcher method that answers it
      const op = <B extends TSchema>(name: string, body: B, call: (searcher: ShardSearcher, body: Static<B>) => unknown) =>
        app.post<{ Params: Static<typeof ShardParams>; Body: Static<B> }>(
          `/internal/v1/shards/:shard/${name}`,
          { config: route, bodyLimit: BODY_LIMIT, schema: { hide: true, params: ShardParams, body } },
          async (request) => call(searcherOf(request.params.shard), request.body as Static<B>),
        );
      op('stats', ShardStatsBody, (s, b) => s.stats(b as ShardStatsRequest));
      op('search', ShardSearchBody, (s, b) => s.search(b as ShardSearchRequest));
      op('vectors', ShardVectorBody, (s, b) => s.vectors(b as ShardVectorRequest));
      op('document-vector', ShardDocumentVectorBody, (s, b) => s.documentVector(b as ShardDocumentVectorRequest));
      op('suggest', ShardSuggestBody, (s, b) => s.suggest(b as ShardSuggestRequest));
      op('score-parts', ShardScorePartsBody, (s, b) => s.scoreParts(b as ShardScorePartsRequest));
      op('cited-by', ShardCitedByBody, (s, b) => s.citedBy(b as ShardCitedByRequest));
      const snapshot = opts.snapshot;
      if (snapshot) {
        app.post<{ Params: Static<typeof ShardParams> }>(`/internal/v1/shards/:shard/snapshot`, { config: route, schema: { hide: true, params: ShardParams } }, async (request) => {
          searcherOf(request.params.shard);
          const r = (await snapshot()) as { snapshot: { id: string; seq: number; logSeq: number; totalBytes: number; files: unknown[] }; ms: number; deleted: string[] } | null;
          if (r === null) throw new AppError('service_unavailable', 'This replica has not committed its index yet: nothing to snapshot; try again once it follows the log.', { headers: { 'Retry-After': '5' } });
          const s = r.snapshot;
          return { shard: request.params.shard, snapshot: { id: s.id, seq: s.seq, log_seq: s.logSeq, bytes: s.totalBytes, files: s.files.length }, ms: r.ms, deleted: r.deleted };
        });
      }
      op('records', ShardRecordsBody, (s, b) => s.records(b as ShardRecordsRequest));
    });
    // the same calls as frames on one persistent connection (ADR 0291), on this server's port
    const frames = attachShardFrames(parent.server, {
      searcherOf,
      expected,
      digest,
      maxBytes: BODY_LIMIT,
      schemas: { stats: ShardStatsBody, search: ShardSearchBody, vectors: ShardVectorBody, 'document-vector': ShardDocumentVectorBody, suggest: ShardSuggestBody, 'score-parts': ShardScorePartsBody, 'cited-by': ShardCitedByBody, records: ShardRecordsBody },
    });
    // before the HTTP server's close, which waits for every connection (upgraded ones included)
    parent.addHook('preClose', async () => frames.close());
  };
}

/** A server with only the shard routes (tests, benchmarks, a search process without the public API). */
export async function buildShardServer(opts: ShardServerOptions): Promise<FastifyInstance> {
  const routes = shardRoutes(opts);
  const app = Fastify({ logger: false, genReqId: () => randomUUID(), bodyLimit: BODY_LIMIT, forceCloseConnections: 'idle' });
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  installErrorHandling(app);
  installValidation(app, []);
  await routes(app);
  return app;
}
