// What each search mode costs at 100k documents (issue 27): server-side engine time per mode as the
// search service composes its channels (src/search/search-service.ts #channels: the same engine query
// with passages, exact totals and work-key collapse; the sparse channel's multi-query evaluation sharing
// fulltext's pass; the dense channel with feedback; weighted RRF), interleaved query by query so every
// mode sees the same machine minute by minute, wall and CPU time per query. The "previous build" rows
// run the float scan over every expansion term (ADR 0310's kernel off: the same terms) and take the
// sparse passages at once (ADR 0311 off), as the A/B in the same run. Reuses an index and models saved
// by bench/engine/vectors.ts --save DIR.
// The "float pool rescoring" rows switch ADR 0314's 8-bit pass off (the previous build's dense channel).
// The "sparse vote at heap_factor 0.85" row is hybrid before ADR 0269 (its vote now exact).
//   node dist/bench/engine/mode-cost.js --reuse tmp/retr-100k [--queries 200] [--rounds 3] [--modes hybrid,sparse] [--out mode-cost-100k.json]
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { CorpusModel, fuseRrf, SearchIndex, type EngineQuery, type EngineResult } from '../../src/engine/index.js';
import { FsIndexDirectory } from '../../src/adapters/fs/index-directory.js';
import { DEFAULT_HEAP_FACTOR, HYBRID_EXPANSION_TERMS, HYBRID_SPARSE_HEAP_FACTOR, denseQueryVector, denseSearch, sparseEngineOptions, sparseQueryVector, withFeedback, type SparseDim, type SparseParams } from '../../src/search/channels.js';
import { DEFAULT_RRF_K, DENSE_FEEDBACK_DOCS, DENSE_FEEDBACK_WEIGHT, DENSE_RRF_WEIGHT, SPARSE_RRF_WEIGHT } from '../../src/search/search-service.js';
import { DEFAULT_COMBINER, multiQuerySearch, passagesFor } from '../../src/search/multi-query.js';
import { repoRoot } from '../../test/helpers/paths.js';
import { machine } from '../lib/machine.js';
import { evalDataDir } from '../quality/data-dir.js';
import { arg, pct } from '../lib/cli.js';
import { disableInt8Rescore } from '../../src/engine/fast-scan.js';

function withoutInt8<T>(f: () => T): T {
  disableInt8Rescore(true);
  try {
    return f();
  } finally {
    disableInt8Rescore(false);
  }
}

const dir = arg('reuse')!;
const nQueries = Number(arg('queries', '200'));
const rounds = Number(arg('rounds', '3'));
const env = machine();
const idx = SearchIndex.open(new FsIndexDirectory(join(dir, 'index')));
const dense = CorpusModel.parse(new Uint8Array(readFileSync(join(dir, 'dense.model'))));
const sparse = CorpusModel.parse(new Uint8Array(readFileSync(join(dir, 'sparse.model'))));
idx.setVectorModel({ id: 'bench', model: dense });
const workload = JSON.parse(readFileSync(join(evalDataDir(), '..', 'tools', 'synth-corpus', 'workload.json'), 'utf8')) as Record<string, { text: string }[]>;
const queries = workload['or']!.map((q) => q.text).slice(0, nQueries);
const sp: SparseParams = { maxQueryDims: 0, weightThreshold: 0, pruning: null, heapFactor: DEFAULT_HEAP_FACTOR };
const spHybrid: SparseParams = { ...sp, maxExpansionTerms: HYBRID_EXPANSION_TERMS };
const nulls = { types: null, languages: null, issns: null, publisher: null, issuedAfter: null, issuedBefore: null, uriPrefixes: null, citing: null };
// the service's engine query of a 10-hit page (default budget: 10,000 / 10 results -> every word)
const base = (text: string): EngineQuery => ({ text, possibleLanguages: null, rankingMode: 'auto', limit: 10, offset: 0, phraseBoost: 1, lexicalWeight: 1, collapseByWorkKey: true, exactTotal: true, passagesPerHit: 3, explain: false, trace: false, filters: nulls, budget: { maxTerms: 256, maxPostings: 5_000_000 }, maxPassageTerms: 1000 });

