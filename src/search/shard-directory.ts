// Where the api node finds the replicas of each shard (ADR 0202): a fixed list (configuration
// `cluster.search_nodes`, tests) or the cluster's live membership (search members announce their shard
// and URL in the JetStream KV bucket; cluster/membership.ts), refreshed in the background so a search
// never waits for the directory.
import type { ShardClient, ShardDirectory } from '../ports/shard-client.js';

/** A fixed directory: replicas[s] are shard s's replicas in preference order. */
export class StaticShardDirectory implements ShardDirectory {
  constructor(
    readonly shards: number,
    private readonly byShard: readonly (readonly ShardClient[])[],
  ) {}
  replicas(shard: number): readonly ShardClient[] {
    return this.byShard[shard] ?? [];
  }
}

/** Parses `cluster.search_nodes`: `<shard>=<url>` items, comma-separated; throws on a malformed item. */
export function parseSearchNodes(text: string, shards: number): { shard: number; url: string }[] {
  const out: { shard: number; url: string }[] = [];
  for (const item of text.split(',').map((x) => x.trim()).filter((x) => x !== '')) {
    const m = /^(\d+)=(.+)$/.exec(item);
    if (!m) throw new Error(`cluster.search_nodes: "${item}" is not <shard>=<url>`);
    const shard = Number(m[1]);
    if (shard >= shards) throw new Error(`cluster.search_nodes: shard ${shard} is not below cluster.shards ${shards}`);
    const u = new URL(m[2]!);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`cluster.search_nodes: ${m[2]} is not an http(s) URL`);
    out.push({ shard, url: u.origin });
  }
  return out;
}

/**
 * A directory kept current from a list of live replicas (the membership bucket): `refresh()` reads the
 * list and keeps one client per (shard, URL); `start()` refreshes every `everyMs`. Until a list source
 * is attached (the cluster is joined after the HTTP app is built), every shard has no replica.
 */
export class LiveShardDirectory implements ShardDirectory {
  #clients = new Map<string, ShardClient>();
  #byShard: ShardClient[][] = [];
  #list: (() => Promise<{ shard: number; url: string }[]>) | null = null;
  #timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    readonly shards: number,
    private readonly makeClient: (shard: number, url: string) => ShardClient,
    private readonly report: (err: unknown, context: string) => void = () => undefined,
  ) {
    this.#byShard = Array.from({ length: shards }, () => []);
  }

  replicas(shard: number): readonly ShardClient[] {
    return this.#byShard[shard] ?? [];
  }

  /** Where the live replicas come from; refreshes now. */
  async attach(list: () => Promise<{ shard: number; url: string }[]>): Promise<void> {
    this.#list = list;
    await this.refresh();
  }

  async refresh(): Promise<void> {
    if (!this.#list) return;
    const live = await this.#list();
    const next: ShardClient[][] = Array.from({ length: this.shards }, () => []);
    const kept = new Map<string, ShardClient>();
    for (const { shard, url } of live) {
      if (!(shard >= 0 && shard < this.shards)) continue;
      const key = `${shard} ${url}`;
      const c = kept.get(key) ?? this.#clients.get(key) ?? this.makeClient(shard, url);
      if (!kept.has(key)) next[shard]!.push(c);
      kept.set(key, c);
    }
    for (const [key, c] of this.#clients) if (!kept.has(key)) c.close?.();
    this.#clients = kept;
    this.#byShard = next;
  }

  start(everyMs: number): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.refresh().catch((err: unknown) => this.report(err, 'refreshing the shard directory failed')), everyMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    for (const c of this.#clients.values()) c.close?.();
    this.#clients.clear();
    this.#byShard = Array.from({ length: this.shards }, () => []);
  }
}
