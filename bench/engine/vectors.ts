// Speed of the corpus-trained models and the channels beyond words at scale (issue 15) on the synthetic
// corpus (shared/tools/synth-corpus): training time (analysis, SVD + contrastive fine-tuning), vector
// build time and bytes per document, and single-thread p50/p99 latency (top-10, after warm-up) of every
// mode over the workload's `or` queries, with hybrid's cost over fulltext. Fulltext is the peer measured
// in the same run. Usage:
//   node dist/bench/engine/vectors.js --corpus /tmp/synth-100k.jsonl [--limit 100000] [--epochs 8] [--out vectors-100k.json]
//     [--no-svd-timing] (train once) [--ivf-min-docs Infinity] (no IVF quantizer: skips the IVF sweep)
//     [--dump DIR] (write the vectors for bench/engine/vector-kernel.ts)
// short_document runs method `auto` (the service's: exact up to EXACT_MAX_VECTORS eligible documents,
// above it the quantized prefilter + float rescoring, ADR 0103); its recall@10 against the exact scan is
// measured by rescoring pool, with the Hamming (`binary`) prefilter beside it.
import { createReadStream, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { autoRescorePool, EXACT_MAX_VECTORS, fieldTerms, fuseRrf, MemoryIndexDirectory, SearchIndex, TrainingState } from '../../src/engine/index.js';
import { disableFastScan } from '../../src/engine/fast-scan.js';
import { DEFAULT_HEAP_FACTOR, denseQueryVector, denseSearch, sparseEngineOptions, sparseQueryVector, withFeedback, type SparseParams } from '../../src/search/channels.js';
import { DEFAULT_RRF_K, DENSE_FEEDBACK_DOCS, DENSE_FEEDBACK_WEIGHT, DENSE_RRF_WEIGHT, SPARSE_RRF_WEIGHT } from '../../src/search/search-service.js';
import { DEFAULT_COMBINER, multiQuerySearch } from '../../src/search/multi-query.js';
import { repoRoot } from '../../test/helpers/paths.js';
import { machine } from '../lib/machine.js';
import { evalDataDir } from '../quality/data-dir.js';

const args = process.argv.slice(2);
const arg = (name: string, d?: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : d;
};
const corpus = arg('corpus')!;
const limitDocs = Number(arg('limit', 'Infinity'));
const epochs = arg('epochs') !== undefined ? Number(arg('epochs')) : undefined;
const ivfMinDocs = arg('ivf-min-docs') !== undefined ? Number(arg('ivf-min-docs')) : undefined;
const env = machine();

const workload = JSON.parse(readFileSync(join(evalDataDir(), '..', 'tools', 'synth-corpus', 'workload.json'), 'utf8')) as Record<string, { text: string }[]>;
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const log = (m: string) => process.stderr.write(`${new Date().toISOString()} ${m}\n`);

const idx = SearchIndex.open(new MemoryIndexDirectory());
const state = new TrainingState();
let docs = 0;
const ids: string[] = [];
let indexMs = 0;
let analyseMs = 0;
const rl = createInterface({ input: createReadStream(corpus, { highWaterMark: 1 << 22 }), crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  if (docs >= limitDocs) break;
  const d = JSON.parse(line) as { id: string; title: string; abstract?: string; body?: string; type?: string; issued_at?: number; language?: string };
  let t = performance.now();
  idx.add({ id: d.id, title: d.title, abstract: d.abstract ?? null, body: d.body ?? null, type: d.type ?? null, issuedAt: d.issued_at ?? null, language: d.language ?? 'en' });
  indexMs += performance.now() - t;
  t = performance.now();
  state.set(d.id, fieldTerms(d.title, d.abstract, d.language ?? 'en'));
  analyseMs += performance.now() - t;
  docs++;
  ids.push(d.id);
}
let t = performance.now();
idx.commit('bench');
indexMs += performance.now() - t;
log(`${docs} docs indexed (${indexMs.toFixed(0)} ms), analysed for training (${analyseMs.toFixed(0)} ms)`);
t = performance.now();
const svdTiming = !args.includes('--no-svd-timing');
if (svdTiming) state.train({ contrastiveEpochs: 0, ivfMinDocs: Infinity });
const svdMs = svdTiming ? performance.now() - t : null;
log(`SVD ${svdMs?.toFixed(0) ?? 'not timed separately'} ms`);
t = performance.now();
const { dense, sparse, stats } = state.train({ ...(epochs !== undefined ? { contrastiveEpochs: epochs } : {}), ...(ivfMinDocs !== undefined ? { ivfMinDocs } : {}) });
const trainMs = performance.now() - t;
log(`train (SVD + fine-tuning) ${trainMs.toFixed(0)} ms`);
t = performance.now();
idx.setVectorModel({ id: 'bench', model: dense });
const vectorizeMs = performance.now() - t;
// --dump DIR: the document vectors (ids order) and the workload's query vectors as raw Float32 files,
// for bench/engine/vector-kernel.ts (the dense search kernel alone, without training again)
const dumpDir = arg('dump');
if (dumpDir) {
  const dv = new Float32Array(ids.length * dense.dims);
  ids.forEach((id, i) => {
    const v = idx.documentVector(id);
    if (v) dv.set(v, i * dense.dims);
  });
  const qv = (workload['or'] ?? []).map((q) => denseQueryVector(idx, dense, q.text, null)).filter((v): v is Float32Array => v !== null);
  const qa = new Float32Array(qv.length * dense.dims);
  qv.forEach((v, i) => qa.set(v, i * dense.dims));
  writeFileSync(join(dumpDir, 'docs.f32'), new Uint8Array(dv.buffer));
  writeFileSync(join(dumpDir, 'queries.f32'), new Uint8Array(qa.buffer));
  log(`dumped ${ids.length} document and ${qv.length} query vectors to ${dumpDir}`);
}
const vs = idx.vectorStatus();
const vectorBytes = dense.dims * 4 + dense.dims / 8 + 1;
log(`vectors ${vectorizeMs.toFixed(0)} ms`);

const sp: SparseParams = { maxQueryDims: 0, weightThreshold: 0, pruning: null, heapFactor: DEFAULT_HEAP_FACTOR };
const queryFile = arg('queries');
const queries = queryFile
  ? readFileSync(queryFile, 'utf8').split('\n').filter((l) => l.trim()).map((l) => (JSON.parse(l) as { text: string }).text).slice(0, 300)
  : workload['or']!.map((q) => q.text);
const modes: Record<string, (text: string) => number> = {
  fulltext: (text) => idx.search({ text, limit: 10, passagesPerHit: 0 }).hits.length,
  // as the service runs it: multi-query with the default combiner (ADR 0107)
  sparse: (text) => {
    const v = sparseQueryVector(idx, sparse, text, null, sp);
    return multiQuerySearch(idx, { text, limit: 10, passagesPerHit: 0 }, v, sparseEngineOptions(v, sp).heapFactor, DEFAULT_COMBINER).result.hits.length;
  },
  'short_document (auto: quantized prefilter + float rescoring; the service)': (text) => {
    const v = denseQueryVector(idx, dense, text, null);
    return v ? denseSearch(idx, v, 'auto', { limit: 10, passagesPerHit: 0 }).hits.length : 0;
  },
  // the same with ADR 0103's JavaScript grading and rescoring instead of the fast-scan kernel (ADR 0140)
  'short_document (auto, js kernel: the previous path)': (text) => {
    const v = denseQueryVector(idx, dense, text, null);
    return v ? denseSearch(idx, v, 'auto', { limit: 10, passagesPerHit: 0, kernel: 'js' }).hits.length : 0;
  },
  'short_document (exact scan)': (text) => {
    const v = denseQueryVector(idx, dense, text, null);
    return v ? denseSearch(idx, v, 'exact', { limit: 10, passagesPerHit: 0 }).hits.length : 0;
  },
  'short_document (IVF, nprobe 24; not the service default)': (text) => {
    const v = denseQueryVector(idx, dense, text, null);
    return v ? denseSearch(idx, v, 'ivf', { limit: 10, passagesPerHit: 0 }).hits.length : 0;
  },
  binary: (text) => {
    const v = denseQueryVector(idx, dense, text, null);
    return v ? denseSearch(idx, v, 'binary', { limit: 10, passagesPerHit: 0 }).hits.length : 0;
  },
  hybrid: (text) => {
    const ft = idx.search({ text, limit: 10, passagesPerHit: 0 }).hits.map((h) => h.id);
    const sv = sparseQueryVector(idx, sparse, text, null, sp);
    const sps = multiQuerySearch(idx, { text, limit: 10, passagesPerHit: 0 }, sv, sparseEngineOptions(sv, sp).heapFactor, DEFAULT_COMBINER).result.hits.map((h) => h.id);
    const v = denseQueryVector(idx, dense, text, null);
    const dn = v ? denseSearch(idx, withFeedback(idx, v, ft.slice(0, DENSE_FEEDBACK_DOCS), DENSE_FEEDBACK_WEIGHT), 'auto', { limit: 10, passagesPerHit: 0 }).hits.map((h) => h.id) : [];
    const nominated = new Set([...ft, ...dn]);
    return fuseRrf([{ channel: 'fulltext', ids: ft }, { channel: 'sparse', ids: sps.filter((id) => nominated.has(id)), weight: SPARSE_RRF_WEIGHT }, { channel: 'short_document', ids: dn, weight: DENSE_RRF_WEIGHT }], { k: DEFAULT_RRF_K }).length;
  },
};
// hybrid with the previous (JavaScript) dense kernel, in the same run
modes['hybrid (js dense kernel: the previous path)'] = (text) => {
  disableFastScan(true);
  try {
    return modes['hybrid']!(text);
  } finally {
    disableFastScan(false);
  }
};
const latency: Record<string, { p50_ms: number; p99_ms: number; mean_ms: number; cpu_ms_per_query: number }> = {};
for (const [mode, run] of Object.entries(modes)) {
  for (const q of queries.slice(0, 20)) run(q); // warm-up
  const times: number[] = [];
  const c0 = process.cpuUsage();
  for (const q of queries) {
    const s = performance.now();
    run(q);
    times.push(performance.now() - s);
  }
  const c = process.cpuUsage(c0);
  times.sort((a, b) => a - b);
  latency[mode] = { p50_ms: pct(times, 50), p99_ms: pct(times, 99), mean_ms: times.reduce((a, b) => a + b, 0) / times.length, cpu_ms_per_query: (c.user + c.system) / 1000 / times.length };
  log(`${mode}: p50 ${latency[mode]!.p50_ms.toFixed(2)} ms, p99 ${latency[mode]!.p99_ms.toFixed(2)} ms, cpu ${latency[mode]!.cpu_ms_per_query.toFixed(2)} ms/q`);
}
const qvs = queries.map((q) => denseQueryVector(idx, dense, q, null)).filter((v): v is Float32Array => v !== null);
const truth = qvs.map((v) => new Set(idx.searchVectors({ vector: v, method: 'exact', limit: 10, passagesPerHit: 0 }).hits.map((h) => h.id)));
// the prefilters' recall@10 against the exact scan, by candidates rescored
const prefilter: Record<string, { recallAt10: number; p50_ms: number; p99_ms: number }> = {};
for (const method of ['auto', 'binary'] as const) {
  for (const rescore of [250, 500, 1000, 2000, 4000]) {
    let hit = 0;
    let total = 0;
    const times: number[] = [];
    qvs.forEach((v, i) => {
      const s = performance.now();
      const r = idx.searchVectors({ vector: v, method, limit: 10, passagesPerHit: 0, rescore });
      times.push(performance.now() - s);
      for (const h of r.hits) if (truth[i]!.has(h.id)) hit++;
      total += truth[i]!.size;
    });
    times.sort((a, b) => a - b);
    const key = `${method === 'auto' ? 'quantized (auto)' : 'binary (Hamming)'}, rescore ${rescore}`;
    prefilter[key] = { recallAt10: hit / total, p50_ms: pct(times, 50), p99_ms: pct(times, 99) };
    log(`${key}: recall@10 ${(hit / total).toFixed(4)}, p50 ${pct(times, 50).toFixed(2)} ms`);
  }
}
{
  // the service default pool (autoRescorePool(11): limit 10 + 1)
  let hit = 0;
  let total = 0;
  qvs.forEach((v, i) => {
    for (const h of idx.searchVectors({ vector: v, method: 'auto', limit: 10, passagesPerHit: 0 }).hits) if (truth[i]!.has(h.id)) hit++;
    total += truth[i]!.size;
  });
  prefilter[`quantized (auto), default pool ${autoRescorePool(11)}`] = { ...prefilter[`quantized (auto), default pool ${autoRescorePool(11)}`]!, recallAt10: hit / total };
  log(`auto default pool: recall@10 ${(hit / total).toFixed(4)}`);
}
// IVF recall@10 against the exact scan, by lists probed
const recall: Record<string, { recallAt10: number; meanScanned: number; p50_ms: number }> = {};
for (const nprobe of dense.centroids === null ? [] : [4, 8, 16, 24, 32, 48, 64, 96]) {
  let hit = 0;
  let total = 0;
  let scanned = 0;
  const times: number[] = [];
  qvs.forEach((v, i) => {
    const s = performance.now();
    const r = idx.searchVectors({ vector: v, method: 'ivf', limit: 10, passagesPerHit: 0, nprobe });
    times.push(performance.now() - s);
    scanned += r.scanned;
    for (const h of r.hits) if (truth[i]!.has(h.id)) hit++;
    total += truth[i]!.size;
  });
  times.sort((a, b) => a - b);
  recall[`nprobe ${nprobe}`] = { recallAt10: hit / total, meanScanned: scanned / qvs.length, p50_ms: pct(times, 50) };
  log(`IVF nprobe ${nprobe}: recall@10 ${(hit / total).toFixed(4)}, scanned ${(scanned / qvs.length).toFixed(0)}, p50 ${pct(times, 50).toFixed(2)} ms`);
}
const out = {
  benchmark: 'vectors',
  corpus: { file: corpus, docs, seed: 7 },
  training: { analyseMs, svdOnlyMs: svdMs, svdAndFineTuningMs: trainMs, contrastiveEpochs: epochs ?? 'default (8)', stats },
  vectors: { buildMs: vectorizeMs, documentsWithVectors: vs.documentsWithVectors, dims: dense.dims, bytesPerDocument: vectorBytes },
  indexBuildMs: indexMs,
  latency,
  shortDocument: { exactMaxVectors: EXACT_MAX_VECTORS, defaultPool: autoRescorePool(11), recallVsExact: prefilter },
  ivf: { lists: (dense.centroids?.length ?? 0) / dense.dims, defaultNprobe: 24, recallVsExact: recall },
  hybridOverFulltext: { p50: latency['hybrid']!.p50_ms / latency['fulltext']!.p50_ms, p99: latency['hybrid']!.p99_ms / latency['fulltext']!.p99_ms },
  notes: 'Single thread, top-10, workload class `or` (200 queries), after a 20-query warm-up; MemoryIndexDirectory (no disk). The service short_document is method `auto` (ADR 0103) with the fast-scan kernel (ADR 0140); the `js kernel` rows run the previous JavaScript grading and rescoring in the same run; cpu_ms_per_query is process CPU time (process.cpuUsage) over the timed queries; recall rows are against the exact scan; the IVF rows measure the approximate index (ADR 0101).',
  machine: { ...env, load_average_1m_at_end: (await import('node:os')).loadavg()[0] },
};
const name = arg('out');
if (name) writeFileSync(join(repoRoot, 'bench', 'results', name), JSON.stringify(out, null, 2) + '\n');
console.log(JSON.stringify(out, null, 2));
