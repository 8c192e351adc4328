// Quality of every search mode with the corpus-trained models (issue 15): nDCG@10, Recall@100 and the
// share of zero-score queries (nDCG@10 = 0) on SciFact (train judgments) and Cranfield, for fulltext,
// sparse, short_document, binary and hybrid (the search service's channels, weights and defaults:
// src/search/channels.ts and search-service.ts), plus hybrid with no model (= fulltext) and with
// sparse_nomination on. Training time is measured on the same corpus. Usage:
//   node dist/bench/quality/channels.js [--write] [--only scifact|cranfield] [--dims 128]
// --write stores bench/results/quality-channels.json, or --out NAME (machine and load average noted).
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { fieldTerms, fuseRrf, MemoryIndexDirectory, SearchIndex, TERM_SCAN_MIN_TERMS, TrainingState } from '../../src/engine/index.js';
import { DEFAULT_HEAP_FACTOR, HYBRID_EXPANSION_TERMS, HYBRID_SPARSE_HEAP_FACTOR, denseQueryVector, denseSearch, sparseEngineOptions, sparseQueryVector, withFeedback, type SparseParams } from '../../src/search/channels.js';
import { DEFAULT_RRF_K, DENSE_FEEDBACK_DOCS, DENSE_FEEDBACK_WEIGHT, DENSE_RRF_WEIGHT, SPARSE_RRF_WEIGHT } from '../../src/search/search-service.js';
import { DEFAULT_COMBINER, multiQuerySearch, type CombinerParams } from '../../src/search/multi-query.js';
import { repoRoot } from '../../test/helpers/paths.js';
import { evalDataDir } from './data-dir.js';
import { loadIrSet, ndcgAt, recallAt, type IrSet } from './ir-eval.js';

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const dims = arg('dims') ? Number(arg('dims')) : undefined;
/** Other combiner settings measured beside the default. */
const COMBINERS: CombinerParams[] = [
  { combiner: 'sum', decay: 1, temperature: 1.5, topK: 0 },
  { combiner: 'sum', decay: 0.7, temperature: 1.5, topK: 3 },
  { combiner: 'max', decay: 0.7, temperature: 1.5, topK: 3 },
  { combiner: 'log_sum_exp', decay: 0.7, temperature: 0.5, topK: 3 },
  { combiner: 'log_sum_exp', decay: 1, temperature: 1.5, topK: 0 },
];
/** Candidates rescored when the quantized path is forced on these small sets (about 10% of SciFact). */
const FORCED_POOL = 500;

interface ModeResult {
  ndcg10: number;
  recall100: number;
  zeroScoreShare: number;
  queryMsMean: number;
}

