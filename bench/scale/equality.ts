// Equality of a sharded search with one node (issue 24, docs/scale.md): SciFact train and Cranfield
// indexed into one index and into S shards (routed by work key; each record is its own work here), the
// sharded side searched through the coordinator (DFS statistics, shard top k, merge) over in-process
// ShardClients and, with --network, over the HTTP ShardClient to R shard servers per shard on loopback
// (a 2-shard x 2-replica layout; the coordinator rotates over the replicas). Reports
// nDCG@10 of both sides and the share of queries whose top 10 (ids and order) is identical.
//   node dist/bench/scale/equality.js [--shards 2] [--network [--replicas 2]] [--out bench/results/scale-equality.json]
import { loadavg } from 'node:os';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MemoryIndexDirectory, SearchIndex, type EngineQuery } from '../../src/engine/index.js';
import { shardOfWork } from '../../src/domain/shard-routing.js';
import { InProcessShardClient, ShardSearcher } from '../../src/search/shard-searcher.js';
import { ScatterGather } from '../../src/search/scatter-gather.js';
import type { ShardClient } from '../../src/ports/shard-client.js';
import { loadIrSet, ndcgAt, type IrSet } from '../quality/ir-eval.js';
import { evalDataDir } from '../quality/data-dir.js';
import { arg, args } from '../lib/cli.js';
import { machine } from '../lib/machine.js';
import { startNetworkShards } from './network-shards.js';

const shards = Number(arg('shards', '2'));
const network = args.includes('--network');
const replicas = Number(arg('replicas', '2'));
const out = arg('out');

/** The engine query the search service's lexical channel sends for a default request (limit 10). */
const queryOf = (text: string): EngineQuery => ({ text, limit: 10, offset: 0, rankingMode: 'auto', collapseByWorkKey: true, exactTotal: true, passagesPerHit: 3 });

async function evaluate(set: IrSet) {
  const one = SearchIndex.open(new MemoryIndexDirectory());
  const parts = Array.from({ length: shards }, () => SearchIndex.open(new MemoryIndexDirectory()));
  for (const d of set.corpus) {
    // with a stored display record (ADR 0280), which the folded fetch phase returns (ADR 0292)
    const doc = { id: d.id, title: d.title, abstract: d.text, language: 'en', workKey: d.id, stored: new TextEncoder().encode(JSON.stringify({ id: d.id, title: d.title })) };
    one.add(doc);
    parts[shardOfWork(doc.workKey, shards)]!.add(doc);
  }
  one.commit('1');
  parts.forEach((p) => p.commit('1'));
  const searchers = parts.map((p, s) => new ShardSearcher(s, { get: () => p }));
  const transports: { name: string; clients: ShardClient[][]; close: () => Promise<void> }[] = [{ name: 'in-process', clients: searchers.map((s) => [new InProcessShardClient(s)]), close: async () => {} }];
  // over HTTP: `replicas` shard servers per shard; the coordinator rotates its first choice over them
  if (network) transports.push({ name: `http-${replicas}-replicas`, ...(await startNetworkShards(searchers, replicas)) });
  // framed (ADR 0291), with the page's records folded into the search answers (ADR 0292)
  if (network) transports.push({ name: `frames-${replicas}-replicas-fetch-folded`, ...(await startNetworkShards(searchers, replicas, 'frames')) });
  const judged = [...set.qrels.keys()].filter((q) => set.queries.has(q));
  const single = judged.map((q) => one.search(queryOf(set.queries.get(q)!)));
  const ndcg = (rankings: string[][]) => rankings.reduce((s, r, i) => s + ndcgAt(r, set.qrels.get(judged[i]!)!, 10), 0) / judged.length;
  const oneIds = single.map((r) => r.hits.map((h) => h.id));
  const report: Record<string, unknown> = { set: set.name, documents: set.corpus.length, queries: judged.length, shard_documents: parts.map((p) => p.stats().docs), ndcg10_single: round(ndcg(oneIds)) };
  for (const t of transports) {
    const sg = new ScatterGather({ shards, replicas: (s) => t.clients[s]! });
    const sharded: string[][] = [];
    let sameTop10 = 0;
    let sameScores = 0;
    let sameTotals = 0;
    let partial = 0;
    const folded = t.name.includes('fetch-folded');
    let sameRecords = 0;
    for (const [i, q] of judged.entries()) {
      const r = await sg.search('documents', queryOf(set.queries.get(q)!), folded ? { fetch: { hits: 10 } } : {});
      if (folded) {
        // the records that came with the hits are the page's stored records, exactly
        const want = [...one.stored(single[i]!.hits.map((h) => h.id))].map(([id, b]) => [id, new TextDecoder().decode(b)]);
        const got = single[i]!.hits.map((h) => h.id).filter((id) => r.fetched!.records.has(id)).map((id) => [id, r.fetched!.records.get(id)!]);
        const byId = (a: string[], b: string[]) => (a[0]! < b[0]! ? -1 : 1);
        if (got.length === single[i]!.hits.length && JSON.stringify(got.sort(byId)) === JSON.stringify(want.sort(byId))) sameRecords++;
      }
      if (r.missingShards.length > 0) partial++;
      const ids = r.result.hits.map((h) => h.id);
      sharded.push(ids);
      if (JSON.stringify(ids) === JSON.stringify(oneIds[i])) sameTop10++;
      if (JSON.stringify(r.result.hits.map((h) => h.score)) === JSON.stringify(single[i]!.hits.map((h) => h.score))) sameScores++;
      if (r.result.totalHits === single[i]!.totalHits) sameTotals++;
    }
    const n = ndcg(sharded);
    report[t.name] = {
      ndcg10_sharded: round(n),
      ndcg10_difference: round(Math.abs(n - (report.ndcg10_single as number))),
      identical_top10_share: round(sameTop10 / judged.length),
      identical_scores_share: round(sameScores / judged.length),
      identical_total_hits_share: round(sameTotals / judged.length),
      partial_results: partial,
      ...(folded ? { identical_page_records_share: round(sameRecords / judged.length) } : {}),
    };
    await t.close();
  }
  one.close();
  parts.forEach((p) => p.close());
  return report;
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

const sets = [loadIrSet(join(evalDataDir(), 'ir', 'scifact'), 'scifact-train', 'train'), loadIrSet(join(evalDataDir(), 'ir', 'cranfield'), 'cranfield', 'test')];
const results = [];
for (const set of sets) results.push(await evaluate(set));
const doc = {
  benchmark: 'scale-equality',
  what: `one index vs ${shards} shards through the coordinator (DFS statistics, shard top 10, merge); default search options of the lexical channel; with --network over HTTP and over frames with the page's records folded into the search answers (ADRs 0291, 0292)`,
  replicas_over_http: network ? replicas : null,
  shards,
  machine: { ...machine(), load_average_at_end: loadavg().map((x) => Math.round(x * 100) / 100), note: 'shared 2-core machine loaded by other work: equality figures do not depend on load' },
  targets: { ndcg10_difference_max: 0.001, identical_top10_share_min: 0.99 },
  results,
};
const text = JSON.stringify(doc, null, 2);
console.log(text);
if (out) writeFileSync(out, text + '\n');
