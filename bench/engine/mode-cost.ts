// What each search mode costs at 100k documents (issue 27): server-side engine time per mode as the
// search service composes its channels (src/search/search-service.ts #channels: the same engine query
// with passages, exact totals and work-key collapse; the sparse channel's multi-query evaluation; the
// dense channel with feedback; weighted RRF), interleaved query by query so every mode sees the same
// machine minute by minute. "before" rows are the previous sparse evaluation (its own pruned pass of the
// query and one full engine search per expansion term, with exact totals and passages), kept here as the
// A/B in the same run. Reuses an index and models saved by bench/engine/vectors.ts --save DIR.
//   node dist/bench/engine/mode-cost.js --reuse /tmp/retr-100k [--queries 200] [--out mode-cost-100k.json]
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { CorpusModel, fuseRrf, SearchIndex, type EngineHit, type EngineQuery, type EngineResult } from '../../src/engine/index.js';
import { FsIndexDirectory } from '../../src/adapters/fs/index-directory.js';
import { DEFAULT_HEAP_FACTOR, denseQueryVector, denseSearch, sparseEngineOptions, sparseQueryVector, withFeedback, type SparseDim, type SparseParams } from '../../src/search/channels.js';
import { DEFAULT_RRF_K, DENSE_FEEDBACK_DOCS, DENSE_FEEDBACK_WEIGHT, DENSE_RRF_WEIGHT, SPARSE_RRF_WEIGHT } from '../../src/search/search-service.js';
import { combineScores, DEFAULT_COMBINER, multiQuerySearch } from '../../src/search/multi-query.js';
import { repoRoot } from '../../test/helpers/paths.js';
import { machine } from '../lib/machine.js';
import { evalDataDir } from '../quality/data-dir.js';
import { arg, pct } from '../lib/cli.js';

const dir = arg('reuse')!;
const nQueries = Number(arg('queries', '200'));
const env = machine();
const idx = SearchIndex.open(new FsIndexDirectory(join(dir, 'index')));
const dense = CorpusModel.parse(new Uint8Array(readFileSync(join(dir, 'dense.model'))));
const sparse = CorpusModel.parse(new Uint8Array(readFileSync(join(dir, 'sparse.model'))));
idx.setVectorModel({ id: 'bench', model: dense });
const workload = JSON.parse(readFileSync(join(evalDataDir(), '..', 'tools', 'synth-corpus', 'workload.json'), 'utf8')) as Record<string, { text: string }[]>;
const queries = workload['or']!.map((q) => q.text).slice(0, nQueries);
const sp: SparseParams = { maxQueryDims: 0, weightThreshold: 0, pruning: null, heapFactor: DEFAULT_HEAP_FACTOR };
const nulls = { types: null, languages: null, issns: null, publisher: null, issuedAfter: null, issuedBefore: null, uriPrefixes: null, citing: null };
// the service's engine query of a 10-hit page (default budget: 10,000 / 10 results -> every word)
const base = (text: string): EngineQuery => ({ text, possibleLanguages: null, rankingMode: 'auto', limit: 10, offset: 0, phraseBoost: 1, lexicalWeight: 1, collapseByWorkKey: true, exactTotal: true, passagesPerHit: 3, explain: false, trace: false, filters: nulls, budget: { maxTerms: 256, maxPostings: 5_000_000 }, maxPassageTerms: 1000 });

/** The sparse channel before issue 27: its own pass at heap 0.85, then one full engine search per expansion term. */
function multiQueryBefore(q: EngineQuery, dims: readonly SparseDim[], heapFactor: number): EngineResult {
  const main = idx.search({ ...q, heapFactor });
  const generated = dims.filter((d) => !d.own && d.weight > 0);
  if (generated.length === 0) return main;
  const lists: { weight: number; hits: EngineHit[] }[] = [{ weight: 1, hits: main.hits }];
  for (const d of generated) lists.push({ weight: d.weight, hits: idx.search({ ...q, text: '', expansion: [{ term: d.term, weight: 1 }], heapFactor, explain: false, trace: false }).hits });
  const parts = new Map<string, { hit: EngineHit; xs: number[] }>();
  for (const l of lists) {
    const best = l.hits[0]?.score ?? 0;
    if (!(best > 0)) continue;
    for (const h of l.hits) {
      let e = parts.get(h.id);
      if (!e) parts.set(h.id, (e = { hit: h, xs: [] }));
      e.xs.push((l.weight * h.score) / best);
    }
  }
  const hits = [...parts.values()].map((e) => ({ ...e.hit, score: combineScores(e.xs, lists.length, DEFAULT_COMBINER) })).sort((a, b) => b.score - a.score).slice(0, 10);
  return { ...main, hits };
}

