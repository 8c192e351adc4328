// What a shard replica should hold: the store's live records whose work routes to the shard.
import { shardOfWork } from '../../src/domain/shard-routing.js';
import type { DocumentStore } from '../../src/ports/document-store.js';

/** The ids of the store's live records of `shard` (of `shards`), sorted, read page by page from the change feed. */
export async function liveIdsOfShard(documents: Pick<DocumentStore, 'changesSince'>, shard: number, shards: number): Promise<string[]> {
  const out: string[] = [];
  for (let seq = 0; ; ) {
    const page = await documents.changesSince(seq, 500);
    if (page.length === 0) break;
    for (const c of page) if (!c.deleted && shardOfWork(c.doc.workKey, shards) === shard) out.push(c.doc.id);
    seq = page[page.length - 1]!.seq;
  }
  return out.sort();
}
