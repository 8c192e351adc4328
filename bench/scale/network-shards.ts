// Shard servers on loopback (port 0) for benchmarks: one internal endpoint per shard searcher, with HTTP
// ShardClients pointing at them.
import { randomBytes } from 'node:crypto';
import { buildShardServer } from '../../src/http/shard-server.js';
import { HttpShardClient } from '../../src/adapters/cluster/http-shard-client.js';
import { FrameShardClient } from '../../src/adapters/cluster/frame-shard-client.js';
import type { ShardSearcher } from '../../src/search/shard-searcher.js';
import type { ShardClient } from '../../src/ports/shard-client.js';

/**
 * `replicas` servers per shard (each over the shard's one index); clients[s] lists shard s's replicas,
 * over HTTP per call or (`transport: 'frames'`) framed on one connection per server (ADR 0291).
 */
export async function startNetworkShards(searchers: readonly ShardSearcher[], replicas = 1, transport: 'http' | 'frames' = 'http'): Promise<{ clients: ShardClient[][]; close: () => Promise<void> }> {
  const secret = randomBytes(24).toString('base64url');
  const servers: Awaited<ReturnType<typeof buildShardServer>>[] = [];
  const clients: ShardClient[][] = [];
  for (const s of searchers) {
    const own: ShardClient[] = [];
    for (let r = 0; r < replicas; r++) {
      const app = await buildShardServer({ searchers: [s], secret });
      servers.push(app);
      const url = await app.listen({ host: '127.0.0.1', port: 0 });
      own.push(transport === 'frames' ? new FrameShardClient(s.shard, url, secret) : new HttpShardClient(s.shard, url, secret));
    }
    clients.push(own);
  }
  return {
    clients,
    close: async () => {
      for (const c of clients.flat()) c.close?.();
      await Promise.all(servers.map((a) => a.close()));
    },
  };
}