function evaluate(set: IrSet) {
  const t0 = performance.now();
  const state = new TrainingState();
  for (const d of set.corpus) state.set(d.id, fieldTerms(d.title, d.text, 'en'));
  const t1 = performance.now();
  const { dense, sparse, stats } = state.train(dims ? { dims } : {});
  const t2 = performance.now();
  const index = SearchIndex.open(new MemoryIndexDirectory());
  for (const d of set.corpus) index.add({ id: d.id, title: d.title, abstract: d.text, language: 'en' });
  index.commit('bench');
  const t3 = performance.now();
  index.setVectorModel({ id: 'bench', model: dense });
  const t4 = performance.now();
  const sp: SparseParams = { maxQueryDims: 0, weightThreshold: 0, pruning: null, heapFactor: DEFAULT_HEAP_FACTOR };
  // the float scan over every expansion term (the previous build's; ADR 0310)
  const sparseFloat = Object.assign(Object.create(sparse) as typeof sparse, {
    embed: sparse.embed.bind(sparse),
    nearestTerms: (v: Float32Array, max: number, min: number, ex: ReadonlySet<string>) => sparse.nearestTerms(v, max, min, ex, 'exact'),
  });
  const scans = { queries: 0, identical: 0, kernel: sparse.terms.length >= TERM_SCAN_MIN_TERMS };
  const acc = new Map<string, { n: number; r: number; z: number; ms: number }>();
  const add = (mode: string, ids: string[], rels: Map<string, number>, ms: number) => {
    let e = acc.get(mode);
    if (!e) acc.set(mode, (e = { n: 0, r: 0, z: 0, ms: 0 }));
    const v = ndcgAt(ids, rels, 10);
    e.n += v;
    e.r += recallAt(ids, rels, 100);
    if (v === 0) e.z++;
    e.ms += ms;
  };
  const timed = <T>(fn: () => T): [T, number] => {
    const t = performance.now();
    const v = fn();
    return [v, performance.now() - t];
  };
  let n = 0;
  for (const [qid, rels] of set.qrels) {
    const text = set.queries.get(qid);
    if (text === undefined) continue;
    n++;
    const q = { text, limit: 100, passagesPerHit: 0 };
    const [ft, ftMs] = timed(() => index.search(q).hits.map((h) => h.id));
    add('fulltext', ft, rels, ftMs);
    // the sparse channel as the service runs it: the query and one sub-query per generated dimension,
    // combined by the interface's default combiner (ADR 0107); the single weighted query for comparison
    const sv = sparseQueryVector(index, sparse, text, null, sp);
    const [sps0, spMs] = timed(() => multiQuerySearch(index, q, sv, sparseEngineOptions(sv, sp).heapFactor, DEFAULT_COMBINER).result.hits.map((h) => h.id));
    add('sparse', sps0, rels, spMs);
    // in hybrid (issue 27): the query's own pass is the fulltext channel's result, shared, not run again
    const ftResult = index.search(q);
    const [sps, spSharedMs] = timed(() => multiQuerySearch(index, q, sv, sparseEngineOptions(sv, sp).heapFactor, DEFAULT_COMBINER, ftResult).result.hits.map((h) => h.id));
    const [sp1, sp1Ms] = timed(() => index.search({ ...q, ...sparseEngineOptions(sv, sp) }).hits.map((h) => h.id));
    add('sparse (one weighted query, before ADR 0107)', sp1, rels, sp1Ms);
    for (const c of COMBINERS) add(`sparse (${c.combiner}, decay ${c.decay}, T ${c.temperature}, top_k ${c.topK})`, multiQuerySearch(index, q, sv, sparseEngineOptions(sv, sp).heapFactor, c).result.hits.map((h) => h.id), rels, NaN);
    const [qv, embMs] = timed(() => denseQueryVector(index, dense, text, null));
    const [dn, dnMs] = timed(() => (qv ? denseSearch(index, qv, 'auto', { limit: 100, passagesPerHit: 0 }).hits.map((h) => h.id) : []));
    add('short_document', dn, rels, dnMs + embMs);
    // the path `auto` takes above EXACT_MAX_VECTORS (ADR 0103), forced here with a small pool
    const forced = { limit: 100, passagesPerHit: 0, exactMaxVectors: 0, rescore: FORCED_POOL };
    const [dq, dqMs] = timed(() => (qv ? denseSearch(index, qv, 'auto', forced).hits.map((h) => h.id) : []));
    add(`short_document (quantized path forced, pool ${FORCED_POOL})`, dq, rels, dqMs + embMs);
    const [bn, bnMs] = timed(() => (qv ? denseSearch(index, qv, 'binary', { limit: 100, passagesPerHit: 0 }).hits.map((h) => h.id) : []));
    add('binary', bn, rels, bnMs + embMs);
    // hybrid as the search service runs it: dense with feedback from the lexical top hits, weighted RRF,
    // sparse voting only for nominated documents (sparse_nomination off for document ranking)
    const fb = qv ? withFeedback(index, qv, ft.slice(0, DENSE_FEEDBACK_DOCS), DENSE_FEEDBACK_WEIGHT) : null;
    const [dp, dpMs] = timed(() => (fb ? denseSearch(index, fb, 'auto', { limit: 100, passagesPerHit: 0 }).hits.map((h) => h.id) : []));
    const dpq = fb ? denseSearch(index, fb, 'auto', forced).hits.map((h) => h.id) : [];
    const nominated = new Set([...ft, ...dp]);
    const fuse = (sparseIds: string[], dense = dp) =>
      fuseRrf(
        [
          { channel: 'fulltext', ids: ft },
          { channel: 'sparse', ids: sparseIds, weight: SPARSE_RRF_WEIGHT },
          { channel: 'short_document', ids: dense, weight: DENSE_RRF_WEIGHT },
        ],
        { k: DEFAULT_RRF_K },
      ).map((f) => f.id);
    // hybrid's sparse vote: the 3 strongest expansion terms (HYBRID_EXPANSION_TERMS, ADRs 0312, 0269), evaluated
    // exactly (HYBRID_SPARSE_HEAP_FACTOR, ADR 0269)
    const svHybrid = sparseQueryVector(index, sparse, text, null, { ...sp, maxExpansionTerms: HYBRID_EXPANSION_TERMS });
    const [spsHybrid, spHybridMs] = timed(() => multiQuerySearch(index, q, svHybrid, sparseEngineOptions(svHybrid, { ...sp, heapFactor: HYBRID_SPARSE_HEAP_FACTOR }).heapFactor, DEFAULT_COMBINER, ftResult).result.hits.map((h) => h.id));
    const [hy, fuseMs] = timed(() => fuse(spsHybrid.filter((id) => nominated.has(id))));
    const hybridMs = ftMs + spHybridMs + embMs + dpMs + fuseMs;
    add('hybrid', hy, rels, hybridMs);
    // before ADR 0269: the vote's sub-queries pruned at the request's default heap_factor (0.85)
    const spsHybrid085 = multiQuerySearch(index, q, svHybrid, sparseEngineOptions(svHybrid, sp).heapFactor, DEFAULT_COMBINER, ftResult).result.hits.map((h) => h.id);
    add('hybrid (sparse vote at heap_factor 0.85: the previous build)', fuse(spsHybrid085.filter((id) => nominated.has(id))), rels, NaN);
    add('hybrid (8 expansion terms: the previous build)', fuse(sps.filter((id) => nominated.has(id))), rels, ftMs + spSharedMs + embMs + dpMs + fuseMs);
    // the same run's controls (issue 27): the sparse channel's own pruned pass (before), no sparse vote,
    // and the sparse channel as one weighted query
    add('hybrid (before ADR 0232: sparse runs its own pass, 8 expansion terms)', fuse(sps0.filter((id) => nominated.has(id))), rels, ftMs + spMs + embMs + dpMs + fuseMs);
    add('hybrid without the sparse vote (fulltext + short_document)', fuse([]), rels, ftMs + embMs + dpMs + fuseMs);
    add('hybrid (sparse as one weighted query)', fuse(sp1.filter((id) => nominated.has(id))), rels, ftMs + sp1Ms + embMs + dpMs + fuseMs);
    // fewer expansion terms (the strongest first): what each costs at 100k is in mode-cost-100k.json
    for (const keep of [1, 2, 4]) {
      const fewer = [...sv.filter((d) => d.own), ...sv.filter((d) => !d.own).slice(0, keep)];
      const [spk, spkMs] = timed(() => index.search({ ...q, ...sparseEngineOptions(fewer, sp) }).hits.map((h) => h.id));
      add(`hybrid (sparse as one weighted query, ${keep} expansion term${keep > 1 ? 's' : ''})`, fuse(spk.filter((id) => nominated.has(id))), rels, ftMs + spkMs + embMs + dpMs + fuseMs);
    }
    // issue 27 (ADR 0310-0312): the multi-query sparse vote with fewer expansion terms (the strongest first)
    for (const keep of [2, 4]) {
      const fewer = [...sv.filter((d) => d.own), ...sv.filter((d) => !d.own).slice(0, keep)];
      const spk = multiQuerySearch(index, q, fewer, sparseEngineOptions(fewer, sp).heapFactor, DEFAULT_COMBINER, ftResult).result.hits.map((h) => h.id);
      add(`hybrid (multi-query sparse vote, ${keep} expansion terms)`, fuse(spk.filter((id) => nominated.has(id))), rels, NaN);
    }
    // the expansion through the term-scan kernel (the service's) against the float scan over every term
    const svFloat = sparseQueryVector(index, sparseFloat, text, null, sp);
    scans.queries++;
    if (JSON.stringify(svFloat) === JSON.stringify(sv)) scans.identical++;
    add('hybrid (sparse_nomination on)', fuse(spsHybrid), rels, hybridMs);
    const nominatedQ = new Set([...ft, ...dpq]);
    add(`hybrid (dense quantized path forced, pool ${FORCED_POOL})`, fuse(spsHybrid.filter((id) => nominatedQ.has(id)), dpq), rels, NaN);
    add('hybrid with no model (= fulltext)', ft, rels, ftMs);
  }
  const modes: Record<string, ModeResult> = {};
  for (const [m, e] of acc) modes[m] = { ndcg10: e.n / n, recall100: e.r / n, zeroScoreShare: e.z / n, queryMsMean: e.ms / n };
  return {
    set: set.name,
    queries: n,
    documents: set.corpus.length,
    training: { analyseMs: t1 - t0, trainMs: t2 - t1, vectorizeMs: t4 - t3, indexMs: t3 - t2, stats },
    expansionTermScan: { kernel: scans.kernel, queries: scans.queries, identicalToFloatScan: scans.identical },
    modes,
  };
}

