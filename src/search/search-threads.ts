// Search threads (ADR 0110): the search work of every request (plan, engine channels, fusion, records,
// snippets, spelling) runs on a pool of worker threads, so all cores serve. The main thread stays the one
// writer: it ingests, commits, merges and answers HTTP (authentication, billing, activity,
// serialization). The index is in memory once: its files are SharedArrayBuffers that the writer's
// directory holds (adapters/fs/shared-index-directory.ts) and every thread views; after each commit,
// merge or model change the writer publishes the new file set and each thread opens a read-only
// SearchIndex over it (segment views, no copies). Messages on a port arrive in order, so a search
// sent after a publish sees that publish.
//
// This module holds both sides: `SearchThreads` (main thread: the pool, dispatch, publish) and
// `serveSearches` (thread side: snapshots in, executions out). The entry point that wires a thread's
// own store and models is src/search-worker.ts.
import { performance } from 'node:perf_hooks';
import { Worker, type MessagePort } from 'node:worker_threads';
import { SearchIndex, type IndexDirectory } from '../engine/index.js';
import { INDEX_NAMES, type IndexName } from '../domain/document.js';
import { AppError, type ErrorCode } from '../domain/errors.js';
import type { IndexModels } from './corpus-models.js';
import { corpusDenseModel, encoderDenseModel, type DenseModel } from './dense-model.js';
import { corpusSparseModel, encoderSparseModel, type SparseModel } from './sparse-model.js';
import type { SparseTextEncoder, TextEncoder } from '../ports/text-encoder.js';
import type { SearchIndexes } from './search-service.js';
import type { CandidateRankingValue } from '../ranking/info.js';
import { inHitEncoderRoom, type HitEncoder, type SearchExecution, type SearchExecutor, type SearchRequest } from './search-types.js';

/** One index as published to the threads: its files (shared bytes) and the key of its models. */
export interface PublishedIndex {
  files: Map<string, Uint8Array>;
  /** `<dense sha256>/<sparse sha256>` of the installed models, '' for none. */
  models: string;
}

export type Snapshot = Record<IndexName, PublishedIndex>;

type ToThread =
  | { kind: 'snapshot'; indexes: Snapshot }
  | { kind: 'search'; id: number; request: SearchRequest; nowMs: number; encodeHits: boolean }
  /** The pacing flag shared with the main thread (ADR 0244): sent once, right after a thread starts. */
  | { kind: 'pacing'; flag: SharedArrayBuffer };

/**
 * While the main thread sets the pacing flag (the indexes have lagged behind the store past the bound:
 * ADR 0244), a search thread rests after each search for as long as the search ran, up to this, ms: the
 * search threads then use at most about half the CPU they would, and the builder thread (at a lower
 * priority) gets the rest.
 */
const MAX_PACING_REST_MS = 50;
type ThreadError = { app: true; code: ErrorCode; message: string; extra: Record<string, unknown> } | { app: false; message: string; stack?: string };
type FromThread = { kind: 'done'; id: number; result: SearchExecution; us: number } | { kind: 'failed'; id: number; error: ThreadError } | LeanDone;

/**
 * A search whose hits the thread encoded (ADR 0378), as a flat array instead of the execution object: the
 * structured clone writes and reads no property names, and the candidate ranking (its feature contract, ~40
 * values, the same for every search of a mode) crosses only when it differs from the previous one this
 * thread sent (`LEAN_SAME_RANKING`: the main thread reuses the one it kept, frozen). Messages on a port
 * arrive in order, so "the previous one" is the same on both sides.
 */
type LeanDone = [
  id: number,
  us: number,
  bytes: Uint8Array,
  ids: string[],
  totalHits: number,
  /** bit 0: hasNext; bit 1: rankingMode 'passages' */
  flags: number,
  engineUs: number,
  recordsUs: number,
  snippetsUs: number,
  embedMs: number | null,
  correctedQuery: string | null,
  traces: unknown[] | null,
  rankingStages: SearchExecution['rankingStages'],
  candidateRanking: CandidateRankingValue | null | typeof LEAN_SAME_RANKING,
];
/** In a {@link LeanDone}: the same candidate ranking as in the previous message from this thread. */
const LEAN_SAME_RANKING = 0;

