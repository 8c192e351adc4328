// The sparse mode on shards vs one node at the default heap_factor (issue 24, ADR 0268): SciFact train
// (and Cranfield) indexed into one index and into S shards (routed by work key), corpus models trained
// once from the whole corpus (as `lectern models train` does for a cluster), the sparse channel's
// multi-query retrieval (ADR 0107) run on one index (multiQuerySearch) and through the coordinator
// (multiQuerySearchWith over ScatterGather, in-process ShardClients), with heap_factor 0.85 (the default)
// and 1 (exact). Reports, per heap factor, nDCG@10 of both sides, the share of queries whose top 10 ids
// and order / scores are identical, and how far each side is from the exact ranking (top-10 overlap
// with heap_factor 1 on one node): the shards prune against their own heap thresholds, so where the two
// approximations differ the question is which is closer to exact.
// The hybrid side (ADR 0269): hybrid's sparse vote as the search service runs it (the 4 strongest
// expansion terms, ADR 0312; the query's own pass shared with the fulltext channel, exact on both sides;
// passages deferred, ADR 0311), at heap_factor 0.85 (before ADR 0269: the request's default) and 1 (the
// vote now), its list and the fusion of fulltext's list with it (weighted RRF as the service fuses; the
// dense channel left out: its cluster equality is ADR 0248's, not a pruning question).
//   node dist/bench/scale/sparse-equality.js [--shards 2] [--sets scifact,cranfield] [--out bench/results/scale-sparse-equality.json]
import { execSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MemoryIndexDirectory, SearchIndex, TrainingState, fieldTerms, fuseRrf, type EngineQuery, type EngineResult } from '../../src/engine/index.js';
import { shardOfWork } from '../../src/domain/shard-routing.js';
import { InProcessShardClient, ShardSearcher } from '../../src/search/shard-searcher.js';
import { ScatterGather } from '../../src/search/scatter-gather.js';
import { HYBRID_EXPANSION_TERMS, HYBRID_SPARSE_HEAP_FACTOR, sparseQueryVector, type SparseParams } from '../../src/search/channels.js';
import { DEFAULT_RRF_K, SPARSE_RRF_WEIGHT } from '../../src/search/search-service.js';
import { DEFAULT_COMBINER, multiQuerySearch, multiQuerySearchWith } from '../../src/search/multi-query.js';
import { loadIrSet, ndcgAt, type IrSet } from '../quality/ir-eval.js';
import { evalDataDir } from '../quality/data-dir.js';
import { arg } from '../lib/cli.js';
import { machine } from '../lib/machine.js';

const shards = Number(arg('shards', '2'));
const setNames = arg('sets', 'scifact,cranfield')!.split(',');
const out = arg('out');
const uptime = () => execSync('uptime').toString().trim();
const uptimeBefore = uptime();

/** The sparse channel's engine query for a default request (limit 10), as the search service builds it. */
const baseOf = (text: string): EngineQuery => ({ text, limit: 10, offset: 0, rankingMode: 'documents', collapseByWorkKey: true, exactTotal: true, passagesPerHit: 3 });
const round = (x: number) => Math.round(x * 1e6) / 1e6;

