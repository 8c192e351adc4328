// The network ShardClient (ADR 0203): the two shard calls as JSON over HTTP to a `search` node's internal
// endpoints (http/shard-server.ts), with Node's http/https client and a keep-alive agent per client
// (measured: about a third of the CPU per call of the global fetch on loopback; bench/scale/cost.ts).
// A call that the coordinator aborts (a hedge won elsewhere, the deadline) or that gets no 2xx rejects;
// the coordinator then tries another replica or reports the shard missing.
import http from 'node:http';
import https from 'node:https';
import type { ShardCallOptions, ShardClient, ShardSearchRequest, ShardSearchResponse, ShardStatsRequest, ShardStatsResponse, ShardVectorRequest, ShardVectorResponse, ShardDocumentVectorRequest, ShardDocumentVectorResponse, ShardSuggestRequest, ShardSuggestResponse, ShardScorePartsRequest, ShardScorePartsResponse, ShardCitedByRequest, ShardCitedByResponse, ShardRecordsRequest, ShardRecordsResponse } from '../../ports/shard-client.js';

/** Largest answer read from a shard (a page of 500 hits with passages and explanations fits). */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export class HttpShardClient implements ShardClient {
  readonly #base: URL;
  readonly #auth: string;
  readonly #agent: http.Agent;
  readonly #transport: typeof http | typeof https;

  constructor(
    readonly shard: number,
    /** The search node's base URL, e.g. http://127.0.0.1:7801 */
    baseUrl: string,
    secret: string,
  ) {
    const u = new URL(baseUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`a search node URL must be http(s): ${baseUrl}`);
    this.#base = u;
    this.#auth = `Bearer ${secret}`;
    this.#transport = u.protocol === 'https:' ? https : http;
    this.#agent = new this.#transport.Agent({ keepAlive: true, maxSockets: 256 });
  }

  get node(): string {
    return this.#base.origin;
  }

  #post<T>(call: 'stats' | 'search' | 'vectors' | 'document-vector' | 'suggest' | 'score-parts' | 'cited-by' | 'records' | 'snapshot', body: unknown, opts: ShardCallOptions): Promise<T> {
    const url = new URL(`/internal/v1/shards/${this.shard}/${call}`, this.#base);
    const payload = Buffer.from(JSON.stringify(body), 'utf8');
    return new Promise<T>((resolve, reject) => {
      const req = this.#transport.request(
        url,
        {
          method: 'POST',
          agent: this.#agent,
          headers: { 'content-type': 'application/json', 'content-length': payload.length, authorization: this.#auth },
          ...(opts.signal ? { signal: opts.signal } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_RESPONSE_BYTES) req.destroy(new Error(`${call} on ${this.node} shard ${this.shard}: answer over ${MAX_RESPONSE_BYTES} bytes`));
            else chunks.push(c);
          });
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            if (status < 200 || status >= 300) {
              let detail = text.slice(0, 300);
              try {
                const d = (JSON.parse(text) as { detail?: unknown }).detail;
                detail = typeof d === 'string' ? d : JSON.stringify(d);
              } catch {
                /* not JSON: keep the text */
              }
              reject(new Error(`${call} on ${this.node} shard ${this.shard}: HTTP ${status}: ${detail}`));
              return;
            }
            try {
              resolve(JSON.parse(text) as T);
            } catch (e) {
              reject(new Error(`${call} on ${this.node} shard ${this.shard}: not JSON (${(e as Error).message})`));
            }
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  async stats(req: ShardStatsRequest, opts: ShardCallOptions = {}): Promise<ShardStatsResponse> {
    return { ...(await this.#post<ShardStatsResponse>('stats', req, opts)), node: this.node };
  }

  async search(req: ShardSearchRequest, opts: ShardCallOptions = {}): Promise<ShardSearchResponse> {
    return { ...(await this.#post<ShardSearchResponse>('search', req, opts)), node: this.node };
  }

  async vectors(req: ShardVectorRequest, opts: ShardCallOptions = {}): Promise<ShardVectorResponse> {
    return { ...(await this.#post<ShardVectorResponse>('vectors', req, opts)), node: this.node };
  }

  async documentVector(req: ShardDocumentVectorRequest, opts: ShardCallOptions = {}): Promise<ShardDocumentVectorResponse> {
    return { ...(await this.#post<ShardDocumentVectorResponse>('document-vector', req, opts)), node: this.node };
  }

  async suggest(req: ShardSuggestRequest, opts: ShardCallOptions = {}): Promise<ShardSuggestResponse> {
    return { ...(await this.#post<ShardSuggestResponse>('suggest', req, opts)), node: this.node };
  }

  async scoreParts(req: ShardScorePartsRequest, opts: ShardCallOptions = {}): Promise<ShardScorePartsResponse> {
    return { ...(await this.#post<ShardScorePartsResponse>('score-parts', req, opts)), node: this.node };
  }

  async citedBy(req: ShardCitedByRequest, opts: ShardCallOptions = {}): Promise<ShardCitedByResponse> {
    return { ...(await this.#post<ShardCitedByResponse>('cited-by', req, opts)), node: this.node };
  }

  /**
   * Asks the node to publish a snapshot of its shard now (ADR 0255; `lectern cluster snapshot create`,
   * ADR 0295): its answer, once the snapshot is in the object store. Not a coordinator call.
   */
  async snapshot(opts: ShardCallOptions = {}): Promise<{ shard: number; snapshot: { id: string; seq: number; log_seq: number; bytes: number; files: number }; ms: number; deleted: string[] }> {
    return this.#post('snapshot', {}, opts);
  }

  async records(req: ShardRecordsRequest, opts: ShardCallOptions = {}): Promise<ShardRecordsResponse> {
    return { ...(await this.#post<ShardRecordsResponse>('records', req, opts)), node: this.node };
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.#agent.destroy();
  }
}
