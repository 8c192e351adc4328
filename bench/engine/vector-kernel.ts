// The dense search kernel alone (engine/doc-vectors.ts searchVectors) at 100k documents: the vectors a
// run of bench/engine/vectors.ts dumped (--dump DIR: the trained model's document vectors and the `or`
// workload's query vectors), in one segment, searched by `auto` at its default pool and smaller ones
// with the WebAssembly fast-scan grading kernel (ADR 0140) and with the JavaScript float-table kernel
// (ADR 0103) in the same run, binary (Hamming) on both kernels (ADR 0161) and exact, single thread, after two warm-up passes; recall@10
// against the exact scan, wall p50/p99 and CPU time per query (process.cpuUsage: less sensitive to other
// processes than wall time on a shared machine). Query embedding is not included (the corpus model's is
// a sum of term vectors). Variants run interleaved over --rounds rounds (default 3) so that load changes
// touch them alike; p50/p99 are over every round.
//   node dist/bench/engine/vector-kernel.js --dir /tmp/vec-dump [--out vector-kernel-100k.json]
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { SegmentVectors } from '../../src/engine/index.js';
import { searchVectors, autoRescorePool, type VectorSearchOptions, type VectorSegment } from '../../src/engine/doc-vectors.js';
import type { Segment } from '../../src/engine/segment.js';
import { repoRoot } from '../../test/helpers/paths.js';
import { machine } from '../lib/machine.js';
import { arg } from '../lib/cli.js';

const dir = arg('dir') ?? '/tmp/vec-dump';
const dims = 128;
const env = machine();
const read = (f: string) => {
  const b = readFileSync(join(dir, f));
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
};
const D = read('docs.f32');
const Q = read('queries.f32');
const n = D.length / dims;
const vectors = SegmentVectors.fromRows('bench', dims, Array.from({ length: n }, (_, i) => D.subarray(i * dims, (i + 1) * dims)));
// the kernel needs only document ids from the segment
const seg = { id: (d: number) => `d${d}`, docCount: n } as unknown as Segment;
const segments: VectorSegment[] = [{ seg, deleted: null, deletedCount: 0, vectors }];
const qs = Array.from({ length: Q.length / dims }, (_, i) => Q.subarray(i * dims, (i + 1) * dims));
const truth = qs.map((q) => new Set(searchVectors(segments, q, { k: 11, method: 'exact' }).hits.slice(0, 10).map((h) => h.id)));
// the fast-scan blocks (built on a segment's first quantized search in each thread): time and memory
const t0 = performance.now();
const fast = vectors.fastScan();
const fastScanBuild = { build_ms: performance.now() - t0, memory_bytes: fast?.memoryBytes ?? 0, bytes_per_document: (fast?.memoryBytes ?? 0) / n };
process.stderr.write(`fast-scan blocks: ${fastScanBuild.build_ms.toFixed(1)} ms, ${fastScanBuild.memory_bytes} bytes (${fastScanBuild.bytes_per_document.toFixed(2)} per document)\n`);
const variants: [string, Partial<VectorSearchOptions>][] = [
  [`auto, wasm kernel, default pool ${autoRescorePool(11, n)}`, {}],
  ['auto, wasm kernel, pool 1000', { rescore: 1000 }],
  ['auto, wasm kernel, pool 500', { rescore: 500 }],
  ['auto, wasm kernel, pool 11 (grading alone)', { rescore: 11 }],
  [`auto, js kernel, default pool ${autoRescorePool(11, n)}`, { kernel: 'js' }],
  ['auto, js kernel, pool 1000', { kernel: 'js', rescore: 1000 }],
  ['auto, js kernel, pool 11 (grading alone)', { kernel: 'js', rescore: 11 }],
  ['binary (Hamming), wasm kernel, default pool', { method: 'binary' }],
  ['binary (Hamming), js kernel, default pool', { method: 'binary', kernel: 'js' }],
  ['binary (Hamming), wasm kernel, pool 2000', { method: 'binary', rescore: 2000 }],
  ['binary (Hamming), js kernel, pool 2000', { method: 'binary', rescore: 2000, kernel: 'js' }],
  ['exact scan', { method: 'exact' }],
];
const rounds = Number(arg('rounds') ?? 3);
const acc = new Map<string, { times: number[]; cpu: number; hit: number; total: number; kernel: string | undefined }>();
for (const [name, o] of variants) {
  const opts: VectorSearchOptions = { k: 11, method: 'auto', exactMaxVectors: 0, ...o };
  for (let r = 0; r < 2; r++) for (const q of qs) searchVectors(segments, q, opts);
  acc.set(name, { times: [], cpu: 0, hit: 0, total: 0, kernel: undefined });
}
for (let round = 0; round < rounds; round++) {
  for (const [name, o] of variants) {
    const opts: VectorSearchOptions = { k: 11, method: 'auto', exactMaxVectors: 0, ...o };
    const a = acc.get(name)!;
    const c0 = process.cpuUsage();
    qs.forEach((q, i) => {
      const t = performance.now();
      const r = searchVectors(segments, q, opts);
      a.times.push(performance.now() - t);
      a.kernel = r.kernel;
      if (round === 0) {
        for (const h of r.hits.slice(0, 10)) if (truth[i]!.has(h.id)) a.hit++;
        a.total += truth[i]!.size;
      }
    });
    const c = process.cpuUsage(c0);
    a.cpu += (c.user + c.system) / 1000;
  }
}
const results: Record<string, { kernel: string | null; recallAt10: number; p50_ms: number; p99_ms: number; cpu_ms_per_query: number }> = {};
for (const [name] of variants) {
  const a = acc.get(name)!;
  const times = a.times.sort((x, y) => x - y);
  results[name] = { kernel: a.kernel ?? null, recallAt10: a.hit / a.total, p50_ms: times[times.length >> 1]!, p99_ms: times[Math.floor(times.length * 0.99)]!, cpu_ms_per_query: a.cpu / times.length };
  process.stderr.write(`${name}: recall@10 ${results[name]!.recallAt10.toFixed(4)}, p50 ${results[name]!.p50_ms.toFixed(2)} ms, p99 ${results[name]!.p99_ms.toFixed(2)} ms, cpu ${results[name]!.cpu_ms_per_query.toFixed(2)} ms/q\n`);
}
const out = {
  benchmark: 'vector-kernel',
  documents: n,
  queries: qs.length,
  dims,
  fast_scan_blocks: fastScanBuild,
  results,
  notes: `searchVectors over one 100k segment (synthetic corpus seed 7, SVD vectors as bench/engine/vectors.ts --epochs 0 trains them), ${rounds} rounds over the workload \`or\` query vectors after 2 warm-up passes per variant, variants interleaved within each round; single thread; no query embedding, no document loading. wasm kernel: fast-scan grading (ADR 0140); js kernel: the float 256-entry tables of ADR 0103 (binary: the popcount Hamming grader); the wasm kernel rescores with its f64x2 dots (ADR 0140), the js kernel with JavaScript float dot products. The default auto pool is autoRescorePool(11, documents) (ADR 0160).`,
  machine: { ...env, load_average_1m_at_end: loadavg()[0] },
};
const name = arg('out');
if (name) writeFileSync(join(repoRoot, 'bench', 'results', name), JSON.stringify(out, null, 2) + '\n');
console.log(JSON.stringify(out, null, 2));