/** The sparse model with the float scan over every expansion term (the previous build's; the same terms: ADR 0310). */
const sparseFloatScan = Object.assign(Object.create(sparse) as CorpusModel, {
  embed: sparse.embed.bind(sparse),
  nearestTerms: (q: Float32Array, max: number, min: number, ex: ReadonlySet<string>) => sparse.nearestTerms(q, max, min, ex, 'exact'),
});

/** Hybrid's sparse vote nominates nothing: passages for sub-query-only hits the dense list also has (ADR 0311). */
// `heapFactor`: the vote's (ADR 0269: exact, HYBRID_SPARSE_HEAP_FACTOR; the previous build: the request's 0.85)
const sparseHybrid = (q: EngineQuery, shared: EngineResult, dn: EngineResult | null, model: CorpusModel = sparse, dims?: SparseDim[], heapFactor = HYBRID_SPARSE_HEAP_FACTOR) => {
  const d = dims ?? sparseQueryVector(idx, model, q.text!, null, sp);
  const run = multiQuerySearch(idx, q, d, sparseEngineOptions(d, { ...sp, heapFactor }).heapFactor, DEFAULT_COMBINER, shared, true);
  if (run.deferred) void passagesFor(run.deferred, q, new Set((dn?.hits ?? []).map((h) => h.id)), (x) => idx.search(x));
  return run.result;
};
const sparseAlone = (q: EngineQuery, model: CorpusModel = sparse) => {
  const dims = sparseQueryVector(idx, model, q.text!, null, sp);
  return multiQuerySearch(idx, q, dims, sparseEngineOptions(dims, sp).heapFactor, DEFAULT_COMBINER, null).result;
};
const denseRun = (q: EngineQuery, feedback: EngineResult | null) => {
  let v = denseQueryVector(idx, dense, q.text!, null);
  if (v && feedback) v = withFeedback(idx, v, feedback.hits.slice(0, DENSE_FEEDBACK_DOCS).map((h) => h.id), DENSE_FEEDBACK_WEIGHT);
  return v ? denseSearch(idx, v, 'auto', { limit: 10, filters: nulls, collapseByWorkKey: true, passagesPerHit: 3 }) : null;
};
const fuse = (ft: EngineResult, sps: EngineResult, dn: EngineResult | null) => {
  const nominated = new Set([...ft.hits, ...(dn?.hits ?? [])].map((h) => h.id));
  return fuseRrf([{ channel: 'fulltext', ids: ft.hits.map((h) => h.id) }, { channel: 'sparse', ids: sps.hits.map((h) => h.id).filter((id) => nominated.has(id)), weight: SPARSE_RRF_WEIGHT }, { channel: 'short_document', ids: (dn?.hits ?? []).map((h) => h.id), weight: DENSE_RRF_WEIGHT }], { k: DEFAULT_RRF_K });
};

const modes: Record<string, (text: string) => unknown> = {
  fulltext: (t) => idx.search(base(t)),
  sparse: (t) => sparseAlone(base(t)),
  short_document: (t) => denseRun(base(t), null),
  binary: (t) => {
    const v = denseQueryVector(idx, dense, t, null);
    return v ? denseSearch(idx, v, 'binary', { limit: 10, filters: nulls, collapseByWorkKey: true, passagesPerHit: 3 }) : null;
  },
  // the service's order: fulltext, the dense channel (fed back from fulltext), the sparse vote with the
  // 4 strongest expansion terms (ADR 0312), its passages deferred (ADR 0311)
  hybrid: (t) => {
    const q = base(t);
    const ft = idx.search(q);
    const dn = denseRun(q, ft);
    return fuse(ft, sparseHybrid(q, ft, dn, sparse, sparseQueryVector(idx, sparse, t, null, spHybrid)), dn);
  },
  // the previous build (ADR 0269): the sparse vote's sub-queries pruned at the request's heap_factor 0.85
  'hybrid (sparse vote at heap_factor 0.85: the previous build)': (t) => {
    const q = base(t);
    const ft = idx.search(q);
    const dn = denseRun(q, ft);
    return fuse(ft, sparseHybrid(q, ft, dn, sparse, sparseQueryVector(idx, sparse, t, null, spHybrid), DEFAULT_HEAP_FACTOR), dn);
  },
  // the previous build (ADR 0312): the dense pool rescored with the float rows (ADR 0314 off)
  'short_document (float pool rescoring: the previous build)': (t) => withoutInt8(() => denseRun(base(t), null)),
  'hybrid (float pool rescoring: the previous build)': (t) => withoutInt8(() => modes['hybrid']!(t)),
  'hybrid without the sparse vote': (t) => {
    const q = base(t);
    const ft = idx.search(q);
    return fuse(ft, { ...ft, hits: [] }, denseRun(q, ft));
  },
};
// --modes a,b,c: only these names (fulltext always, the ratios' base)
const only = arg('modes')?.split(',');
const names = Object.keys(modes).filter((m) => !only || m === 'fulltext' || only.includes(m));
// memory of the 8-bit rows (ADR 0314) per search thread, over the index's segments
const int8Bytes = idx.snapshotVectorMemory();
for (const q of queries.slice(0, 10)) for (const m of names) modes[m]!(q); // warm-up
const times = new Map<string, number[]>(names.map((m) => [m, []]));
const cpuTimes = new Map<string, number[]>(names.map((m) => [m, []]));
const loadStart = loadavg()[0]!;
for (let round = 0; round < rounds; round++)
  queries.forEach((q, i) => {
    // rotate the order so no mode always runs first (caches) or last
    for (let k = 0; k < names.length; k++) {
      const m = names[(i + k + round) % names.length]!;
      const c = process.cpuUsage();
      const t = performance.now();
      modes[m]!(q);
      const wall = performance.now() - t;
      const cu = process.cpuUsage(c);
      times.get(m)!.push(wall);
      cpuTimes.get(m)!.push((cu.user + cu.system) / 1000);
    }
  });
