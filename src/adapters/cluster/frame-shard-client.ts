// The framed network ShardClient (issue 24, "Cost of distribution", ADR 0291): every call to a search
// node as a length-prefixed frame (domain/shard-frames.ts) on one persistent connection per node,
// shared by the clients of every shard that node holds and opened with an HTTP upgrade that carries the
// cluster secret (http/shard-frames.ts). Calls are multiplexed by id (answers in any order); the frames
// a coordinator sends in one turn of the event loop (a search's calls to every shard the node holds)
// leave in one write. Against one HTTP request per call (http-shard-client.ts) this drops the request
// and response heads, the per-request stream and parser machinery of Node's http client and Fastify,
// and the JSON escaping of stored records (carried as their bytes).
// A call that the coordinator aborts (a hedge won elsewhere, the deadline) rejects at once (its answer,
// if it comes, is dropped); a connection that fails rejects its calls, and the next call opens a new one.
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { FRAMES_PATH, FRAMES_PROTOCOL, FRAME_ANSWER, FRAME_ERROR, FrameReader, decodeAnswer, encodeRequest, type FrameOp } from '../../domain/shard-frames.js';
import type { ShardCallOptions, ShardClient, ShardCitedByRequest, ShardCitedByResponse, ShardDocumentVectorRequest, ShardDocumentVectorResponse, ShardRecordsRequest, ShardRecordsResponse, ShardScorePartsRequest, ShardScorePartsResponse, ShardSearchRequest, ShardSearchResponse, ShardStatsRequest, ShardStatsResponse, ShardSuggestRequest, ShardSuggestResponse, ShardVectorRequest, ShardVectorResponse } from '../../ports/shard-client.js';

/** Largest answer read from a shard (a page of 500 hits with passages and explanations fits). */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;
/** Longest wait for a search node to accept the connection and answer its upgrade. */
const CONNECT_TIMEOUT_MS = 5_000;
/** Call ids wrap below 2^32. */
const MAX_ID = 0xffff_fffe;

interface Pending {
  resolve(v: { answer: Record<string, unknown>; records: Record<string, string> | null }): void;
  reject(e: Error): void;
  what: string;
}

export interface FrameConnectionOptions {
  /**
   * Connect to this Unix domain socket instead of the URL's host and port (a search process on the same
   * machine that also listens there; measured in bench/scale/cost.ts, not configurable yet: ADR 0291).
   */
  socketPath?: string;
}

/** One persistent, multiplexed connection to a search node. */
export class FrameConnection {
  readonly #base: URL;
  readonly #auth: string;
  #socket: Duplex | null = null;
  #connecting: Promise<Duplex> | null = null;
  readonly #pending = new Map<number, Pending>();
  #nextId = 0;
  #corked = false;
  #closed = false;
  /** Connections opened so far (1 while the first one holds: tests and benchmarks check reuse). */
  opened = 0;

  readonly #socketPath: string | undefined;

  constructor(baseUrl: string, secret: string, opts: FrameConnectionOptions = {}) {
    const u = new URL(baseUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`a search node URL must be http(s): ${baseUrl}`);
    this.#base = u;
    this.#auth = `Bearer ${secret}`;
    this.#socketPath = opts.socketPath;
  }

  get node(): string {
    return this.#base.origin;
  }