async function evaluate(set: IrSet) {
  const one = SearchIndex.open(new MemoryIndexDirectory());
  const parts = Array.from({ length: shards }, () => SearchIndex.open(new MemoryIndexDirectory()));
  const training = new TrainingState();
  for (const d of set.corpus) {
    const doc = { id: d.id, title: d.title, abstract: d.text, language: 'en', workKey: d.id };
    one.add(doc);
    parts[shardOfWork(doc.workKey, shards)]!.add(doc);
    training.set(d.id, fieldTerms(d.title, d.text, 'en'));
  }
  one.commit('1');
  parts.forEach((p) => p.commit('1'));
  const t0 = performance.now();
  const { sparse } = training.train();
  const trainMs = Math.round(performance.now() - t0);
  const sg = new ScatterGather({ shards, replicas: (s) => [new InProcessShardClient(new ShardSearcher(s, { get: () => parts[s]! }))] });
  const judged = [...set.qrels.keys()].filter((q) => set.queries.has(q));
  const ndcg = (rankings: string[][]) => rankings.reduce((s, r, i) => s + ndcgAt(r, set.qrels.get(judged[i]!)!, 10), 0) / judged.length;
  const run = async (heapFactor: number) => {
    const p: SparseParams = { maxQueryDims: 0, weightThreshold: 0, pruning: null, heapFactor };
    const single: EngineResult[] = [];
    const sharded: EngineResult[] = [];
    for (const q of judged) {
      const text = set.queries.get(q)!;
      const dims = sparseQueryVector(one, sparse, text, null, p);
      const base = baseOf(text);
      single.push(multiQuerySearch(one, base, dims, heapFactor, DEFAULT_COMBINER).result);
      sharded.push((await multiQuerySearchWith(async (x) => (await sg.search('documents', x)).result, base, dims, heapFactor, DEFAULT_COMBINER)).result);
    }
    return { single, sharded };
  };
  const exact = await run(1);
  const approx = await run(0.85);
  // hybrid's sparse vote as the service runs it, and fulltext's list fused with it
  const ftOne = judged.map((q) => one.search(baseOf(set.queries.get(q)!)));
  const ftSharded: EngineResult[] = [];
  for (const q of judged) ftSharded.push((await sg.search('documents', baseOf(set.queries.get(q)!))).result);
  const fused = (ft: EngineResult, vote: EngineResult): string[] => {
    const nominated = new Set(ft.hits.map((h) => h.id));
    return fuseRrf([{ channel: 'fulltext', ids: ft.hits.map((h) => h.id) }, { channel: 'sparse', ids: vote.hits.map((h) => h.id).filter((id) => nominated.has(id)), weight: SPARSE_RRF_WEIGHT }], { k: DEFAULT_RRF_K }).slice(0, 10).map((h) => h.id);
  };
  const hybridRun = async (heapFactor: number) => {
    const p: SparseParams = { maxQueryDims: 0, weightThreshold: 0, pruning: null, heapFactor, maxExpansionTerms: HYBRID_EXPANSION_TERMS };
    const single: EngineResult[] = [];
    const sharded: EngineResult[] = [];
    for (const [i, q] of judged.entries()) {
      const text = set.queries.get(q)!;
      const dims = sparseQueryVector(one, sparse, text, null, p);
      const base = baseOf(text);
      single.push(multiQuerySearch(one, base, dims, heapFactor, DEFAULT_COMBINER, ftOne[i]!, true).result);
      sharded.push((await multiQuerySearchWith(async (x) => (await sg.search('documents', x)).result, base, dims, heapFactor, DEFAULT_COMBINER, ftSharded[i]!, true)).result);
    }
    const fusedSingle = single.map((v, i) => fused(ftOne[i]!, v));
    const fusedSharded = sharded.map((v, i) => fused(ftSharded[i]!, v));
    return {
      heap_factor: heapFactor,
      vote: {
        ndcg10_single: round(ndcg(single.map(ids))),
        ndcg10_sharded: round(ndcg(sharded.map(ids))),
        ndcg10_difference: round(Math.abs(ndcg(single.map(ids)) - ndcg(sharded.map(ids)))),
        identical_top10_share: same(single, sharded, ids),
        identical_scores_share: same(single, sharded, (r) => r.hits.map((h) => h.score)),
      },
      fulltext_fused_with_vote: {
        ndcg10_single: round(ndcg(fusedSingle)),
        ndcg10_sharded: round(ndcg(fusedSharded)),
        ndcg10_difference: round(Math.abs(ndcg(fusedSingle) - ndcg(fusedSharded))),
        identical_top10_share: round(fusedSingle.filter((r, i) => JSON.stringify(r) === JSON.stringify(fusedSharded[i])).length / judged.length),
      },
    };
  };
  const ids = (r: EngineResult) => r.hits.map((h) => h.id);
  const same = (a: EngineResult[], b: EngineResult[], f: (r: EngineResult) => unknown) => round(a.filter((r, i) => JSON.stringify(f(r)) === JSON.stringify(f(b[i]!))).length / a.length);
  const overlap = (a: EngineResult[], b: EngineResult[]) => round(a.reduce((s, r, i) => s + ids(r).filter((id) => ids(b[i]!).includes(id)).length / Math.max(1, ids(b[i]!).length), 0) / a.length);
  const hybridBefore = await hybridRun(0.85);
  const hybridAfter = await hybridRun(HYBRID_SPARSE_HEAP_FACTOR);
  const differing = approx.single.flatMap((r, i) => (JSON.stringify(ids(r)) === JSON.stringify(ids(approx.sharded[i]!)) ? [] : [i]));
  // of the queries whose approximate lists differ: which side equals the exact ranking
  const closer = { sharded_equals_exact: 0, single_equals_exact: 0, neither: 0 };
  for (const i of differing) {
    const e = JSON.stringify(ids(exact.single[i]!));
    if (JSON.stringify(ids(approx.sharded[i]!)) === e) closer.sharded_equals_exact++;
    else if (JSON.stringify(ids(approx.single[i]!)) === e) closer.single_equals_exact++;
    else closer.neither++;
  }
  const report = {
    set: set.name,
    documents: set.corpus.length,
    queries: judged.length,
    shard_documents: parts.map((x) => x.stats().docs),
    train_ms: trainMs,
    heap_factor_1: {
      ndcg10_single: round(ndcg(exact.single.map(ids))),
      ndcg10_sharded: round(ndcg(exact.sharded.map(ids))),
      identical_top10_share: same(exact.single, exact.sharded, ids),
      identical_scores_share: same(exact.single, exact.sharded, (r) => r.hits.map((h) => h.score)),
    },
    heap_factor_085: {
      ndcg10_single: round(ndcg(approx.single.map(ids))),
      ndcg10_sharded: round(ndcg(approx.sharded.map(ids))),
      ndcg10_difference: round(Math.abs(ndcg(approx.single.map(ids)) - ndcg(approx.sharded.map(ids)))),
      identical_top10_share: same(approx.single, approx.sharded, ids),
      identical_scores_share: same(approx.single, approx.sharded, (r) => r.hits.map((h) => h.score)),
      top10_overlap_single_vs_sharded: overlap(approx.sharded, approx.single),
      top10_overlap_with_exact: { single: overlap(approx.single, exact.single), sharded: overlap(approx.sharded, exact.single) },
      identical_to_exact_top10_share: { single: same(approx.single, exact.single, ids), sharded: same(approx.sharded, exact.single, ids) },
      differing_queries: differing.length,
      differing_queries_closer_to_exact: closer,
    },
    hybrid: { before_heap_factor_085: hybridBefore, after_exact_vote: hybridAfter },
  };
  one.close();
  parts.forEach((x) => x.close());
  return report;
}

const dirs: Record<string, [string, string, string]> = { scifact: ['scifact', 'scifact-train', 'train'], cranfield: ['cranfield', 'cranfield', 'test'] };
const results = [];
for (const name of setNames) {
  const [dir, label, split] = dirs[name]!;
  results.push(await evaluate(loadIrSet(join(evalDataDir(), 'ir', dir), label, split)));
}
const doc = {
  benchmark: 'scale-sparse-equality',
  what: `sparse mode (corpus expansion, multi-query retrieval) on one index vs ${shards} shards through the coordinator, heap_factor 0.85 (default) and 1 (exact); and hybrid\'s sparse vote (4 terms, shared exact pass) and its fusion with fulltext, before (0.85) and after ADR 0269 (exact vote)`,
  shards,
  machine: { ...machine(), uptime_before: uptimeBefore, uptime_after: uptime(), load_average_at_end: loadavg().map((x) => Math.round(x * 100) / 100), note: 'shared 2-core machine loaded by other work: equality figures do not depend on load' },
  results,
};
const text = JSON.stringify(doc, null, 2);
console.log(text);
if (out) writeFileSync(out, text + '\n');
