// SPLADE document impacts, float (impact format v1, ADR 0109) against 8-bit quantized (v2, ADR 0145), in
// one run: bytes per posting, exact term-at-a-time search latency (wall and process CPU, single thread,
// top-10), and the quantized search's agreement with the float one (recall@10 of the float top 10, largest
// score difference against the stated bound; the float scores of the quantized top 10 over the float top
// 10's, since near-ties at the 10th place swap). No real SPLADE model can be downloaded here, so the
// document vectors are synthetic with SPLADE-like shape: a 30,522-token (BERT) vocabulary drawn by a
// Zipf law, ~`--nnz` weighted tokens per document, weights log(1 + relu(x)) with x log-normal (SPLADE's
// saturation), queries of ~`--qnnz` tokens. Segments of `--segment` documents, as flushes make them.
//   node dist/bench/engine/impacts.js --v1 dist/bench/engine/doc-impacts-v1.js [--docs 200000] [--out impacts.json]
// `--v1` names the float implementation as it was before ADR 0145, compiled beside the engine:
//   git show e248c90:src/engine/doc-impacts.ts > src/engine/doc-impacts-v1.ts && npx tsc -p tsconfig.json \
//     && rm src/engine/doc-impacts-v1.ts     (dist/src/engine/doc-impacts-v1.js stays)
import { writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SeededRandom } from '../../src/engine/lsa.js';
import * as v2 from '../../src/engine/doc-impacts.js';
import type { SparseRow } from '../../src/engine/doc-impacts.js';
import { repoRoot } from '../../test/helpers/paths.js';
import { machine } from '../lib/machine.js';
import { arg, pct } from '../lib/cli.js';

const DOCS = Number(arg('docs', '200000'));
const SEGMENT = Number(arg('segment', '20000'));
const NNZ = Number(arg('nnz', '120'));
const QNNZ = Number(arg('qnnz', '24'));
const QUERIES = Number(arg('queries', '200'));
const VOCAB = 30522;
const v1Path = arg('v1');
if (!v1Path) throw new Error('--v1 PATH: the float implementation (see the top of this file)');
const env = machine();
type Impl = typeof v2;
const v1 = (await import(pathToFileURL(isAbsolute(v1Path) ? v1Path : join(process.cwd(), v1Path)).href)) as Impl;

const rnd = new SeededRandom(15);
// Zipf(1.1) over the vocabulary by inverse CDF on a table
const cdf = new Float64Array(VOCAB);
{
  let s = 0;
  for (let i = 0; i < VOCAB; i++) cdf[i] = s += 1 / (i + 1) ** 1.1;
  for (let i = 0; i < VOCAB; i++) cdf[i]! /= s;
}
const perm = Uint32Array.from({ length: VOCAB }, (_, i) => i);
for (let i = VOCAB - 1; i > 0; i--) {
  const j = Math.floor(rnd.next() * (i + 1));
  [perm[i], perm[j]] = [perm[j]!, perm[i]!];
}
const token = () => {
  const u = rnd.next();
  let lo = 0;
  let hi = VOCAB - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cdf[mid]! < u) lo = mid + 1;
    else hi = mid;
  }
  return perm[lo]!;
};
const gauss = () => Math.sqrt(-2 * Math.log(1 - rnd.next())) * Math.cos(2 * Math.PI * rnd.next());
const sparseRow = (nnz: number): SparseRow => {
  const m = new Map<number, number>();
  const n = Math.max(4, Math.round(nnz * (0.5 + rnd.next())));
  while (m.size < n) m.set(token(), Math.log1p(Math.exp(gauss() * 0.6 - 0.3)));
  return { ids: Uint32Array.from(m.keys()), weights: Float32Array.from(m.values()) };
};

const t0 = performance.now();
const segRows: SparseRow[][] = [];
for (let d = 0; d < DOCS; d += SEGMENT) segRows.push(Array.from({ length: Math.min(SEGMENT, DOCS - d) }, () => sparseRow(NNZ)));
const queries = Array.from({ length: QUERIES }, () => sparseRow(QNNZ));
process.stderr.write(`generated ${DOCS} documents in ${(performance.now() - t0).toFixed(0)} ms\n`);

const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

function build(impl: Impl, name: string) {
  const t = performance.now();
  const segs = segRows.map((rows, s) => {
    // read back from bytes, as the engine opens them
    const imp = impl.SegmentImpacts.parse(impl.SegmentImpacts.fromRows('m'.repeat(64), rows).serialize());
    const base = s * SEGMENT;
    // impact segments alone (no text segment): no filters, no deletions, ids d<N>
    const seg = { docCount: rows.length, id: (d: number) => `d${base + d}` } as unknown as v2.ImpactSegment['seg'];
    return { seg, deleted: null, deletedCount: 0, impacts: imp } as v2.ImpactSegment;
  });
  const buildMs = performance.now() - t;
  const bytes = segs.reduce((n, s) => n + s.impacts!.serialize().byteLength, 0);
  const postings = segs.reduce((n, s) => n + s.impacts!.postDocs.length, 0);
  process.stderr.write(`${name}: ${postings} postings, ${(bytes / postings).toFixed(3)} bytes per posting (file), built in ${buildMs.toFixed(0)} ms\n`);
  return { segs, buildMs, bytes, postings };
}