  #connect(): Promise<Duplex> {
    if (this.#connecting) return this.#connecting;
    const transport = this.#base.protocol === 'https:' ? https : http;
    this.#connecting = new Promise<Duplex>((resolve, reject) => {
      const req = transport.request(new URL(FRAMES_PATH, this.#base), { method: 'GET', agent: false, ...(this.#socketPath ? { socketPath: this.#socketPath } : {}), headers: { connection: 'Upgrade', upgrade: FRAMES_PROTOCOL, authorization: this.#auth } });
      // a node that does not answer the upgrade (a dropped SYN, a stalled process) fails the connection
      // attempt after CONNECT_TIMEOUT_MS, so later calls try again rather than wait on it
      req.setTimeout(CONNECT_TIMEOUT_MS, () => req.destroy(new Error(`no answer to the connection upgrade within ${CONNECT_TIMEOUT_MS} ms`)));
      req.once('upgrade', (_res, socket, head) => {
        this.opened++;
        socket.setTimeout(0);
        (socket as Duplex & { setNoDelay(v: boolean): void }).setNoDelay(true);
        (socket as Duplex & { setKeepAlive(on: boolean, ms: number): void }).setKeepAlive(true, 10_000);
        const reader = new FrameReader(MAX_ANSWER_BYTES, (id, kind, payload) => this.#answer(id, kind, payload));
        const onData = (chunk: Buffer): void => {
          try {
            reader.push(chunk);
          } catch (e) {
            socket.destroy(e as Error);
          }
        };
        socket.on('data', onData);
        socket.on('error', () => undefined); // 'close' follows and fails the calls
        socket.once('close', () => {
          if (this.#socket === socket) this.#socket = null;
          this.#connecting = null;
          this.#failAll(new Error(`connection to ${this.node} closed`));
        });
        if (this.#closed) {
          socket.destroy();
          reject(new Error(`client of ${this.node} closed`));
          return;
        }
        this.#socket = socket;
        if (this.#pending.size === 0) (socket as Duplex & { unref(): void }).unref();
        if (head.length > 0) onData(head);
        resolve(socket);
      });
      req.once('response', (res) => {
        // the upgrade refused: the answer says why (401 without the cluster secret)
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.length < 16 && chunks.push(c));
        res.on('end', () => {
          this.#connecting = null;
          const text = Buffer.concat(chunks).toString('utf8');
          let detail = text.slice(0, 300);
          try {
            const d = (JSON.parse(text) as { detail?: unknown }).detail;
            detail = typeof d === 'string' ? d : JSON.stringify(d);
          } catch {
            /* not JSON: keep the text */
          }
          reject(new Error(`connecting to ${this.node}: HTTP ${res.statusCode ?? 0}: ${detail}`));
        });
      });
      req.once('error', (e) => {
        this.#connecting = null;
        reject(e);
      });
      req.end();
    });
    return this.#connecting;
  }

  #answer(id: number, kind: number, payload: Buffer): void {
    const p = this.#pending.get(id);
    if (!p) return; // aborted by the coordinator: its answer is dropped
    this.#pending.delete(id);
    if (this.#pending.size === 0) (this.#socket as (Duplex & { unref?(): void }) | null)?.unref?.();
    try {
      if (kind === FRAME_ANSWER) p.resolve(decodeAnswer(payload));
      else if (kind === FRAME_ERROR) {
        const e = JSON.parse(payload.toString('utf8')) as { status: number; code: string; message: string };
        p.reject(new Error(`${p.what}: ${e.status} ${e.code}: ${e.message}`));
      } else p.reject(new Error(`${p.what}: unknown answer kind ${kind}`));
    } catch (e) {
      p.reject(new Error(`${p.what}: malformed answer (${(e as Error).message})`));
    }
  }

  #failAll(e: Error): void {
    const all = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of all) p.reject(new Error(`${p.what}: ${e.message}`));
  }

