// The coordinator of a sharded search (the `api` role; issue 24, docs/scale.md "Scatter-gather", ADR
// 0202). A thin layer under the search service's lexical channel: the service plans, fuses, ranks, loads
// records and snippets as on one node; only its engine call becomes
//   DFS:    stats() on one replica of every shard, summed into the corpus statistics;
//   query:  search() on one replica of every shard with those statistics, each asked for its top
//           offset+limit from 0;
//   merge:  the shards' top k by (score desc, id asc), totals summed (exact: works never span shards).
//   fetch:  with `fetch`, each shard's answer carries the stored display records of its top hits (ADR
//           0292, Elasticsearch's query_and_fetch), so a page needs no second round trip for them.
// Hedging: a replica that has not answered `hedgeAfterMs` after its call (or failed) gets a twin call on
// the shard's next replica; the first answer wins and the others are aborted. A shard none of whose
// replicas answered within `deadlineMs` is left out and reported (`missingShards`): the result is partial
// and says so, it is never silently smaller.
import { performance } from 'node:perf_hooks';
import type { IndexName } from '../domain/document.js';
import { type DocumentScoreParts, correctParsedQuery, mergeSuggestions, parseQuery, queryStatsTerms, resolveRankingMode, sumCorpusStats, unknownWordTerms, type CorpusStats, type EngineQuery, type EngineResult } from '../engine/index.js';
import { fetchedIds, type ShardClient, type ShardDirectory, type ShardFetch, type ShardQuery, type ShardSearchResponse, type ShardVectorRequest, type ShardVectorResponse } from '../ports/shard-client.js';
import { mergeShardResults } from './shard-merge.js';
import { shardOfWork } from '../domain/shard-routing.js';
import { AppError } from '../domain/errors.js';

export interface ScatterOptions {
  /** A call not answered after this many ms is duplicated on the shard's next replica. Default 150. */
  hedgeAfterMs?: number;
  /** A shard with no answer after this many ms (per phase) is left out and reported. Default 5000. */
  deadlineMs?: number;
  /**
   * Keep each replica's DFS statistics under their snapshot stamp and, when they cover a query's terms,
   * search at once with them (one round trip instead of two; the replica checks the stamp: ADR 0260).
   * Default true.
   */
  keepStats?: boolean;
  /** The shards' default analysis language (the engine's default: 'en'), to find a query's terms. */
  defaultLanguage?: string;
}

/** One replica's statistics kept from its DFS answers, all under one snapshot stamp (ADR 0260). */
interface KeptStats {
  generation: string;
  docCount: number;
  segmentDocs: number;
  fieldTotals: [number, number, number];
  df: Map<string, number>;
}

/** Terms kept per replica; past it the replica's kept frequencies start again (bounded memory). */
const KEPT_TERMS = 200_000;
/** Replicas (per index and shard) whose statistics are kept at most. */
const KEPT_REPLICAS = 1024;

/** What happened at one shard: for the trace (bounded: one entry per shard). */
export interface ShardTrace {
  shard: number;
  /** The replica whose answer was used (null: none answered). */
  node: string | null;
  /** Time of the DFS (statistics) call as the coordinator saw it, µs. */
  stats_us: number | null;
  /** Time of the search call as the coordinator saw it, µs. */
  search_us: number | null;
  /** Time the shard's engine reported for the search, µs. */
  engine_us: number | null;
  /** Replicas called for this shard beyond the first (hedges and retries after failures). */
  hedged: number;
  total_hits: number | null;
  hits: number | null;
  /** Why the shard is missing, when it is. */
  error?: string;
}

/** The dense channels' query at the coordinator (the vector computed there: ADR 0246). */
export type ScatterVectorQuery = Omit<ShardVectorRequest['query'], 'vector'> & { vector: Float32Array };

/** A dense channel's merged result (what SearchIndex.searchVectors answers, summed over shards). */
export type VectorResult = ShardVectorResponse['result'];

export interface ScatterResult {
  result: EngineResult;
  shards: ShardTrace[];
  /** Shards left out (no replica answered): the result is partial when non-empty. */
  missingShards: number[];
  /** With `fetch` (ADR 0292): the display records the shards sent with their top hits. */
  fetched?: FetchedRecords;
}