const built = { 'v1 (float32)': build(v1, 'v1'), 'v2 (8-bit)': build(v2, 'v2') };
const impls = { 'v1 (float32)': v1, 'v2 (8-bit)': v2 };
const results: Record<string, { hits: { id: string; score: number }[][] }> = {};
const latency: Record<string, Record<string, number>> = {};
// interleaved rounds so both see the same machine load
const times: Record<string, { wall: number[]; cpu: number[] }> = {};
for (const name of Object.keys(built)) times[name] = { wall: [], cpu: [] };
for (const heapFactor of [1]) {
  for (const [name, b] of Object.entries(built)) for (const q of queries.slice(0, 20)) impls[name as keyof typeof impls].searchImpacts(b.segs, q, { k: 10, heapFactor }); // warm-up
  for (const q of queries) {
    for (const [name, b] of Object.entries(built)) {
      const c = cpuMs();
      const s = performance.now();
      const r = impls[name as keyof typeof impls].searchImpacts(b.segs, q, { k: 10, heapFactor });
      times[name]!.wall.push(performance.now() - s);
      times[name]!.cpu.push(cpuMs() - c);
      (results[name] ??= { hits: [] }).hits.push(r.hits.map((h) => ({ id: h.id, score: h.score })));
    }
  }
}
for (const [name, t] of Object.entries(times)) {
  t.wall.sort((a, b) => a - b);
  t.cpu.sort((a, b) => a - b);
  latency[name] = { p50_ms: pct(t.wall, 50), p99_ms: pct(t.wall, 99), mean_ms: t.wall.reduce((a, b) => a + b, 0) / t.wall.length, cpu_p50_ms: pct(t.cpu, 50), cpu_mean_ms: t.cpu.reduce((a, b) => a + b, 0) / t.cpu.length };
  process.stderr.write(`${name}: p50 ${latency[name]!.p50_ms!.toFixed(2)} ms, p99 ${latency[name]!.p99_ms!.toFixed(2)} ms, cpu p50 ${latency[name]!.cpu_p50_ms!.toFixed(2)} ms\n`);
}
// agreement: the float (v1, exact) top 10 is the truth
const floatHits = results['v1 (float32)']!.hits;
const qHits = results['v2 (8-bit)']!.hits;
let found = 0;
let total = 0;
let top1 = 0;
let worstRatio = 0;
let meanRel = 0;
let nRel = 0;
let floatMassQ = 0;
let floatMassTruth = 0;
let withinBound = 0;
const rowOf = (id: string) => {
  const n = Number(id.slice(1));
  return segRows[Math.floor(n / SEGMENT)]![n % SEGMENT]!;
};
const dot = (a: SparseRow, b: SparseRow) => {
  const m = new Map<number, number>();
  a.ids.forEach((t, i) => m.set(t, a.weights[i]!));
  let s = 0;
  b.ids.forEach((t, i) => (s += (m.get(t) ?? 0) * b.weights[i]!));
  return s;
};
queries.forEach((q, i) => {
  const truth = new Map(floatHits[i]!.map((h) => [h.id, h.score]));
  for (const h of qHits[i]!) if (truth.has(h.id)) found++;
  total += truth.size;
  // the float scores of what the quantized search returned, against the float top 10's
  const tenth = floatHits[i]![floatHits[i]!.length - 1]?.score ?? 0;
  for (const h of qHits[i]!) floatMassQ += dot(q, rowOf(h.id));
  for (const h of floatHits[i]!) floatMassTruth += h.score;
  if (qHits[i]![0]?.id === floatHits[i]![0]?.id) top1++;
  // the bound of the worst segment for this query (ADR 0145): sum_t w_q(t) step(t)
  const bound = Math.max(...built['v2 (8-bit)'].segs.map((s) => s.impacts!.errorBound(q)));
  // a returned document missing from the float top 10 is a near-tie: its float score within twice the bound of the 10th
  for (const h of qHits[i]!) if (truth.has(h.id) || dot(q, rowOf(h.id)) >= tenth - 2 * bound) withinBound++;
  for (const h of qHits[i]!) {
    const f = truth.get(h.id);
    if (f === undefined) continue;
    worstRatio = Math.max(worstRatio, Math.abs(h.score - f) / bound);
    meanRel += Math.abs(h.score - f) / f;
    nRel++;
  }
});
const v1b = built['v1 (float32)'];
const v2b = built['v2 (8-bit)'];
const out = {
  benchmark: 'impacts',
  v1: `${v1Path} (src/engine/doc-impacts.ts at e248c90, before ADR 0145)`,
  corpus: { synthetic: true, docs: DOCS, segmentDocs: SEGMENT, vocabulary: VOCAB, meanTokensPerDocument: v2b.postings / DOCS, queries: QUERIES, meanQueryTokens: QNNZ, seed: 15 },
  bytesPerPosting: { 'v1 (float32)': v1b.bytes / v1b.postings, 'v2 (8-bit)': v2b.bytes / v2b.postings },
  fileBytes: { 'v1 (float32)': v1b.bytes, 'v2 (8-bit)': v2b.bytes },
  buildMs: { 'v1 (float32)': v1b.buildMs, 'v2 (8-bit)': v2b.buildMs },
  latency,
  quantizedVsFloat: {
    recallAt10: found / total,
    floatScoreRatioAt10: floatMassQ / floatMassTruth,
    hitsInTop10OrWithinTwiceTheBoundOfThe10th: withinBound / total,
    top1Agreement: top1 / queries.length,
    meanRelativeScoreError: meanRel / nRel,
    worstScoreErrorOverBound: worstRatio,
  },
  notes: 'Exact search (heap_factor 1), top-10, single thread, the two formats interleaved query by query after a 20-query warm-up each; cpu_*: process CPU per query. Bytes per posting = impact file bytes / postings (headers, token tables and presence included).',
  machine: { ...env, load_average_1m_at_end: (await import('node:os')).loadavg()[0] },
};
const name = arg('out');
if (name) writeFileSync(join(repoRoot, 'bench', 'results', name), JSON.stringify(out, null, 2) + '\n');
console.log(JSON.stringify(out, null, 2));
