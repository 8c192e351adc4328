// The shard side of a sharded search (ADR 0201): a search node's answer to the coordinator's two calls
// over the indexes it holds (one shard's documents), and the in-process ShardClient that calls it
// directly (all roles in one process, tests, the equality benchmark). The HTTP route of the `search`
// role (http/shard-server.ts) calls the same ShardSearcher, so both transports share one behaviour.
import { performance } from 'node:perf_hooks';
import { INDEX_NAMES, type IndexName } from '../domain/document.js';
import { AppError } from '../domain/errors.js';
import { randomBytes } from 'node:crypto';
import { resolveRankingMode, type DocumentScoreParts, type EngineQuery, type SearchIndex } from '../engine/index.js';
import { fetchedIds, type ShardCallOptions, type ShardClient, type ShardSearchRequest, type ShardSearchResponse, type ShardStatsRequest, type ShardStatsResponse, type ShardVectorRequest, type ShardVectorResponse, type ShardDocumentVectorRequest, type ShardDocumentVectorResponse, type ShardSuggestRequest, type ShardSuggestResponse, type ShardScorePartsRequest, type ShardScorePartsResponse, type ShardCitedByRequest, type ShardCitedByResponse, type ShardRecordsRequest, type ShardRecordsResponse } from '../ports/shard-client.js';
import { citedByCount } from '../ranking/sources.js';

/** This process's part of snapshot stamps (ADR 0260): a restarted node never repeats a stamp. */
const STAMP_EPOCH = randomBytes(6).toString('base64url');
/** Index objects of this process, numbered once each (two replicas in one process never share a stamp). */
const indexIds = new WeakMap<SearchIndex, number>();
let indexesStamped = 0;

/** Most hits a shard returns (the engine's own bound: offset + limit <= 500). */
export const SHARD_MAX_HITS = 500;

/** Most documents one `citedBy` call counts for (the coordinator sends larger pools in parts). */
export const MAX_CITED_BY_SETS = 2000;

export class ShardSearcher {
  constructor(
    /** The shard these indexes hold. */
    readonly shard: number,
    private readonly indexes: { get(name: IndexName): SearchIndex },
  ) {}