/** Whether two values of plain data (primitives, arrays, plain objects) are equal, deeply. */
export function samePlainData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!samePlainData(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k) || !samePlainData((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

interface Pending {
  resolve: (r: SearchExecution) => void;
  reject: (e: unknown) => void;
  thread: Thread;
  sent: number;
}

interface Thread {
  worker: Worker;
  inflight: number;
  /** The reserved lane (ADR 0270): serves only light searches while the general threads are busy. */
  reserved: boolean;
  startedAt: number;
  /** Exited soon after starting; a replacement starts after a back-off. */
  down: boolean;
  /** The candidate ranking of this thread's last lean message (ADR 0378), frozen: shared by the results that repeat it. */
  ranking: CandidateRankingValue | null;
}

/** A thread that lives at least this long before exiting is replaced at once; sooner: with back-off. */
const HEALTHY_MS = 5_000;
const MAX_BACKOFF_MS = 30_000;

/**
 * The main thread's side: a fixed pool of search threads, plus one reserved lane (ADR 0270). A thread
 * runs its searches one after another, so with one search thread (the default on two cores) another
 * account's cheap search would wait behind a flood's long one however fairly the turns are ordered.
 * The reserved lane is a thread that takes a search only when every general thread is busy, the search
 * is *light* (its account has no other search in a turn: it is within its fair share) and the lane is
 * idle. One account alone never has two light searches at once, so it never uses the lane: its
 * throughput is that of the general threads, and the lane costs CPU only while several accounts search.
 */
export class SearchThreads implements SearchExecutor {
  readonly #entry: URL;
  readonly #data: unknown;
  readonly #snapshot: () => Snapshot;
  readonly #report: (err: unknown, context: string) => void;
  readonly #threads: Thread[] = [];
  readonly #pending = new Map<number, Pending>();
  #next = 1;
  #closing = false;
  /** [0]: 1 while the threads pace themselves (ADR 0244); [1]: pacing rests taken, all threads. */
  readonly #pacing = new Int32Array(new SharedArrayBuffer(8));
  /** Consecutive threads that exited soon after starting (a store that cannot be opened, a bad build). */
  #quickExits = 0;
  /** Searches the reserved lane ran, since start. */
  #reservedServed = 0;

  /**
   * Starts `count` threads running `entry` with `workerData`, and sends each the current snapshot.
   * `snapshot()` is read again at every {@link publish}. `reservedLane`: start the reserved lane's thread
   * as well (default true).
   */
  constructor(entry: URL, count: number, workerData: unknown, snapshot: () => Snapshot, report: (err: unknown, context: string) => void, options: { reservedLane?: boolean } = {}) {
    if (!(count >= 1)) throw new Error('search threads: count must be at least 1');
    this.#entry = entry;
    this.#data = workerData;
    this.#snapshot = snapshot;
    this.#report = report;
    const first = snapshot();
    for (let i = 0; i < count; i++) this.#threads.push(this.#start(first, false));
    if (options.reservedLane !== false) this.#threads.push(this.#start(first, true));
  }

  /** General search threads (the reserved lane not counted). */
  get size(): number {
    return this.#threads.filter((t) => !t.reserved).length;
  }

  /** Reserved lanes (0 or 1). */
  get reservedLanes(): number {
    return this.#threads.filter((t) => t.reserved).length;
  }

  /** Searches the reserved lane ran, since start. */
  get reservedServed(): number {
    return this.#reservedServed;
  }

  /** Searches sent to threads and not answered yet. */
  get inflight(): number {
    return this.#pending.size;
  }

  #start(snapshot: Snapshot, reserved: boolean): Thread {
    const worker = new Worker(this.#entry, { workerData: this.#data });
    const t: Thread = { worker, inflight: 0, reserved, startedAt: performance.now(), down: false, ranking: null };
    worker.on('message', (m: FromThread) => (Array.isArray(m) ? this.#answerLean(t, m) : this.#answer(m)));
    worker.on('error', (err) => this.#report(err, 'search thread failed'));
    worker.on('exit', (code) => {
      // its searches fail (500); a replacement takes its place unless the pool is closing
      for (const [id, p] of this.#pending) {
        if (p.thread !== t) continue;
        this.#pending.delete(id);
        p.reject(new Error(`search thread exited (code ${code}) during the search`));
      }
      const i = this.#threads.indexOf(t);
      if (i < 0 || this.#closing) return;
      if (performance.now() - t.startedAt >= HEALTHY_MS) {
        this.#quickExits = 0;
        this.#threads[i] = this.#start(this.#snapshot(), t.reserved);
        return;
      }
      // exited right after starting: no tight restart loop; searches go to the other threads meanwhile
      t.down = true;
      const delay = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** this.#quickExits++);
      this.#report(new Error(`search thread exited ${Math.round(performance.now() - t.startedAt)} ms after starting (code ${code}); restarting in ${delay} ms`), 'search thread failed');
      setTimeout(() => {
        if (!this.#closing && this.#threads[i] === t) this.#threads[i] = this.#start(this.#snapshot(), t.reserved);
      }, delay).unref();
    });
    worker.unref();
    worker.postMessage({ kind: 'pacing', flag: this.#pacing.buffer as SharedArrayBuffer } satisfies ToThread);
    worker.postMessage({ kind: 'snapshot', indexes: snapshot } satisfies ToThread);
    return t;
  }

  /** A search answered with encoded hits (ADR 0378): the execution rebuilt from the flat message. */
  #answerLean(t: Thread, m: LeanDone): void {
    const cr = m[13];
    // the thread sends its ranking only when it changed: keep it (even for a search no longer pending)
    if (cr !== LEAN_SAME_RANKING) t.ranking = cr === null ? null : deepFreeze(cr);
    const p = this.#pending.get(m[0]);
    if (!p) return;
    this.#pending.delete(m[0]);
    if (--p.thread.inflight === 0) p.thread.worker.unref();
    const f = m[5];
    p.resolve({
      rankingMode: f & 2 ? 'passages' : 'documents',
      hits: [],
      totalHits: m[4],
      hasNext: (f & 1) === 1,
      correctedQuery: m[10],
      embedMs: m[9],
      traces: m[11],
      engineUs: m[6],
      recordsUs: m[7],
      snippetsUs: m[8],
      // time between sending and the thread starting on it (queueing behind other searches, messaging)
      queueUs: Math.max(0, (performance.now() - p.sent) * 1000 - m[1]),
      candidateRanking: t.ranking,
      rankingStages: m[12],
      encodedHits: { bytes: m[2], ids: m[3] },
    });
  }

  #answer(m: FromThread): void {
    if (Array.isArray(m)) return;
    const p = this.#pending.get(m.id);
    if (!p) return;
    this.#pending.delete(m.id);
    if (--p.thread.inflight === 0) p.thread.worker.unref();
    if (m.kind === 'done') {
      // time between sending and the thread starting on it (queueing behind other searches, messaging)
      m.result.queueUs = Math.max(0, (performance.now() - p.sent) * 1000 - m.us);
      p.resolve(m.result);
    } else {
      const e = m.error;
      if (e.app) p.reject(new AppError(e.code, e.message, { extra: e.extra }));
      else {
        const err = new Error(`search thread: ${e.message}`);
        if (e.stack) err.stack = e.stack;
        p.reject(err);
      }
    }
  }

  /**
   * Turns pacing on or off (ADR 0244): while on, each search thread rests after each search for as long
   * as it ran (at most MAX_PACING_REST_MS), so a builder thread behind on a catch-up gets CPU under a
   * saturating search load.
   */
  pace(on: boolean): void {
    Atomics.store(this.#pacing, 0, on ? 1 : 0);
  }

  /** Whether the threads pace themselves now. */
  get pacing(): boolean {
    return Atomics.load(this.#pacing, 0) === 1;
  }

  /** Rests the search threads took while pacing, since start. */
  get pacingRests(): number {
    return Atomics.load(this.#pacing, 1);
  }

  /** Sends the current snapshot to every thread (after a commit, a merge or a model change). */
  publish(): void {
    if (this.#closing) return;
    const s = this.#snapshot();
    for (const t of this.#threads) t.worker.postMessage({ kind: 'snapshot', indexes: s } satisfies ToThread);
  }

  /**
   * Runs a search on the general thread with the fewest searches in flight; a `light` one (its
   * account's only search in a turn: FairScheduler) on the idle reserved lane instead when every general
   * thread is busy (ADR 0270), so it does not wait behind another account's long search.
   */
  execute(request: SearchRequest, nowMs: number, encodeHits = false, light = false): Promise<SearchExecution> {
    if (this.#closing) return Promise.reject(new AppError('service_unavailable', 'The server is shutting down.'));
    // the running general thread with the fewest searches in flight (ties: the first)
    let t: Thread | null = null;
    let lane: Thread | null = null;
    for (const x of this.#threads) {
      if (x.down) continue;
      if (x.reserved) lane = x;
      else if (t === null || x.inflight < t.inflight) t = x;
    }
    // the reserved lane: a light search while every general thread is busy; any search while none runs
    if (lane !== null && (t === null || (light && t.inflight > 0 && lane.inflight === 0))) {
      t = lane;
      this.#reservedServed++;
    }
    if (t === null) return Promise.reject(new AppError('service_unavailable', 'The search threads are restarting; retry in a few seconds.', { headers: { 'Retry-After': '5' } }));
    const thread = t;
    const id = this.#next++;
    return new Promise<SearchExecution>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, thread, sent: performance.now() });
      // an idle thread does not keep the process alive; one with a search in flight does
      if (thread.inflight++ === 0) thread.worker.ref();
      thread.worker.postMessage({ kind: 'search', id, request, nowMs, encodeHits } satisfies ToThread);
    });
  }

  async close(): Promise<void> {
    this.#closing = true;
    await Promise.all(this.#threads.map((t) => t.worker.terminate()));
  }
}

/** A read-only index directory over published files (a search thread never writes). */
export class SnapshotDirectory implements IndexDirectory {
  constructor(private readonly files: Map<string, Uint8Array>) {}
  list(): string[] {
    return [...this.files.keys()];
  }
  read(name: string): Uint8Array | null {
    return this.files.get(name) ?? null;
  }
  write(name: string): void {
    throw new Error(`search thread: the index is read-only here (write of ${name})`);
  }
  delete(): void {
    // leftovers are the writer's to remove
  }
}

const MANIFEST = 'manifest.json';

/** A search thread's indexes: read-only SearchIndexes over the latest published snapshot. */
export class ThreadIndexes implements SearchIndexes {
  readonly #open = new Map<IndexName, { index: SearchIndex; manifest: string; modelsKey: string; models: IndexModels }>();

  readonly #encoder: DenseModel | null;
  readonly #sparseEncoder: SparseModel | null;
  readonly #sparseId: string | null;

  /**
   * `loadModels` reads an index's installed models (the thread's own copy; they are small next to the
   * index). `encoders` are the thread's own instances of the operator's encoders (dense_encoder.dir,
   * sparse_encoder.dir), which replace the corpus models on every index as on the writer (IndexSet).
   */
  constructor(
    private readonly loadModels: (name: IndexName) => IndexModels,
    encoders: { dense: TextEncoder | null; sparse: SparseTextEncoder | null } = { dense: null, sparse: null },
  ) {
    this.#encoder = encoders.dense ? encoderDenseModel(encoders.dense) : null;
    this.#sparseEncoder = encoders.sparse ? encoderSparseModel(encoders.sparse) : null;
    this.#sparseId = encoders.sparse?.info.id ?? null;
  }

  /** Opens the indexes whose manifest or models changed. */
  apply(s: Snapshot): void {
    const dec = new TextDecoder();
    for (const name of INDEX_NAMES) {
      const p = s[name];
      if (!p) continue;
      const raw = p.files.get(MANIFEST);
      const manifest = raw ? dec.decode(raw) : '';
      const cur = this.#open.get(name);
      if (cur && cur.manifest === manifest && cur.modelsKey === p.models) continue;
      let models: IndexModels = { dense: null, sparse: null, manifest: null };
      if (p.models !== '') {
        if (cur && cur.modelsKey === p.models) models = cur.models;
        else {
          try {
            models = this.loadModels(name);
          } catch {
            // unreadable: the writer reports it and runs without them too
          }
        }
      }
      const index = SearchIndex.open(new SnapshotDirectory(p.files), { defaultLanguage: 'en' });
      // the previous index is not closed: a search between awaits may still hold it (nothing to release)
      this.#open.set(name, { index, manifest, modelsKey: p.models, models });
      // the writer vectorized every committed segment under this model before publishing (an encoder's
      // vectors as far as its vectorizer got): nothing is computed here
      const dense = this.dense(name);
      if (dense) index.setVectorModel(dense.vectorModel);
      // an operator's SPLADE model searches its document impacts (ADR 0109), attached by the writer's vectorizer
      if (this.#sparseId !== null) index.setImpactModel(this.#sparseId);
    }
  }

  get(name: IndexName): SearchIndex {
    const e = this.#open.get(name);
    if (!e) throw new Error(`search thread: no snapshot of the ${name} index yet`);
    return e.index;
  }

  models(name: IndexName): IndexModels {
    return this.#open.get(name)?.models ?? { dense: null, sparse: null, manifest: null };
  }

  /** As IndexSet.dense: the operator's encoder when configured, else the corpus-trained model (or none). */
  dense(name: IndexName): DenseModel | null {
    if (this.#encoder !== null) return this.#encoder;
    const m = this.models(name).dense;
    return m === null ? null : corpusDenseModel(m);
  }

  /** As IndexSet.sparse: the SPLADE encoder when configured, else the corpus expansion (or none). */
  sparse(name: IndexName): SparseModel | null {
    if (this.#sparseEncoder !== null) return this.#sparseEncoder;
    const m = this.models(name).sparse;
    return m === null ? null : corpusSparseModel(m);
  }
}

function threadError(e: unknown): ThreadError {
  if (e instanceof AppError) return { app: true, code: e.code, message: e.message, extra: { ...e.extra } };
  const err = e instanceof Error ? e : new Error(String(e));
  return { app: false, message: err.message, ...(err.stack ? { stack: err.stack } : {}) };
}

/**
 * The thread's side: applies snapshots and runs executions in arrival order of their starts. With
 * `encodeHits` (the HTTP presenter's encoder), a search sent with `encodeHits` returns its hits encoded
 * here (ADR 0150): the bytes move to the main thread (transferred, not copied) instead of the hit
 * objects being cloned there and serialized again.
 */
export function serveSearches(
  port: MessagePort,
  indexes: ThreadIndexes,
  execute: (r: SearchRequest, nowMs: number) => Promise<SearchExecution>,
  onSnapshot: () => void = () => undefined,
  encodeHits: HitEncoder | null = null,
): void {
  let pacing: Int32Array | null = null;
  const rest = new Int32Array(new SharedArrayBuffer(4));
  /** The candidate ranking of the last lean message sent (ADR 0378); undefined before the first. */
  let sentRanking: CandidateRankingValue | null | undefined;
  /** After a search of `ms`: rest as long (bounded) while the main thread asks for pacing. */
  const pace = (ms: number) => {
    if (pacing === null || Atomics.load(pacing, 0) !== 1) return;
    Atomics.add(pacing, 1, 1);
    Atomics.wait(rest, 0, 0, Math.min(MAX_PACING_REST_MS, Math.max(1, ms)));
  };
  port.on('message', (m: ToThread) => {
    if (m.kind === 'pacing') {
      pacing = new Int32Array(m.flag);
      return;
    }
    if (m.kind === 'snapshot') {
      indexes.apply(m.indexes);
      onSnapshot();
      return;
    }
    const t = performance.now();
    execute(m.request, m.nowMs).then(
      (result) => {
        if (m.encodeHits && encodeHits !== null && result.partial === undefined) {
          let bytes: Uint8Array;
          try {
            bytes = encodeHits(result.hits);
          } catch (e) {
            port.postMessage({ kind: 'failed', id: m.id, error: threadError(e) } satisfies FromThread);
            return;
          }
          // a buffer of its own (not a pool's slice) moves to the main thread without a copy; the encoder's
          // view leaves room for the envelope around the hits in it (ADR 0375), which moves with it
          const own = bytes.buffer instanceof ArrayBuffer && ((bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) || inHitEncoderRoom(bytes));
          // the flat message (ADR 0378); the ranking only when it is not the previous one's
          const cr = result.candidateRanking;
          const same = sentRanking !== undefined && samePlainData(cr, sentRanking);
          if (!same) sentRanking = cr;
          const lean: LeanDone = [
            m.id,
            (performance.now() - t) * 1000,
            bytes,
            result.hits.map((h) => h.id),
            result.totalHits,
            (result.hasNext ? 1 : 0) | (result.rankingMode === 'passages' ? 2 : 0),
            result.engineUs,
            result.recordsUs,
            result.snippetsUs,
            result.embedMs,
            result.correctedQuery,
            result.traces,
            result.rankingStages,
            same ? LEAN_SAME_RANKING : cr,
          ];
          port.postMessage(lean satisfies FromThread, own ? [bytes.buffer as ArrayBuffer] : []);
        } else port.postMessage({ kind: 'done', id: m.id, result, us: (performance.now() - t) * 1000 } satisfies FromThread);
        // the answer is on its way; the rest delays the next search on this thread, not this one
        pace(performance.now() - t);
      },
      (e: unknown) => port.postMessage({ kind: 'failed', id: m.id, error: threadError(e) } satisfies FromThread),
    );
  });
}