/** The fetch phase folded into the query phase (ADR 0292). */
export interface FetchedRecords {
  /** Stored display records (JSON text) by id. */
  records: Map<string, string>;
  /** Every id the shards were asked for (with a record or without one: a records call would add nothing). */
  covered: Set<string>;
}

class NoReplica extends Error {}

/** The engine's first-stage depth of `passages` ranking (search-index.ts: max(200, offset + limit + 1)). */
const PASSAGE_DEPTH = 200;

/** Dictionary candidates each shard returns per unknown term (summed over shards, then the best is picked). */
const SUGGEST_DEPTH = 64;

/** Error text safe for a trace (no stack, bounded). */
const reason = (e: unknown): string => (e instanceof Error ? e.message : String(e)).slice(0, 200);

export class ScatterGather {
  readonly #hedgeAfterMs: number;
  readonly #deadlineMs: number;
  /** Rotates the first replica tried, so replicas share the load. */
  #turn = 0;
  readonly #keepStats: boolean;
  readonly #defaultLanguage: string;
  /** Kept statistics by index, shard and replica (ADR 0260). */
  readonly #kept = new Map<string, KeptStats>();
  /** Searches answered with kept statistics, and those a replica found stale (then searched with the DFS phase). */
  readonly keptStats = { searches: 0, stale: 0 };

  constructor(
    private readonly directory: ShardDirectory,
    opts: ScatterOptions = {},
  ) {
    this.#hedgeAfterMs = opts.hedgeAfterMs ?? 150;
    this.#deadlineMs = opts.deadlineMs ?? 5000;
    this.#keepStats = opts.keepStats ?? true;
    this.#defaultLanguage = opts.defaultLanguage ?? 'en';
  }

