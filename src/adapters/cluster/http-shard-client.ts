// The network ShardClient (ADR 0203): the two shard calls as JSON over HTTP to a `search` node's internal
// endpoints (http/shard-server.ts), with Node's fetch (undici, keep-alive connection pool). A call that
// the coordinator aborts (hedge won elsewhere, deadline) or that gets no 2xx rejects; the coordinator
// then tries another replica or reports the shard missing.
import type { ShardCallOptions, ShardClient, ShardSearchRequest, ShardSearchResponse, ShardStatsRequest, ShardStatsResponse } from '../../ports/shard-client.js';

export class HttpShardClient implements ShardClient {
  readonly #base: URL;
  readonly #secret: string;
  constructor(
    readonly shard: number,
    /** The search node's internal base URL, e.g. http://127.0.0.1:7801 */
    baseUrl: string,
    secret: string,
  ) {
    const u = new URL(baseUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`a search node URL must be http(s): ${baseUrl}`);
    this.#base = u;
    this.#secret = secret;
  }

  get node(): string {
    return this.#base.origin;
  }

  async #post<T>(call: 'stats' | 'search', body: unknown, opts: ShardCallOptions): Promise<T> {
    const url = new URL(`/internal/v1/shards/${this.shard}/${call}`, this.#base);
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.#secret}` },
      body: JSON.stringify(body),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const text = await res.text();
    if (!res.ok) {
      let detail = text.slice(0, 300);
      try {
        const d = (JSON.parse(text) as { detail?: unknown }).detail;
        detail = typeof d === 'string' ? d : JSON.stringify(d);
      } catch {
        /* not JSON: keep the text */
      }
      throw new Error(`${call} on ${this.node} shard ${this.shard}: HTTP ${res.status}: ${detail}`);
    }
    return JSON.parse(text) as T;
  }

  async stats(req: ShardStatsRequest, opts: ShardCallOptions = {}): Promise<ShardStatsResponse> {
    return { ...(await this.#post<ShardStatsResponse>('stats', req, opts)), node: this.node };
  }

  async search(req: ShardSearchRequest, opts: ShardCallOptions = {}): Promise<ShardSearchResponse> {
    return { ...(await this.#post<ShardSearchResponse>('search', req, opts)), node: this.node };
  }
}