  #index(name: string): SearchIndex {
    if (!(INDEX_NAMES as readonly string[]).includes(name)) throw new AppError('validation_failed', `Unknown index ${JSON.stringify(name)}; the indexes are ${INDEX_NAMES.join(', ')}.`);
    return this.indexes.get(name as IndexName);
  }

  /**
   * The stamp of an index's published snapshot (ADR 0260): this process's epoch, the index object (an
   * index set may replace one, e.g. after a rebuild) and its snapshot number. Unique across restarts, so
   * statistics a coordinator kept are never taken for another snapshot's.
   */
  #stamp(index: SearchIndex): string {
    let id = indexIds.get(index);
    if (id === undefined) indexIds.set(index, (id = ++indexesStamped));
    return `${STAMP_EPOCH}.${id}.${index.snapshotGeneration}`;
  }

  stats(req: ShardStatsRequest): ShardStatsResponse {
    const t = performance.now();
    const index = this.#index(req.index);
    const stats = index.queryStats(req.query);
    return { shard: this.shard, node: 'local', stats, generation: this.#stamp(index), us: (performance.now() - t) * 1000 };
  }

  search(req: ShardSearchRequest): ShardSearchResponse {
    const { answer, stored } = this.searchStored(req);
    return stored ? { ...answer, records: textOf(stored) } : answer;
  }

  /**
   * search() with the records of `fetch` (ADR 0292) as the index's bytes (the frame transport sends
   * them as they are): the answer without `records`, and the records (null without `fetch`).
   */
  searchStored(req: ShardSearchRequest): { answer: ShardSearchResponse; stored: Map<string, Uint8Array> | null } {
    const t = performance.now();
    const { trace, ...rest } = req.query;
    const q: EngineQuery = { ...rest, globalStats: req.globalStats, trace: trace === true ? { now: () => performance.now() * 1000 } : false };
    if ((q.offset ?? 0) + (q.limit ?? 10) > SHARD_MAX_HITS) throw new AppError('validation_failed', `offset + limit must not exceed ${SHARD_MAX_HITS}.`);
    const index = this.#index(req.index);
    if (req.statsGeneration !== undefined) {
      // statistics the coordinator kept (ADR 0260): search only if they are this snapshot's and cover the
      // query (checked and searched in one synchronous step: the snapshot cannot change in between)
      const stamp = this.#stamp(index);
      const df = req.globalStats.df;
      if (stamp !== req.statsGeneration || index.queryTerms(req.query).some((term) => !Object.hasOwn(df, term))) {
        const statsQuery = { text: req.query.text, possibleLanguages: req.query.possibleLanguages ?? null, ...(req.query.expansion !== undefined ? { expansion: req.query.expansion } : {}) };
        const empty = { hits: [], totalHits: 0, totalHitsExact: true, hasMore: false, rankingMode: resolveRankingMode(q) };
        return { answer: { shard: this.shard, node: 'local', result: empty, stale: { stats: index.queryStats(statsQuery), generation: stamp }, us: (performance.now() - t) * 1000 }, stored: null };
      }
    }
    const result = index.search(q);
    // the fetch phase folded in (ADR 0292): the same snapshot's records of the top hits
    const stored = req.fetch ? index.stored(fetchedIds(result.hits, req.fetch)) : null;
    return { answer: { shard: this.shard, node: 'local', result, us: (performance.now() - t) * 1000 }, stored };
  }

  /** The dense channels' shard call (ADR 0246): the shard's top k by cosine of its documents' vectors. */
  vectors(req: ShardVectorRequest): ShardVectorResponse {
    const t = performance.now();
    const q = req.query;
    if (q.limit > SHARD_MAX_HITS) throw new AppError('validation_failed', `limit must not exceed ${SHARD_MAX_HITS}.`);
    const index = this.#index(req.index);
    const r = index.searchVectors({ vector: Float32Array.from(q.vector), method: q.method, limit: q.limit, ...(q.filters ? { filters: q.filters } : {}), collapseByWorkKey: q.collapseByWorkKey ?? false, passagesPerHit: q.passagesPerHit ?? 3, ...(q.rescore !== undefined ? { rescore: q.rescore } : {}) });
    const { kernel: _k, ...result } = r;
    return { shard: this.shard, node: 'local', result, us: (performance.now() - t) * 1000 };
  }

  /** One document's stored vector (`similar`'s seed, ADR 0246). */
  documentVector(req: ShardDocumentVectorRequest): ShardDocumentVectorResponse {
    const t = performance.now();
    const v = this.#index(req.index).documentVector(req.id);
    return { shard: this.shard, node: 'local', vector: v === null ? null : Array.from(v), us: (performance.now() - t) * 1000 };
  }

  /** Dictionary candidates of terms (the spelling call, ADR 0247). */
  suggest(req: ShardSuggestRequest): ShardSuggestResponse {
    const t = performance.now();
    if (req.terms.length > 64 || !(req.limit >= 1 && req.limit <= 1000)) throw new AppError('validation_failed', 'At most 64 terms and 1 to 1000 candidates per term.');
    const suggestions = this.#index(req.index).suggestTerms(req.terms, req.limit);
    return { shard: this.shard, node: 'local', suggestions, us: (performance.now() - t) * 1000 };
  }

  /** Lexical score parts of candidates with the corpus's statistics (ranking features, ADR 0248). */
  scoreParts(req: ShardScorePartsRequest): ShardScorePartsResponse {
    const t = performance.now();
    if (req.ids.length > 10_000) throw new AppError('validation_failed', 'At most 10000 ids.');
    const parts: Record<string, DocumentScoreParts> = {};
    for (const [id, p] of this.#index(req.index).scoreParts({ ...req.query, globalStats: req.globalStats }, req.ids)) parts[id] = p;
    return { shard: this.shard, node: 'local', parts, us: (performance.now() - t) * 1000 };
  }

  /** Citing-record counts of documents (the `cited_by` feature, ADR 0265): the one-node count, per shard. */
  citedBy(req: ShardCitedByRequest): ShardCitedByResponse {
    const t = performance.now();
    if (req.uriSets.length > MAX_CITED_BY_SETS) throw new AppError('validation_failed', `At most ${MAX_CITED_BY_SETS} documents per call.`);
    const index = this.#index(req.index);
    const counts = req.uriSets.map((uris) => citedByCount(index, { uris }));
    return { shard: this.shard, node: 'local', counts, us: (performance.now() - t) * 1000 };
  }

  /** The stored display records of the ids this shard holds (the fetch phase, ADR 0280). */
  records(req: ShardRecordsRequest): ShardRecordsResponse {
    const { answer, stored } = this.recordsStored(req);
    return { ...answer, records: textOf(stored) };
  }

  /** records() with the records as the index's bytes (for the frame transport, ADR 0291). */
  recordsStored(req: ShardRecordsRequest): { answer: Omit<ShardRecordsResponse, 'records'>; stored: Map<string, Uint8Array> } {
    const t = performance.now();
    if (req.ids.length > SHARD_MAX_HITS) throw new AppError('validation_failed', `At most ${SHARD_MAX_HITS} ids.`);
    const stored = this.#index(req.index).stored(req.ids);
    return { answer: { shard: this.shard, node: 'local', us: (performance.now() - t) * 1000 }, stored };
  }
}

/** Stored records as the JSON text they hold. */
function textOf(stored: ReadonlyMap<string, Uint8Array>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [id, bytes] of stored) out[id] = dec.decode(bytes);
  return out;
}