  /** Keeps a replica's DFS answer (its terms' frequencies, under its snapshot stamp). */
  #keep(index: IndexName, shard: number, node: string, stats: CorpusStats, generation: string | undefined): void {
    if (!this.#keepStats || generation === undefined) return;
    const key = `${index}\u0000${shard}\u0000${node}`;
    let k = this.#kept.get(key);
    if (!k || k.generation !== generation || k.df.size > KEPT_TERMS) {
      k = { generation, docCount: stats.docCount, segmentDocs: stats.segmentDocs, fieldTotals: [...stats.fieldTotals], df: new Map() };
      // most recently renewed last; replicas that went away (a node on a new port) fall off the front
      this.#kept.delete(key);
      this.#kept.set(key, k);
      if (this.#kept.size > KEPT_REPLICAS) this.#kept.delete(this.#kept.keys().next().value!);
    }
    for (const [term, n] of Object.entries(stats.df)) k.df.set(term, n);
  }

  /**
   * A search with kept statistics (ADR 0260): when the first replica of every shard has kept statistics
   * covering the query's terms, their sum is the corpus statistics the DFS phase would gather from those
   * snapshots; the search goes out at once, each replica checking that its snapshot still has the stamp
   * (and that the sum covers its terms) before it searches. Null when a shard has nothing kept, or a
   * replica answered stale: the caller then runs the DFS phase.
   */
  async #searchKept(index: IndexName, q: EngineQuery, turn: number, fetch: ShardFetch | undefined): Promise<ScatterResult | null> {
    const offset = q.offset ?? 0;
    const limit = q.limit ?? 10;
    const shards = Array.from({ length: this.directory.shards }, (_, s) => s);
    const terms = queryStatsTerms({ text: q.text, possibleLanguages: q.possibleLanguages ?? null, ...(q.expansion !== undefined ? { expansion: q.expansion } : {}) }, this.#defaultLanguage);
    const chosen: { replicas: readonly ShardClient[]; kept: KeptStats }[] = [];
    for (const s of shards) {
      const replicas = this.#order(s, turn);
      const first = replicas[0];
      const kept = first ? this.#kept.get(`${index}\u0000${s}\u0000${first.node}`) : undefined;
      if (!kept || !terms.every((t) => kept.df.has(t))) return null;
      chosen.push({ replicas, kept });
    }
    const globalStats = sumCorpusStats(chosen.map(({ kept }) => ({ docCount: kept.docCount, segmentDocs: kept.segmentDocs, fieldTotals: kept.fieldTotals, df: Object.fromEntries(terms.map((t) => [t, kept.df.get(t)!])) })));
    const traces: ShardTrace[] = shards.map((shard) => ({ shard, node: null, stats_us: null, search_us: null, engine_us: null, hedged: 0, total_hits: null, hits: null }));
    const { trace: wantTrace, globalStats: _ignored, ...rest } = q;
    const shardQuery: ShardQuery = { ...rest, offset: 0, limit: offset + limit, trace: wantTrace !== undefined && wantTrace !== false };
    let stale = false;
    const results = await Promise.all(
      shards.map((s) =>
        this.#traced(traces[s]!, 'search', chosen[s]!.replicas, async (c, signal) => {
          const r = await c.search({ index, query: shardQuery, globalStats, statsGeneration: chosen[s]!.kept.generation, ...(fetch ? { fetch } : {}) }, { signal });
          if (r.stale) {
            this.#keep(index, s, c.node, r.stale.stats, r.stale.generation);
            stale = true;
          }
          return r;
        }),
      ),
    );
    if (stale) {
      this.keptStats.stale++;
      return null;
    }
    this.keptStats.searches++;
    return { ...gathered(results, shards, q, offset, limit, fetch), shards: traces };
  }

  get shards(): number {
    return this.directory.shards;
  }

  /**
   * Calls `fn` on the shard's replicas, hedged: the first replica now, the next after hedgeAfterMs or as
   * soon as a call fails, until one answers or the deadline passes. Resolves with the answer, the replica
   * and the number of extra replicas called; rejects when none answered.
   */
  async #hedged<T>(replicas: readonly ShardClient[], fn: (c: ShardClient, signal: AbortSignal) => Promise<T>): Promise<{ value: T; client: ShardClient; extra: number }> {
    if (replicas.length === 0) throw new NoReplica('no live replica');
    const controllers: AbortController[] = [];
    const errors: string[] = [];
    let started = 0;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let deadline: ReturnType<typeof setTimeout> | null = null;
    try {
      return await new Promise((resolve, reject) => {
        let settled = false;
        let failed = 0;
        const start = (): void => {
          if (settled || started >= replicas.length) return;
          const client = replicas[started++]!;
          const ac = new AbortController();
          controllers.push(ac);
          if (timer !== null) clearTimeout(timer);
          timer = started < replicas.length ? setTimeout(start, this.#hedgeAfterMs) : null;
          fn(client, ac.signal).then(
            (value) => {
              if (settled) return;
              settled = true;
              resolve({ value, client, extra: started - 1 });
            },
            (e: unknown) => {
              if (settled) return;
              errors.push(`${client.node}: ${reason(e)}`);
              if (++failed === replicas.length) {
                settled = true;
                reject(new NoReplica(errors.join('; ')));
              } else start();
            },
          );
        };
        deadline = setTimeout(() => {
          if (settled) return;
          settled = true;
          reject(new NoReplica(`no replica answered within ${this.#deadlineMs} ms${errors.length ? ` (${errors.join('; ')})` : ''}`));
        }, this.#deadlineMs);
        start();
      });
    } finally {
      if (timer !== null) clearTimeout(timer);
      if (deadline !== null) clearTimeout(deadline);
      for (const ac of controllers) ac.abort(new Error('another replica answered first'));
    }
  }

  /** Replicas of a shard in this call's preference order (rotated per search). */
  /**
   * One shard's search or vector call, hedged over its replicas, with its timings, node, hedges and
   * counts written into the shard's trace; null (and the reason in the trace) when no replica answered.
   */
  async #traced<R extends { totalHits: number; hits: readonly unknown[] }, V extends { result: R; us: number; node: string }>(
    tr: ShardTrace,
    what: 'search' | 'vectors',
    replicas: readonly ShardClient[],
    fn: (c: ShardClient, signal: AbortSignal) => Promise<V>,
  ): Promise<V | null> {
    const t = performance.now();
    try {
      const r = await this.#hedged(replicas, fn);
      tr.search_us = Math.round((performance.now() - t) * 1000);
      tr.engine_us = Math.round(r.value.us);
      tr.hedged += r.extra;
      tr.node = r.value.node;
      tr.total_hits = r.value.result.totalHits;
      tr.hits = r.value.result.hits.length;
      return r.value;
    } catch (e) {
      tr.error = `${what}: ${reason(e)}`;
      return null;
    }
  }

  #order(shard: number, turn: number): readonly ShardClient[] {
    const r = this.directory.replicas(shard);
    if (r.length <= 1) return r;
    const k = turn % r.length;
    return [...r.slice(k), ...r.slice(0, k)];
  }

  /** The sharded equivalent of `SearchIndex.search(q)` on one index holding every shard's documents. */
  async search(index: IndexName, q: EngineQuery, opts: { onlyShard?: number; fetch?: ShardFetch } = {}): Promise<ScatterResult> {
    const turn = this.#turn++;
    const fetch = opts.fetch && opts.fetch.hits > 0 ? opts.fetch : undefined;
    // kept statistics first (ADR 0260); passage ranking (a third call) and one-shard searches take the DFS phase
    if (this.#keepStats && opts.onlyShard === undefined && resolveRankingMode(q) !== 'passages') {
      const kept = await this.#searchKept(index, q, turn, fetch);
      if (kept) return kept;
    }
    const offset = q.offset ?? 0;
    const limit = q.limit ?? 10;
    const shards = Array.from({ length: this.directory.shards }, (_, s) => s);
    const traces: ShardTrace[] = shards.map((shard) => ({ shard, node: null, stats_us: null, search_us: null, engine_us: null, hedged: 0, total_hits: null, hits: null }));
    const statsQuery = { text: q.text, ...(q.possibleLanguages !== undefined ? { possibleLanguages: q.possibleLanguages } : {}), ...(q.expansion !== undefined ? { expansion: q.expansion } : {}) };
    // 1. DFS: statistics from one replica of every shard
    const preferred = new Map<number, ShardClient>();
    const dfs = await Promise.all(
      shards.map(async (s) => {
        const t = performance.now();
        try {
          const r = await this.#hedged(this.#order(s, turn), (c, signal) => c.stats({ index, query: statsQuery }, { signal }));
          traces[s]!.stats_us = Math.round((performance.now() - t) * 1000);
          traces[s]!.hedged += r.extra;
          preferred.set(s, r.client);
          this.#keep(index, s, r.client.node, r.value.stats, r.value.generation);
          return r.value.stats;
        } catch (e) {
          traces[s]!.error = `statistics: ${reason(e)}`;
          return null;
        }
      }),
    );
    const globalStats: CorpusStats = sumCorpusStats(dfs.filter((x): x is CorpusStats => x !== null));
    // a search of one known shard (a document's passages, ADR 0247): the statistics are the corpus's, the
    // query goes to that shard alone (the others hold nothing it can match)
    const only = opts.onlyShard;
    const skipped = (s: number) => only !== undefined && s !== only;
    // 2. query: the shards that answered the DFS phase, the replica that answered it first
    const { trace: wantTrace, globalStats: _ignored, ...rest } = q;
    const shardQuery: ShardQuery = { ...rest, offset: 0, limit: offset + limit, trace: wantTrace !== undefined && wantTrace !== false };
    const replicasOf = (s: number): readonly ShardClient[] => {
      const first = preferred.get(s)!;
      return [first, ...this.#order(s, turn).filter((c) => c !== first)];
    };
    // passages: one index re-ranks its BM25 top max(200, offset+limit+1) by passages; a shard must re-rank
    // only its part of the corpus's top, so the corpus's last first-stage document is found first
    if (resolveRankingMode(q) === 'passages' && ((q.text ?? '').trim() !== '' || (q.expansion?.length ?? 0) > 0)) {
      const depth = Math.max(PASSAGE_DEPTH, offset + limit + 1);
      const k = Math.min(depth, 500);
      const firstStage: ShardQuery = { ...shardQuery, rankingMode: 'documents', collapseByWorkKey: false, passagesPerHit: 0, exactTotal: false, explain: false, trace: false, proximityWeight: 0, limit: k, offset: 0 };
      const tops = await Promise.all(
        shards.map(async (s) => {
          if (dfs[s] === null || skipped(s)) return [];
          try {
            const r = await this.#hedged(replicasOf(s), (c, signal) => c.search({ index, query: firstStage, globalStats }, { signal }));
            return r.value.result.hits;
          } catch (e) {
            traces[s]!.error = `first stage: ${reason(e)}`;
            dfs[s] = null;
            return [];
          }
        }),
      );
      const all = tops.flat().sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      if (all.length >= k) shardQuery.firstStageCutoff = { score: all[k - 1]!.score, id: all[k - 1]!.id };
    }
    const results = await Promise.all(
      shards.map(async (s): Promise<Pick<ShardSearchResponse, 'result' | 'records'> | null> => {
        if (dfs[s] === null) return null;
        if (skipped(s)) return { result: { hits: [], totalHits: 0, totalHitsExact: true, hasMore: false, rankingMode: resolveRankingMode(q) }, ...(fetch ? { records: {} } : {}) };
        return this.#traced(traces[s]!, 'search', replicasOf(s), (c, signal) => c.search({ index, query: shardQuery, globalStats, ...(fetch ? { fetch } : {}) }, { signal }));
      }),
    );
    return { ...gathered(results, shards, q, offset, limit, fetch), shards: traces };
  }

  /**
   * The sharded equivalent of `SearchIndex.searchVectors(q)` (the dense channels, ADR 0246): one replica
   * of every shard, hedged, returns its top `limit` by cosine; merged by (score desc, id asc). A cosine is
   * a function of the document's vector alone, so with an exact scan on every shard the merge is one
   * index's top k; `scanned` and totals add up.
   */
  async searchVectors(index: IndexName, q: ScatterVectorQuery): Promise<{ result: VectorResult; shards: ShardTrace[]; missingShards: number[] }> {
    const turn = this.#turn++;
    const shards = Array.from({ length: this.directory.shards }, (_, s) => s);
    const traces: ShardTrace[] = shards.map((shard) => ({ shard, node: null, stats_us: null, search_us: null, engine_us: null, hedged: 0, total_hits: null, hits: null }));
    const req: ShardVectorRequest = { index, query: { ...q, vector: Array.from(q.vector) } };
    const results = await Promise.all(
      shards.map((s): Promise<VectorResult | null> => this.#traced(traces[s]!, 'vectors', this.#order(s, turn), (c, signal) => c.vectors(req, { signal })).then((v) => v?.result ?? null)),
    );
    const answered = results.filter((r): r is VectorResult => r !== null);
    const missingShards = shards.filter((s) => results[s] === null);
    const merged = mergeShardResults(answered, 0, q.limit);
    if (missingShards.length > 0) merged.totalHitsExact = false;
    const methods = [...new Set(answered.map((r) => r.method))];
    const result: VectorResult = {
      ...merged,
      rankingMode: 'documents',
      scanned: answered.reduce((n, r) => n + r.scanned, 0),
      missingSegments: answered.reduce((n, r) => n + r.missingSegments, 0),
      rescored: answered.reduce((n, r) => n + r.rescored, 0),
      method: methods.length === 1 ? methods[0]! : methods.length === 0 ? q.method : methods.join('+'),
    };
    return { result, shards: traces, missingShards };
  }

  /**
   * The stored vector of a document (`similar`'s seed, ADR 0246), from a replica of the shard its work
   * routes to (hedged like every call). Null when that shard has no vector for it (not indexed yet).
   */
  async documentVector(index: IndexName, doc: { id: string; workKey: string }): Promise<Float32Array | null> {
    const shard = shardOfWork(doc.workKey, this.directory.shards);
    let r;
    try {
      r = await this.#hedged(this.#order(shard, this.#turn++), (c, signal) => c.documentVector({ index, id: doc.id }, { signal }));
    } catch (e) {
      // no replica of the document's shard: a clear 503, not an internal error (ADR 0265)
      throw new AppError('service_unavailable', `No replica of shard ${shard}, which holds document ${doc.id}, answered (${reason(e)}); try again shortly.`, { extra: { missing_shards: [{ index, shard }] }, headers: { 'Retry-After': '1' } });
    }
    return r.value.vector === null ? null : Float32Array.from(r.value.vector);
  }

  /**
   * Calls `fn` on one replica of every shard, hedged (ADR 0202): the answers by shard (null where no
   * replica answered) and the shards that did not answer. The auxiliary calls (spelling, score parts,
   * term statistics, citation counts) report those shards to their caller, who flags the response
   * partial or refuses it: a shard is never silently left out (ADR 0265).
   */
  async #everyShard<T>(fn: (c: ShardClient, signal: AbortSignal) => Promise<T>, shards: readonly number[] = Array.from({ length: this.directory.shards }, (_, s) => s)): Promise<{ answers: (T | null)[]; missingShards: number[] }> {
    const turn = this.#turn++;
    const answers = await Promise.all(shards.map((s) => this.#hedged(this.#order(s, turn), fn).then((r) => r.value, () => null)));
    return { answers, missingShards: shards.filter((_, i) => answers[i] === null) };
  }

  /**
   * The spelling correction over the shards (ADR 0247), as `SearchIndex.correctQuery` on one index: a word
   * is unknown when no shard holds any of its terms (document frequencies summed from the DFS call); each
   * unknown term's dictionary candidates come from every shard, their frequencies summed, and the best
   * (fewest edits, then most documents) replaces the word. Shards that do not answer (either call) are
   * returned in `missingShards`: the correction then rests on the other shards' dictionaries, and the
   * response says so (ADR 0265).
   */
  async correctQuery(index: IndexName, text: string, possibleLanguages: string[] | null, defaultLanguage = 'en'): Promise<{ corrected: string | null; missingShards: number[] }> {
    const parsed = parseQuery(text, possibleLanguages, defaultLanguage);
    const st = await this.#everyShard((c, signal) => c.stats({ index, query: { text, possibleLanguages } }, { signal }));
    const df = sumCorpusStats(st.answers.filter((x) => x !== null).map((x) => x.stats)).df;
    const dfOf = (t: string) => df[t] ?? 0;
    const unknown = [...new Set(unknownWordTerms(parsed, dfOf))].slice(0, 64);
    if (unknown.length === 0) return { corrected: null, missingShards: st.missingShards };
    const sg = await this.#everyShard((c, signal) => c.suggest({ index, terms: unknown, limit: SUGGEST_DEPTH }, { signal }));
    const lists = sg.answers.filter((x) => x !== null);
    const corrected = correctParsedQuery(parsed, dfOf, (t) => mergeSuggestions(lists.map((l) => l.suggestions[t] ?? []), 1)[0]);
    return { corrected, missingShards: union(st.missingShards, sg.missingShards) };
  }

  /**
   * Lexical score parts of ranking candidates (ADR 0248), as `SearchIndex.scoreParts` on one index: the
   * corpus's statistics from every shard, then every shard scores the candidates it holds (works never
   * span shards, so each id is answered by one shard). A shard that does not answer leaves its
   * candidates without parts and is returned in `missingShards` (the caller flags the response, ADR 0265).
   */
  async scoreParts(index: IndexName, q: { text: string; possibleLanguages?: string[] | null; phraseBoost?: number }, ids: readonly string[]): Promise<{ parts: Map<string, DocumentScoreParts>; missingShards: number[] }> {
    const out = new Map<string, DocumentScoreParts>();
    if (ids.length === 0) return { parts: out, missingShards: [] };
    const query = { text: q.text, possibleLanguages: q.possibleLanguages ?? null, ...(q.phraseBoost !== undefined ? { phraseBoost: q.phraseBoost } : {}) };
    const st = await this.#everyShard((c, signal) => c.stats({ index, query: { text: q.text, possibleLanguages: q.possibleLanguages ?? null } }, { signal }));
    const globalStats = sumCorpusStats(st.answers.filter((x) => x !== null).map((x) => x.stats));
    // a shard that missed the statistics is not asked to score: its share of the statistics is unknown
    const asked = st.answers.flatMap((a, s) => (a === null ? [] : [s]));
    const sp = await this.#everyShard((c, signal) => c.scoreParts({ index, query, globalStats, ids: [...ids] }, { signal }), asked);
    for (const a of sp.answers) if (a) for (const [id, p] of Object.entries(a.parts)) out.set(id, p);
    return { parts: out, missingShards: union(st.missingShards, sp.missingShards) };
  }

  /**
   * The `cited_by` counts of many documents (ADR 0265), as `citedByCount` per document on one index: every
   * shard counts its records citing each document's URIs in one call (parts of CITED_BY_PART documents),
   * and the counts are summed (a citing record lives on one shard). `missingShards`: shards whose counts
   * are not in the sums.
   */
  async citedBy(index: IndexName, uriSets: readonly (readonly string[])[]): Promise<{ counts: number[]; missingShards: number[] }> {
    const counts = uriSets.map(() => 0);
    let missing: number[] = [];
    for (let at = 0; at < uriSets.length; at += CITED_BY_PART) {
      const part = uriSets.slice(at, at + CITED_BY_PART).map((u) => [...u]);
      if (part.every((u) => u.length === 0)) continue;
      const r = await this.#everyShard((c, signal) => c.citedBy({ index, uriSets: part }, { signal }));
      for (const a of r.answers) if (a) a.counts.forEach((n, i) => (counts[at + i]! += n));
      missing = union(missing, r.missingShards);
    }
    return { counts, missingShards: missing };
  }

  /**
   * The fetch phase (issue 29, ADR 0280): the display records the shards' segments store for these ids
   * (a page of hits), each as the stored JSON text. Every shard is asked (works never span shards, so
   * each id is answered by one); a shard that does not answer leaves its ids absent (the caller reads
   * those from the database).
   */
  async records(index: IndexName, ids: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (ids.length === 0) return out;
    const turn = this.#turn++;
    const shards = Array.from({ length: this.directory.shards }, (_, s) => s);
    const answers = await Promise.all(shards.map((s) => this.#hedged(this.#order(s, turn), (c, signal) => c.records({ index, ids: [...ids] }, { signal })).then((r) => r.value, () => null)));
    for (const a of answers) if (a) for (const [id, text] of Object.entries(a.records)) out.set(id, text);
    return out;
  }

  /**
   * Document frequencies of index terms and the live document count, summed over every shard (the DFS
   * call with the terms as expansion terms, taken as they are: no analysis). For conversations' term
   * model (ADR 0248) and the work budget's postings (ADR 0266). `missingShards`: the shards whose share
   * is not in the sums.
   */
  async termStats(index: IndexName, terms: readonly string[]): Promise<{ documents: number; df: Record<string, number>; missingShards: number[] }> {
    const query = { text: '', expansion: terms.slice(0, 4096).map((term) => ({ term, weight: 1 })) };
    const st = await this.#everyShard((c, signal) => c.stats({ index, query }, { signal }));
    const sum = sumCorpusStats(st.answers.filter((x) => x !== null).map((x) => x.stats));
    return { documents: sum.docCount, df: sum.df, missingShards: st.missingShards };
  }
}

/** Documents per `citedBy` call (the shard's bound, MAX_CITED_BY_SETS). */
const CITED_BY_PART = 2000;

/** Shards in either list, ascending. */
/** The shards' pages merged into one (the shards that did not answer listed: the total is then a lower bound). */
function gathered(answers: readonly (Pick<ShardSearchResponse, 'result' | 'records'> | null)[], shards: readonly number[], q: EngineQuery, offset: number, limit: number, fetch: ShardFetch | undefined): { result: EngineResult; missingShards: number[]; fetched?: FetchedRecords } {
  const answered = answers.filter((r) => r !== null).map((r) => r.result);
  const missingShards = shards.filter((s) => answers[s] === null);
  const result = mergeShardResults(answered, offset, limit);
  if (answered.length === 0) result.rankingMode = resolveRankingMode(q);
  if (missingShards.length > 0) result.totalHitsExact = false;
  if (!fetch) return { result, missingShards };
  // the records the shards sent with their hits (ADR 0292): ids asked of a shard that has no record of
  // them are covered too (the store has them), so the page needs no records call for them
  const fetched: FetchedRecords = { records: new Map(), covered: new Set() };
  for (const a of answers) {
    if (!a?.records) continue;
    for (const id of fetchedIds(a.result.hits, fetch)) fetched.covered.add(id);
    for (const [id, text] of Object.entries(a.records)) fetched.records.set(id, text);
  }
  return { result, missingShards, fetched };
}

function union(a: readonly number[], b: readonly number[]): number[] {
  return [...new Set([...a, ...b])].sort((x, y) => x - y);
}
