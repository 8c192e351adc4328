// Shard servers on loopback (port 0) for benchmarks: one internal endpoint per shard searcher, with HTTP
// ShardClients pointing at them.
import { randomBytes } from 'node:crypto';
import { buildShardServer } from '../../src/http/shard-server.js';
import { HttpShardClient } from '../../src/adapters/cluster/http-shard-client.js';
import type { ShardSearcher } from '../../src/search/shard-searcher.js';
import type { ShardClient } from '../../src/ports/shard-client.js';

/** `replicas` servers per shard (each over the shard's one index); clients[s] lists shard s's replicas. */
export async function startNetworkShards(searchers: readonly ShardSearcher[], replicas = 1): Promise<{ clients: ShardClient[][]; close: () => Promise<void> }> {
  const secret = randomBytes(24).toString('base64url');
  const servers: Awaited<ReturnType<typeof buildShardServer>>[] = [];
  const clients: ShardClient[][] = [];
  for (const s of searchers) {
    const own: ShardClient[] = [];
    for (let r = 0; r < replicas; r++) {
      const app = await buildShardServer({ searchers: [s], secret });
      servers.push(app);
      own.push(new HttpShardClient(s.shard, await app.listen({ host: '127.0.0.1', port: 0 }), secret));
    }
    clients.push(own);
  }
  return { clients, close: async () => void (await Promise.all(servers.map((a) => a.close()))) };
}
