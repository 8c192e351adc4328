// Shard servers on loopback (port 0) for benchmarks: one internal endpoint per shard searcher, with HTTP
// ShardClients pointing at them.
import { randomBytes } from 'node:crypto';
import { buildShardServer } from '../../src/http/shard-server.js';
import { HttpShardClient } from '../../src/adapters/cluster/http-shard-client.js';
import type { ShardSearcher } from '../../src/search/shard-searcher.js';
import type { ShardClient } from '../../src/ports/shard-client.js';

export async function startNetworkShards(searchers: readonly ShardSearcher[]): Promise<{ clients: ShardClient[]; close: () => Promise<void> }> {
  const secret = randomBytes(24).toString('base64url');
  const servers = await Promise.all(searchers.map((s) => buildShardServer({ searchers: [s], secret })));
  const clients: ShardClient[] = [];
  for (const [i, app] of servers.entries()) {
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    clients.push(new HttpShardClient(searchers[i]!.shard, url, secret));
  }
  return { clients, close: async () => void (await Promise.all(servers.map((a) => a.close()))) };
}