const latency: Record<string, { p50_ms: number; p99_ms: number; mean_ms: number; x_fulltext_p50: number; cpu_p50_ms: number; cpu_mean_ms: number; x_fulltext_cpu_mean: number }> = {};
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const ft50 = pct(sorted(times.get('fulltext')!), 50);
const ftCpu = mean(cpuTimes.get('fulltext')!);
for (const [m, ts] of times) {
  const s = sorted(ts);
  const cs = cpuTimes.get(m)!;
  latency[m] = { p50_ms: pct(s, 50), p99_ms: pct(s, 99), mean_ms: mean(s), x_fulltext_p50: pct(s, 50) / ft50, cpu_p50_ms: pct(sorted(cs), 50), cpu_mean_ms: mean(cs), x_fulltext_cpu_mean: mean(cs) / ftCpu };
}
for (const [m, l] of Object.entries(latency)) console.log(`${m.padEnd(72)} p50 ${l.p50_ms.toFixed(2)} ms  p99 ${l.p99_ms.toFixed(2)} ms  ${l.x_fulltext_p50.toFixed(1)}x | cpu p50 ${l.cpu_p50_ms.toFixed(2)} mean ${l.cpu_mean_ms.toFixed(2)} ms  ${l.x_fulltext_cpu_mean.toFixed(2)}x fulltext`);
const out = {
  benchmark: 'mode-cost',
  note: 'Engine time per search mode as the search service composes its channels (10 hits, 3 passages each, exact totals, work-key collapse), the workload\'s "or" queries interleaved mode by mode (each query runs every mode, the order rotated), over several rounds. Wall time and process CPU time (process.cpuUsage, user + system) per query; on the loaded shared machine the CPU columns are what to read (x_fulltext_cpu_mean: mean CPU time over fulltext\'s). Corpus models trained on the first 10,000 documents (SVD, no fine-tuning: bench/engine/vectors.ts --train-limit 10000 --epochs 0); every document encoded with them. Engine time only: the server adds the same record loading, snippets and JSON to every mode.',
  corpus: { docs: idx.stats().docs, segments: 'as flushed by bench/engine/vectors.ts --save (not merged)', source: '/work/shared/tools/synth-corpus seed 7 (100k)' },
  queries: queries.length,
  rounds,
  latency,
  dense_int8_rows: { ...int8Bytes, note: 'the 8-bit rows of ADR 0314 (dims bytes + 8 bytes of scale and bound per document) and the fast-scan memory they live in, per search thread, over the whole index' },
  machine: { ...env, load_average_1m_at_start: loadStart, load_average_1m_at_end: Math.round(loadavg()[0]! * 100) / 100, shared: 'machine shared with other helpers (load average above); wall times are indicative, read the CPU columns' },
};
const name = arg('out');
if (name) writeFileSync(join(repoRoot, 'bench', 'results', name), JSON.stringify(out, null, 2) + '\n');