const dec = new TextDecoder();

const aborted = (signal: AbortSignal | undefined): Error | null => (signal?.aborted ? (signal.reason instanceof Error ? signal.reason : new Error('shard call aborted')) : null);

/** A ShardClient over a ShardSearcher in this process (the engine call is synchronous). */
export class InProcessShardClient implements ShardClient {
  readonly shard: number;
  constructor(
    private readonly searcher: ShardSearcher,
    readonly node = 'local',
  ) {
    this.shard = searcher.shard;
  }

  async stats(req: ShardStatsRequest, opts: ShardCallOptions = {}): Promise<ShardStatsResponse> {
    const a = aborted(opts.signal);
    if (a) throw a;
    return { ...this.searcher.stats(req), node: this.node };
  }

  async search(req: ShardSearchRequest, opts: ShardCallOptions = {}): Promise<ShardSearchResponse> {
    const a = aborted(opts.signal);
    if (a) throw a;
    return { ...this.searcher.search(req), node: this.node };
  }

  async vectors(req: ShardVectorRequest, opts: ShardCallOptions = {}): Promise<ShardVectorResponse> {
    const a = aborted(opts.signal);
    if (a) throw a;
    return { ...this.searcher.vectors(req), node: this.node };
  }

  async documentVector(req: ShardDocumentVectorRequest, opts: ShardCallOptions = {}): Promise<ShardDocumentVectorResponse> {
    const a = aborted(opts.signal);
    if (a) throw a;
    return { ...this.searcher.documentVector(req), node: this.node };
  }

  async suggest(req: ShardSuggestRequest, opts: ShardCallOptions = {}): Promise<ShardSuggestResponse> {
    const a = aborted(opts.signal);
    if (a) throw a;
    return { ...this.searcher.suggest(req), node: this.node };
  }

  async scoreParts(req: ShardScorePartsRequest, opts: ShardCallOptions = {}): Promise<ShardScorePartsResponse> {
    const a = aborted(opts.signal);
    if (a) throw a;
    return { ...this.searcher.scoreParts(req), node: this.node };
  }

  async citedBy(req: ShardCitedByRequest, opts: ShardCallOptions = {}): Promise<ShardCitedByResponse> {
    const a = aborted(opts.signal);
    if (a) throw a;
    return { ...this.searcher.citedBy(req), node: this.node };
  }

  async records(req: ShardRecordsRequest, opts: ShardCallOptions = {}): Promise<ShardRecordsResponse> {
    const a = aborted(opts.signal);
    if (a) throw a;
    return { ...this.searcher.records(req), node: this.node };
  }
}