const only = arg('only');
const sets: IrSet[] = [];
if (!only || only === 'scifact') sets.push(loadIrSet(join(evalDataDir(), 'ir', 'scifact'), 'scifact-train', 'train'));
if (!only || only === 'cranfield') sets.push(loadIrSet(join(evalDataDir(), 'ir', 'cranfield'), 'cranfield', 'test'));
const load0 = loadavg()[0];
const results = sets.map(evaluate);
for (const r of results) {
  console.log(`${r.set} (${r.queries} q, ${r.documents} docs; analyse ${r.training.analyseMs.toFixed(0)} ms, train ${r.training.trainMs.toFixed(0)} ms, vectorize ${r.training.vectorizeMs.toFixed(0)} ms; expansion ${JSON.stringify(r.expansionTermScan)})`);
  for (const [m, v] of Object.entries(r.modes)) console.log(`  ${m.padEnd(36)} nDCG@10 ${v.ndcg10.toFixed(4)}  R@100 ${v.recall100.toFixed(4)}  zero ${(100 * v.zeroScoreShare).toFixed(1)}%  ${v.queryMsMean.toFixed(2)} ms/q`);
}
if (args.includes('--write')) {
  const out = {
    benchmark: 'quality-channels',
    note: 'Corpus-trained models (LSA + contrastive title/abstract fine-tuning) trained on each collection\'s own corpus (titles and abstracts only, no judgments). hybrid = weighted RRF as the search service runs it.',
    results,
    machine: { cpu: cpus()[0]?.model, cores: cpus().length, ramGiB: Math.round(totalmem() / 2 ** 30), node: process.version, loadAverage1mAtStart: load0, loadAverage1mAtEnd: loadavg()[0], shared: 'machine shared with other helpers; timings are indicative' },
  };
  writeFileSync(join(repoRoot, 'bench', 'results', arg('out') ?? 'quality-channels.json'), JSON.stringify(out, null, 2) + '\n');
}