  #write(socket: Duplex, frame: Buffer): void {
    if (!this.#corked) {
      // the calls of this turn of the event loop (a search's calls to this node's shards) in one write
      this.#corked = true;
      socket.cork();
      process.nextTick(() => {
        this.#corked = false;
        socket.uncork();
      });
    }
    socket.write(frame);
  }

  /** Sends one call; resolves with the answer's JSON and its stored records. */
  call(op: FrameOp, shard: number, body: unknown, signal: AbortSignal | undefined): Promise<{ answer: Record<string, unknown>; records: Record<string, string> | null }> {
    const what = `${op} on ${this.node} shard ${shard}`;
    if (this.#closed) return Promise.reject(new Error(`${what}: client closed`));
    if (signal?.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error('shard call aborted'));
    this.#nextId = this.#nextId >= MAX_ID ? 1 : this.#nextId + 1;
    const id = this.#nextId;
    const frame = encodeRequest(id, op, shard, body);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        if (!this.#pending.delete(id)) return;
        if (this.#pending.size === 0) (this.#socket as (Duplex & { unref?(): void }) | null)?.unref?.();
        reject(signal!.reason instanceof Error ? (signal!.reason as Error) : new Error('shard call aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = (): void => signal?.removeEventListener('abort', onAbort);
      this.#pending.set(id, {
        what,
        resolve: (v) => {
          done();
          resolve(v);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      const socket = this.#socket;
      if (socket) {
        (socket as Duplex & { ref(): void }).ref();
        this.#write(socket, frame);
        return;
      }
      this.#connect().then(
        (s) => {
          if (!this.#pending.has(id)) return;
          (s as Duplex & { ref(): void }).ref();
          this.#write(s, frame);
        },
        (e: Error) => {
          const p = this.#pending.get(id);
          if (!p) return;
          this.#pending.delete(id);
          p.reject(new Error(`${what}: ${e.message}`));
        },
      );
    });
  }

  close(): void {
    this.#closed = true;
    this.#socket?.destroy();
    this.#socket = null;
    this.#failAll(new Error('client closed'));
  }
}

/**
 * The connections of a coordinator, one per search node (origin): the clients of the shards a node
 * holds share it. A connection closes when its last client does.
 */
export class FrameConnections {
  readonly #byNode = new Map<string, { conn: FrameConnection; users: number }>();

  acquire(baseUrl: string, secret: string, opts: FrameConnectionOptions = {}): FrameConnection {
    const key = `${new URL(baseUrl).origin} ${opts.socketPath ?? ''} ${secret}`;
    let e = this.#byNode.get(key);
    if (!e) this.#byNode.set(key, (e = { conn: new FrameConnection(baseUrl, secret, opts), users: 0 }));
    e.users++;
    return e.conn;
  }

  release(conn: FrameConnection): void {
    for (const [key, e] of this.#byNode) {
      if (e.conn !== conn) continue;
      if (--e.users <= 0) {
        this.#byNode.delete(key);
        conn.close();
      }
      return;
    }
  }
}

export class FrameShardClient implements ShardClient {
  readonly #conn: FrameConnection;
  readonly #pool: FrameConnections;
  #released = false;

  constructor(
    readonly shard: number,
    /** The search node's base URL, e.g. http://127.0.0.1:7801 */
    baseUrl: string,
    secret: string,
    /** Shared connections (one per node); absent: this client's own. */
    pool: FrameConnections = new FrameConnections(),
    opts: FrameConnectionOptions = {},
  ) {
    this.#pool = pool;
    this.#conn = pool.acquire(baseUrl, secret, opts);
  }

  get node(): string {
    return this.#conn.node;
  }

  /** The connection this client's calls travel on (shared with the node's other shards' clients). */
  get connection(): FrameConnection {
    return this.#conn;
  }

  async #call<T>(op: FrameOp, req: unknown, opts: ShardCallOptions): Promise<T> {
    const { answer, records } = await this.#conn.call(op, this.shard, req, opts.signal);
    const out = { ...answer, node: this.node } as Record<string, unknown>;
    if (records) out['records'] = records;
    else if (op === 'records') out['records'] = {};
    return out as T;
  }

  stats(req: ShardStatsRequest, opts: ShardCallOptions = {}): Promise<ShardStatsResponse> {
    return this.#call('stats', req, opts);
  }

  search(req: ShardSearchRequest, opts: ShardCallOptions = {}): Promise<ShardSearchResponse> {
    return this.#call<ShardSearchResponse>('search', req, opts).then((r) => (req.fetch && !r.records && !r.stale ? { ...r, records: {} } : r));
  }

  vectors(req: ShardVectorRequest, opts: ShardCallOptions = {}): Promise<ShardVectorResponse> {
    return this.#call('vectors', req, opts);
  }

  documentVector(req: ShardDocumentVectorRequest, opts: ShardCallOptions = {}): Promise<ShardDocumentVectorResponse> {
    return this.#call('document-vector', req, opts);
  }

  suggest(req: ShardSuggestRequest, opts: ShardCallOptions = {}): Promise<ShardSuggestResponse> {
    return this.#call('suggest', req, opts);
  }

  scoreParts(req: ShardScorePartsRequest, opts: ShardCallOptions = {}): Promise<ShardScorePartsResponse> {
    return this.#call('score-parts', req, opts);
  }

  citedBy(req: ShardCitedByRequest, opts: ShardCallOptions = {}): Promise<ShardCitedByResponse> {
    return this.#call('cited-by', req, opts);
  }

  records(req: ShardRecordsRequest, opts: ShardCallOptions = {}): Promise<ShardRecordsResponse> {
    return this.#call('records', req, opts);
  }

  /** Releases this client's share of the node's connection (closed with its last client). */
  close(): void {
    if (this.#released) return;
    this.#released = true;
    this.#pool.release(this.#conn);
  }
}