const sparseAfter = (q: EngineQuery, shared: EngineResult | null) => {
  const dims = sparseQueryVector(idx, sparse, q.text!, null, sp);
  return multiQuerySearch(idx, q, dims, sparseEngineOptions(dims, sp).heapFactor, DEFAULT_COMBINER, shared).result;
};
const sparseBefore = (q: EngineQuery) => {
  const dims = sparseQueryVector(idx, sparse, q.text!, null, sp);
  return multiQueryBefore(q, dims, sparseEngineOptions(dims, sp).heapFactor);
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
  sparse: (t) => sparseAfter(base(t), null),
  'sparse (before issue 27)': (t) => sparseBefore(base(t)),
  short_document: (t) => denseRun(base(t), null),
  hybrid: (t) => {
    const q = base(t);
    const ft = idx.search(q);
    return fuse(ft, sparseAfter(q, ft), denseRun(q, ft));
  },
  'hybrid (before issue 27)': (t) => {
    const q = base(t);
    const ft = idx.search(q);
    return fuse(ft, sparseBefore(q), denseRun(q, ft));
  },
  'sparse (one weighted query)': (t) => {
    const q = base(t);
    const dims = sparseQueryVector(idx, sparse, t, null, sp);
    return idx.search({ ...q, ...sparseEngineOptions(dims, sp) });
  },
  'hybrid (sparse as one weighted query)': (t) => {
    const q = base(t);
    const ft = idx.search(q);
    const dims = sparseQueryVector(idx, sparse, t, null, sp);
    return fuse(ft, idx.search({ ...q, ...sparseEngineOptions(dims, sp) }), denseRun(q, ft));
  },
  // the sparse vote needs neither an exact total (fulltext's counts) nor passages (it nominates nothing in
  // document ranking: the hits it votes for come with fulltext's or the dense channel's passages)
  'hybrid (sparse as one weighted query, top-k only)': (t) => {
    const q = base(t);
    const ft = idx.search(q);
    const dims = sparseQueryVector(idx, sparse, t, null, sp);
    return fuse(ft, idx.search({ ...q, ...sparseEngineOptions(dims, sp), exactTotal: false, passagesPerHit: 0 }), denseRun(q, ft));
  },
  ...Object.fromEntries(
    [1, 2, 4].map((keep) => [
      `hybrid (sparse as one weighted query, ${keep} expansion term${keep > 1 ? 's' : ''})`,
      (t: string) => {
        const q = base(t);
        const ft = idx.search(q);
        const dims = sparseQueryVector(idx, sparse, t, null, sp);
        const fewer = [...dims.filter((d) => d.own), ...dims.filter((d) => !d.own).slice(0, keep)];
        return fuse(ft, idx.search({ ...q, ...sparseEngineOptions(fewer, sp), exactTotal: false, passagesPerHit: 0 }), denseRun(q, ft));
      },
    ]),
  ),
  'hybrid without the sparse vote': (t) => {
    const q = base(t);
    const ft = idx.search(q);
    return fuse(ft, { ...ft, hits: [] }, denseRun(q, ft));
  },
};
const names = Object.keys(modes);
for (const q of queries.slice(0, 10)) for (const m of names) modes[m]!(q); // warm-up
const times = new Map<string, number[]>(names.map((m) => [m, []]));
queries.forEach((q, i) => {
  // rotate the order so no mode always runs first (caches) or last
  for (let k = 0; k < names.length; k++) {
    const m = names[(i + k) % names.length]!;
    const t = performance.now();
    modes[m]!(q);
    times.get(m)!.push(performance.now() - t);
  }
});
const latency: Record<string, { p50_ms: number; p99_ms: number; mean_ms: number; x_fulltext_p50: number }> = {};
const ft50 = pct([...times.get('fulltext')!].sort((a, b) => a - b), 50);
for (const [m, ts] of times) {
  const s = [...ts].sort((a, b) => a - b);
  latency[m] = { p50_ms: pct(s, 50), p99_ms: pct(s, 99), mean_ms: s.reduce((a, b) => a + b, 0) / s.length, x_fulltext_p50: pct(s, 50) / ft50 };
}
for (const [m, l] of Object.entries(latency)) console.log(`${m.padEnd(34)} p50 ${l.p50_ms.toFixed(2)} ms  p99 ${l.p99_ms.toFixed(2)} ms  mean ${l.mean_ms.toFixed(2)} ms  ${l.x_fulltext_p50.toFixed(1)}x fulltext`);
const out = {
  benchmark: 'mode-cost',
  note: 'Engine time per search mode as the search service composes its channels (10 hits, 3 passages each, exact totals, work-key collapse), the workload\'s "or" queries interleaved mode by mode. Corpus models trained on the first 10,000 documents (SVD, no fine-tuning: bench/engine/vectors.ts --train-limit 10000 --epochs 0); every document encoded with them. Measured on a loaded shared machine: ratios within the run are what to read, not absolute times.',
  corpus: { docs: idx.stats().docs, source: '/work/shared/tools/synth-corpus seed 7 (100k)' },
  queries: queries.length,
  latency,
  machine: { ...env, load_average_1m_at_end: Math.round(loadavg()[0]! * 100) / 100, shared: 'machine shared with other helpers (load average above); timings are indicative' },
};
const name = arg('out');
if (name) writeFileSync(join(repoRoot, 'bench', 'results', name), JSON.stringify(out, null, 2) + '\n');
