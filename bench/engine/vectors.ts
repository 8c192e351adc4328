// Speed of the corpus-trained models and the channels beyond words at scale (issue 15) on the synthetic
// corpus (shared/tools/synth-corpus): training time (analysis, SVD + contrastive fine-tuning), vector
// build time and bytes per document, and single-thread p50/p99 latency (top-10, after warm-up) of every
// mode over the workload's `or` queries, with hybrid's cost over fulltext. Fulltext is the peer measured
// in the same run. Usage:
//   node dist/bench/engine/vectors.js --corpus /tmp/synth-100k.jsonl [--limit 100000] [--epochs 8] [--out vectors-100k.json]
//     [--no-svd-timing] (train once) [--ivf-min-docs Infinity] (no IVF quantizer: skips the IVF sweep)
//     [--train-limit N] (train the corpus models on the first N documents only, encode all of them)
//     [--save DIR] (index on disk under DIR/index, models and build figures in DIR: for --reuse)
//     [--resume] (with --save: go on from the last commit of an interrupted build; commits every 100k)
//     [--reuse DIR] (no ingest, no training: open what --save wrote and run the query phase only)
//     [--no-sweeps] (skip the rescoring-pool and IVF recall sweeps)
//     [--dump DIR] (write the vectors for bench/engine/vector-kernel.ts)
// short_document runs method `auto` (the service's: exact up to EXACT_MAX_VECTORS eligible documents,
// above it the quantized prefilter + float rescoring, ADR 0103); its recall@10 against the exact scan is
// measured by rescoring pool, with the Hamming (`binary`) prefilter beside it. Latency rows give wall
// time and process CPU time (process.cpuUsage: user + system, all threads) per query.
import { createReadStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { autoRescorePool, CorpusModel, EXACT_MAX_VECTORS, fieldTerms, fuseRrf, MemoryIndexDirectory, SearchIndex, TrainingState, type IndexDirectory } from '../../src/engine/index.js';
import { FsIndexDirectory } from '../../src/adapters/fs/index-directory.js';
import { DEFAULT_HEAP_FACTOR, denseQueryVector, denseSearch, sparseEngineOptions, sparseQueryVector, withFeedback, type SparseParams } from '../../src/search/channels.js';
import { DEFAULT_RRF_K, DENSE_FEEDBACK_DOCS, DENSE_FEEDBACK_WEIGHT, DENSE_RRF_WEIGHT, SPARSE_RRF_WEIGHT } from '../../src/search/search-service.js';
import { DEFAULT_COMBINER, multiQuerySearch } from '../../src/search/multi-query.js';
import { repoRoot } from '../../test/helpers/paths.js';
import { machine } from '../lib/machine.js';
import { evalDataDir } from '../quality/data-dir.js';
import { args, arg, pct } from '../lib/cli.js';

const reuseDir = arg('reuse');
const saveDir = arg('save');
const corpus = arg('corpus') ?? (reuseDir ? '' : undefined)!;
if (corpus === undefined) throw new Error('--corpus FILE or --reuse DIR');
const limitDocs = Number(arg('limit', 'Infinity'));
const trainLimit = Number(arg('train-limit', 'Infinity'));
const epochs = arg('epochs') !== undefined ? Number(arg('epochs')) : undefined;
const ivfMinDocs = arg('ivf-min-docs') !== undefined ? Number(arg('ivf-min-docs')) : undefined;
const env = machine();

const workload = JSON.parse(readFileSync(join(evalDataDir(), '..', 'tools', 'synth-corpus', 'workload.json'), 'utf8')) as Record<string, { text: string }[]>;
const log = (m: string) => process.stderr.write(`${new Date().toISOString()} ${m}\n`);
const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const mib = (b: number) => Math.round(b / 2 ** 20);
const memory = () => {
  const m = process.memoryUsage();
  return { rssMiB: mib(m.rss), heapUsedMiB: mib(m.heapUsed), externalMiB: mib(m.external), arrayBuffersMiB: mib(m.arrayBuffers) };
};

/** Build figures: measured here, or read back from the --save run that built what --reuse opens. */
interface Build {
  corpus: { file: string; docs: number; seed: number };
  training: Record<string, unknown>;
  vectors: { buildMs: number; buildCpuMs: number; documentsWithVectors: number; dims: number; bytesPerDocument: number; vectorFileBytes: number };
  indexBuildMs: number;
  indexBuildCpuMs: number;
  ingestRuns?: number;
  memoryAfterBuild: ReturnType<typeof memory>;
  machine: Record<string, unknown>;
}

let idx: SearchIndex;
let dense: CorpusModel;
let sparse: CorpusModel;
let build: Build;
const ids: string[] = [];
const dirBytes = (d: IndexDirectory, pred: (n: string) => boolean) => d.list().filter(pred).reduce((s, n) => s + (d.read(n)?.byteLength ?? 0), 0);
if (reuseDir) {
  const t0 = performance.now();
  const dir = new FsIndexDirectory(join(reuseDir, 'index'));
  idx = SearchIndex.open(dir);
  dense = CorpusModel.parse(new Uint8Array(readFileSync(join(reuseDir, 'dense.model'))));
  sparse = CorpusModel.parse(new Uint8Array(readFileSync(join(reuseDir, 'sparse.model'))));
  build = JSON.parse(readFileSync(join(reuseDir, 'build.json'), 'utf8')) as Build;
  const computed = idx.setVectorModel({ id: 'bench', model: dense });
  if (computed !== 0) throw new Error(`--reuse: ${computed} segments had no vectors under the saved model`);
  log(`reused ${reuseDir}: ${build.corpus.docs} docs opened in ${(performance.now() - t0).toFixed(0)} ms`);
} else {
  // --save commits every 100k documents and records the ingest time so far: --resume (with the same
  // --save DIR) goes on from the last commit after an interrupted build, and the index time adds up
  const resume = args.includes('--resume');
  const commitEvery = Number(arg('commit-every', '100000'));
  if (saveDir && existsSync(join(saveDir, 'index')) && !resume) throw new Error(`--save: ${saveDir}/index exists (--resume to go on)`);
  const progressFile = saveDir ? join(saveDir, 'ingest-progress.json') : '';
  const dir: IndexDirectory = saveDir ? new FsIndexDirectory(join(saveDir, 'index')) : new MemoryIndexDirectory();
  idx = SearchIndex.open(dir);
  const state = new TrainingState();
  const done = idx.stats().docs;
  const progress = resume && existsSync(progressFile) ? (JSON.parse(readFileSync(progressFile, 'utf8')) as { docs: number; indexMs: number; indexCpuMs: number; runs: number }) : { docs: 0, indexMs: 0, indexCpuMs: 0, runs: 0 };
  if (progress.docs !== done) throw new Error(`--resume: the index holds ${done} documents, the progress file says ${progress.docs}`);
  if (done > 0) log(`resuming after ${done} committed documents`);
  let docs = 0;
  let indexMs = progress.indexMs;
  let indexCpuMs = progress.indexCpuMs;
  let analyseMs = 0;
  const rl = createInterface({ input: createReadStream(corpus, { highWaterMark: 1 << 22 }), crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line.trim()) continue;
    if (docs >= limitDocs) break;
    if (docs < done && docs >= trainLimit) {
      docs++;
      continue;
    }
    const d = JSON.parse(line) as { id: string; title: string; abstract?: string; body?: string; type?: string; issued_at?: number; language?: string };
    let t = performance.now();
    const c = cpuMs();
    if (docs >= done) {
      idx.add({ id: d.id, title: d.title, abstract: d.abstract ?? null, body: d.body ?? null, type: d.type ?? null, issuedAt: d.issued_at ?? null, language: d.language ?? 'en' });
      if (saveDir && (docs + 1) % commitEvery === 0) {
        idx.commit(`bench-${docs + 1}`);
        writeFileSync(progressFile, JSON.stringify({ docs: docs + 1, indexMs: indexMs + performance.now() - t, indexCpuMs: indexCpuMs + cpuMs() - c, runs: progress.runs + 1 }));
      }
    }
    indexMs += performance.now() - t;
    indexCpuMs += cpuMs() - c;
    if (docs < trainLimit) {
      t = performance.now();
      state.set(d.id, fieldTerms(d.title, d.abstract, d.language ?? 'en'));
      analyseMs += performance.now() - t;
    }
    docs++;
    if (args.includes('--dump')) ids.push(d.id);
    if (docs % 100_000 === 0) log(`${docs} docs (index ${(indexMs / 1000).toFixed(0)} s, rss ${memory().rssMiB} MiB)`);
  }
  let t = performance.now();
  let c = cpuMs();
  idx.commit('bench');
  indexMs += performance.now() - t;
  indexCpuMs += cpuMs() - c;
  log(`${docs} docs indexed (${indexMs.toFixed(0)} ms), ${state.documents} analysed for training (${analyseMs.toFixed(0)} ms)`);
  t = performance.now();
  const svdTiming = !args.includes('--no-svd-timing');
  if (svdTiming) state.train({ contrastiveEpochs: 0, ivfMinDocs: Infinity });
  const svdMs = svdTiming ? performance.now() - t : null;
  log(`SVD ${svdMs?.toFixed(0) ?? 'not timed separately'} ms`);
  t = performance.now();
  c = cpuMs();
  // IVF lists are trained on the training documents' vectors; by default the quantizer is built above
  // the size the service uses, judged on the whole corpus (the training sample may be smaller)
  const trained = state.train({ ...(epochs !== undefined ? { contrastiveEpochs: epochs } : {}), ...(ivfMinDocs !== undefined ? { ivfMinDocs } : {}) });
  dense = trained.dense;
  sparse = trained.sparse;
  const trainMs = performance.now() - t;
  const trainCpuMs = cpuMs() - c;
  log(`train (SVD + fine-tuning) ${trainMs.toFixed(0)} ms`);
  t = performance.now();
  c = cpuMs();
  idx.setVectorModel({ id: 'bench', model: dense });
  const vectorizeMs = performance.now() - t;
  const vectorizeCpuMs = cpuMs() - c;
  const vs = idx.vectorStatus();
  build = {
    corpus: { file: corpus, docs, seed: 7 },
    training: {
      documents: state.documents,
      sample: state.documents < docs ? `the first ${state.documents} documents of ${docs}; every document is encoded with the models trained on them` : 'all documents',
      analyseMs,
      svdOnlyMs: svdMs,
      svdAndFineTuningMs: trainMs,
      svdAndFineTuningCpuMs: trainCpuMs,
      contrastiveEpochs: epochs ?? 'default (8)',
      stats: trained.stats,
    },
    vectors: { buildMs: vectorizeMs, buildCpuMs: vectorizeCpuMs, documentsWithVectors: vs.documentsWithVectors, dims: dense.dims, bytesPerDocument: dense.dims * 4 + dense.dims / 8 + 1, vectorFileBytes: dirBytes(dir, (n) => n.includes('.vec-')) },
    indexBuildMs: indexMs,
    indexBuildCpuMs: indexCpuMs,
    ingestRuns: progress.runs + 1,
    memoryAfterBuild: memory(),
    machine: { ...env, load_average_1m_after_build: (await import('node:os')).loadavg()[0] },
  };
  log(`vectors ${vectorizeMs.toFixed(0)} ms; ${JSON.stringify(build.memoryAfterBuild)}`);
  if (saveDir) {
    writeFileSync(join(saveDir, 'dense.model'), dense.serialize());
    writeFileSync(join(saveDir, 'sparse.model'), sparse.serialize());
    writeFileSync(join(saveDir, 'build.json'), JSON.stringify(build, null, 2) + '\n');
    log(`saved to ${saveDir}`);
  }
}
// --dump DIR: the document vectors (segment order) and the workload's query vectors as raw Float32 files,
// for bench/engine/vector-kernel.ts (the dense search kernel alone, without training again)
const dumpDir = arg('dump');
if (dumpDir) {
  if (reuseDir) throw new Error('--dump needs a build run (document ids in corpus order)');
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
  hybrid: (text) => hybrid(text, undefined),
};
// hybrid with the previous (JavaScript) dense kernel, in the same run. `kernel: 'js'` per query:
// disableFastScan only stops new fast-scan blocks being built, and by this row every segment has them
modes['hybrid (js dense kernel: the previous path)'] = (text) => hybrid(text, 'js');
function hybrid(text: string, kernel: 'js' | undefined): number {
  const ft = idx.search({ text, limit: 10, passagesPerHit: 0 }).hits.map((h) => h.id);
  const sv = sparseQueryVector(idx, sparse, text, null, sp);
  const sps = multiQuerySearch(idx, { text, limit: 10, passagesPerHit: 0 }, sv, sparseEngineOptions(sv, sp).heapFactor, DEFAULT_COMBINER).result.hits.map((h) => h.id);
  const v = denseQueryVector(idx, dense, text, null);
  const dn = v ? denseSearch(idx, withFeedback(idx, v, ft.slice(0, DENSE_FEEDBACK_DOCS), DENSE_FEEDBACK_WEIGHT), 'auto', { limit: 10, passagesPerHit: 0, ...(kernel ? { kernel } : {}) }).hits.map((h) => h.id) : [];
  const nominated = new Set([...ft, ...dn]);
  return fuseRrf([{ channel: 'fulltext', ids: ft }, { channel: 'sparse', ids: sps.filter((id) => nominated.has(id)), weight: SPARSE_RRF_WEIGHT }, { channel: 'short_document', ids: dn, weight: DENSE_RRF_WEIGHT }], { k: DEFAULT_RRF_K }).length;
}
const latency: Record<string, { p50_ms: number; p99_ms: number; mean_ms: number; cpu_p50_ms: number; cpu_p99_ms: number; cpu_mean_ms: number }> = {};
for (const [mode, run] of Object.entries(modes)) {
  for (const q of queries.slice(0, 20)) run(q); // warm-up
  const times: number[] = [];
  const cpu: number[] = [];
  for (const q of queries) {
    const c = cpuMs();
    const s = performance.now();
    run(q);
    times.push(performance.now() - s);
    cpu.push(cpuMs() - c);
  }
  const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  latency[mode] = { p50_ms: pct(times, 50), p99_ms: pct(times, 99), mean_ms: mean(times), cpu_p50_ms: pct(cpu, 50), cpu_p99_ms: pct(cpu, 99), cpu_mean_ms: mean(cpu) };
  log(`${mode}: p50 ${latency[mode]!.p50_ms.toFixed(2)} ms, p99 ${latency[mode]!.p99_ms.toFixed(2)} ms (cpu p50 ${latency[mode]!.cpu_p50_ms.toFixed(2)} ms), load ${(await import('node:os')).loadavg()[0]!.toFixed(2)}`);
}
const memoryAfterQueries = memory();
const sweeps = !args.includes('--no-sweeps');
// the service's default pool for the 10 + 1 hits it asks for, over every document with a vector (ADR 0160)
const defaultPool = autoRescorePool(11, idx.vectorStatus().documentsWithVectors);
const qvs = queries.map((q) => denseQueryVector(idx, dense, q, null)).filter((v): v is Float32Array => v !== null);
const truth = !sweeps ? [] : qvs.map((v) => new Set(idx.searchVectors({ vector: v, method: 'exact', limit: 10, passagesPerHit: 0 }).hits.map((h) => h.id)));
// the prefilters' recall@10 against the exact scan, by candidates rescored
const prefilter: Record<string, { recallAt10: number; p50_ms: number; p99_ms: number }> = {};
for (const method of sweeps ? (['auto', 'binary'] as const) : []) {
  for (const rescore of [250, 500, 1000, 2000, 4000, 6000, 8000, 12000]) {
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
if (sweeps) {
  // the service default pool (autoRescorePool(11, eligible): limit 10 + 1, ADR 0160), with its latency
  let hit = 0;
  let total = 0;
  const times: number[] = [];
  const cpu: number[] = [];
  let rescored = 0;
  qvs.forEach((v, i) => {
    const c = cpuMs();
    const s = performance.now();
    const r = idx.searchVectors({ vector: v, method: 'auto', limit: 10, passagesPerHit: 0 });
    times.push(performance.now() - s);
    cpu.push(cpuMs() - c);
    rescored += r.rescored;
    for (const h of r.hits) if (truth[i]!.has(h.id)) hit++;
    total += truth[i]!.size;
  });
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  prefilter[`quantized (auto), default pool ${defaultPool}`] = { recallAt10: hit / total, p50_ms: pct(times, 50), p99_ms: pct(times, 99), cpu_p50_ms: pct(cpu, 50), meanRescored: rescored / qvs.length } as (typeof prefilter)[string];
  log(`auto default pool ${defaultPool}: recall@10 ${(hit / total).toFixed(4)}, p50 ${pct(times, 50).toFixed(2)} ms, mean rescored ${(rescored / qvs.length).toFixed(0)}`);
}
// IVF recall@10 against the exact scan, by lists probed
const recall: Record<string, { recallAt10: number; meanScanned: number; p50_ms: number }> = {};
for (const nprobe of dense.centroids === null || !sweeps ? [] : [4, 8, 16, 24, 32, 48, 64, 96]) {
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
  ...(reuseDir ? { reused: `query phase run on ${reuseDir} (built ${String(build.machine['date'])}); build figures are that run's` } : {}),
  corpus: build.corpus,
  training: build.training,
  vectors: build.vectors,
  indexBuildMs: build.indexBuildMs,
  indexBuildCpuMs: build.indexBuildCpuMs,
  ingestRuns: build.ingestRuns,
  index: { directory: reuseDir || saveDir ? 'FsIndexDirectory (files read into memory)' : 'MemoryIndexDirectory', segments: idx.vectorStatus().segments, merged: false },
  latency,
  shortDocument: { exactMaxVectors: EXACT_MAX_VECTORS, defaultPool, defaultPoolRule: 'max(100 k, 2000) x max(1, N / 250000), N eligible vectors (ADR 0160)', recallVsExact: prefilter },
  ivf: { lists: (dense.centroids?.length ?? 0) / dense.dims, defaultNprobe: 24, recallVsExact: recall },
  hybridOverFulltext: { p50: latency['hybrid']!.p50_ms / latency['fulltext']!.p50_ms, p99: latency['hybrid']!.p99_ms / latency['fulltext']!.p99_ms, cpu_p50: latency['hybrid']!.cpu_p50_ms / latency['fulltext']!.cpu_p50_ms },
  memory: { afterBuild: build.memoryAfterBuild, afterQueries: memoryAfterQueries, maxRssMiB: Math.round(process.resourceUsage().maxRSS / 1024) },
  notes: `Single thread, top-10, workload class \`or\` (${queries.length} queries), after a 20-query warm-up; cpu_* columns: process CPU time per query. The service short_document is method \`auto\` (ADR 0103) with the fast-scan kernel (ADR 0140); the \`js dense kernel\` row runs the previous JavaScript grading and rescoring in the same run; recall rows are against the exact scan; the IVF rows measure the approximate index (ADR 0101). Segments as flushed (no merging).`,
  buildMachine: build.machine,
  machine: { ...env, load_average_1m_at_end: (await import('node:os')).loadavg()[0] },
};
const name = arg('out');
if (name) writeFileSync(join(repoRoot, 'bench', 'results', name), JSON.stringify(out, null, 2) + '\n');
console.log(JSON.stringify(out, null, 2));
