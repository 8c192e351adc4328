// Issue 27, "Corpus-trained channels that carry weight": training attempts for the corpus-trained dense
// model, each trained on every judged set's own titles and abstracts (no judgments) and measured in
// `short_document` and `hybrid` (as bench/quality/channels.ts runs them: the service's channels, weights
// and defaults), against the current trainer in the same run. Landing rule (docs/quality.md): the
// nDCG@10 gain averaged over the sets is positive and no set loses more than 0.005 in either mode.
// Usage:
//   node dist/bench/quality/dense-train.js [--write] [--only scifact-train,cranfield] [--variants a,b]
// --write stores bench/results/quality-dense-train.json (machine and load average noted).
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { fieldTerms, fuseRrf, MemoryIndexDirectory, SearchIndex, TrainingState, type TrainOptions } from '../../src/engine/index.js';
import { DEFAULT_HEAP_FACTOR, HYBRID_EXPANSION_TERMS, denseQueryVector, denseSearch, sparseEngineOptions, sparseQueryVector, withFeedback, type SparseParams } from '../../src/search/channels.js';
import { DEFAULT_RRF_K, DENSE_FEEDBACK_DOCS, DENSE_FEEDBACK_WEIGHT, DENSE_RRF_WEIGHT, SPARSE_RRF_WEIGHT } from '../../src/search/search-service.js';
import { DEFAULT_COMBINER, multiQuerySearch } from '../../src/search/multi-query.js';
import { repoRoot } from '../../test/helpers/paths.js';
import { ndcgAt, recallAt, type IrSet } from './ir-eval.js';
import { pairedP } from './paired.js';
import { loadAllSets } from './sets.js';

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};

interface Variant {
  name: string;
  opts: TrainOptions;
}
const VARIANTS: Variant[] = [
  // the trainer before ADR 0317 (called `current trainer` in the committed results of that round)
  { name: 'trainer before ADR 0317', opts: { contrastiveTemperature: 0.05, contrastiveSplitPairs: false } },
  { name: 'BM25 hard negatives', opts: { contrastiveTemperature: 0.05, contrastiveSplitPairs: false, contrastiveHardNegatives: true } },
  { name: 'split-abstract positives', opts: { contrastiveTemperature: 0.05, contrastiveSplitPairs: true } },
  { name: '16 epochs', opts: { contrastiveTemperature: 0.05, contrastiveSplitPairs: false, contrastiveEpochs: 16 } },
  { name: 'temperature 0.1', opts: { contrastiveTemperature: 0.1, contrastiveSplitPairs: false } },
  { name: '256 dims', opts: { contrastiveTemperature: 0.05, contrastiveSplitPairs: false, dims: 256 } },
  { name: 'temperature 0.2', opts: { contrastiveTemperature: 0.2, contrastiveSplitPairs: false } },
  { name: 'temperature 0.1 + split-abstract positives', opts: { contrastiveTemperature: 0.1, contrastiveSplitPairs: true } },
  { name: 'split positives of titled documents', opts: { contrastiveTemperature: 0.05, contrastiveSplitPairs: 'titled' } },
  { name: 'temperature 0.1 + split positives of titled documents (the default from ADR 0317)', opts: { contrastiveTemperature: 0.1, contrastiveSplitPairs: 'titled' } },
  { name: 'temperature 0.1 + split + hard negatives', opts: { contrastiveTemperature: 0.1, contrastiveSplitPairs: true, contrastiveHardNegatives: true } },
];
const pick = arg('variants')?.split(',');
const variants = pick ? VARIANTS.filter((v, i) => i === 0 || pick.includes(v.name)) : VARIANTS;
const outName = arg('out') ?? 'quality-dense-train.json';
/** Another training seed for every variant (seed sensitivity), default the trainer's. */
const seed = arg('seed') ? Number(arg('seed')) : undefined;

function evaluate(set: IrSet) {
  const index = SearchIndex.open(new MemoryIndexDirectory());
  for (const d of set.corpus) index.add({ id: d.id, title: d.title, abstract: d.text, language: 'en' });
  index.commit('bench');
  const state = new TrainingState();
  for (const d of set.corpus) state.set(d.id, fieldTerms(d.title, d.text, 'en'));
  const sp: SparseParams = { maxQueryDims: 0, weightThreshold: 0, pruning: null, heapFactor: DEFAULT_HEAP_FACTOR };
  const queries = [...set.qrels].filter(([qid]) => set.queries.has(qid));
  const ft = new Map<string, { ids: string[]; result: ReturnType<SearchIndex['search']> }>();
  for (const [qid] of queries) {
    const result = index.search({ text: set.queries.get(qid)!, limit: 100, passagesPerHit: 0 });
    ft.set(qid, { ids: result.hits.map((h) => h.id), result });
  }
  const out: Record<string, { trainCpuMs: number; short_document: { ndcg10: number; recall100: number }; hybrid: { ndcg10: number; recall100: number }; perQuery: { short_document: number[]; hybrid: number[] } }> = {};
  for (const v of variants) {
    const c0 = process.cpuUsage();
    const { dense, sparse } = state.train(seed === undefined ? v.opts : { ...v.opts, seed });
    const c1 = process.cpuUsage(c0);
    index.setVectorModel({ id: 'bench-' + v.name, model: dense });
    const perQ = { short_document: [] as number[], hybrid: [] as number[] };
    let r1 = 0;
    let r2 = 0;
    for (const [qid, rels] of queries) {
      const text = set.queries.get(qid)!;
      const q = { text, limit: 100, passagesPerHit: 0 };
      const f = ft.get(qid)!;
      const qv = denseQueryVector(index, dense, text, null);
      const dn = qv ? denseSearch(index, qv, 'auto', { limit: 100, passagesPerHit: 0 }).hits.map((h) => h.id) : [];
      const fb = qv ? withFeedback(index, qv, f.ids.slice(0, DENSE_FEEDBACK_DOCS), DENSE_FEEDBACK_WEIGHT) : null;
      const dp = fb ? denseSearch(index, fb, 'auto', { limit: 100, passagesPerHit: 0 }).hits.map((h) => h.id) : [];
      const nominated = new Set([...f.ids, ...dp]);
      const sv = sparseQueryVector(index, sparse, text, null, { ...sp, maxExpansionTerms: HYBRID_EXPANSION_TERMS });
      const sps = multiQuerySearch(index, q, sv, sparseEngineOptions(sv, sp).heapFactor, DEFAULT_COMBINER, f.result).result.hits.map((h) => h.id);
      const hy = fuseRrf(
        [
          { channel: 'fulltext', ids: f.ids },
          { channel: 'sparse', ids: sps.filter((id) => nominated.has(id)), weight: SPARSE_RRF_WEIGHT },
          { channel: 'short_document', ids: dp, weight: DENSE_RRF_WEIGHT },
        ],
        { k: DEFAULT_RRF_K },
      ).map((x) => x.id);
      perQ.short_document.push(ndcgAt(dn, rels, 10));
      perQ.hybrid.push(ndcgAt(hy, rels, 10));
      r1 += recallAt(dn, rels, 100);
      r2 += recallAt(hy, rels, 100);
    }
    const mean = (a: number[]) => a.reduce((s, x) => s + x, 0) / Math.max(1, a.length);
    const n = queries.length;
    out[v.name] = {
      trainCpuMs: (c1.user + c1.system) / 1000,
      short_document: { ndcg10: mean(perQ.short_document), recall100: r1 / n },
      hybrid: { ndcg10: mean(perQ.hybrid), recall100: r2 / n },
      perQuery: perQ,
    };
    console.log(`${set.name.padEnd(14)} ${v.name.padEnd(26)} short_document ${out[v.name]!.short_document.ndcg10.toFixed(4)}  hybrid ${out[v.name]!.hybrid.ndcg10.toFixed(4)}  train CPU ${(out[v.name]!.trainCpuMs / 1000).toFixed(1)} s`);
  }
  return { set: set.name, queries: queries.length, documents: set.corpus.length, titled: set.corpus.filter((d) => d.title).length, variants: out };
}

const load0 = loadavg();
const { sets, missing } = loadAllSets(arg('only')?.split(','));
if (missing.length) console.log(`missing sets: ${missing.join(', ')}`);
const results = sets.map(evaluate);
// the landing rule, per variant
const verdicts = variants.slice(1).map((v) => {
  const deltas = results.map((r) => ({
    set: r.set,
    short_document: r.variants[v.name]!.short_document.ndcg10 - r.variants[variants[0]!.name]!.short_document.ndcg10,
    hybrid: r.variants[v.name]!.hybrid.ndcg10 - r.variants[variants[0]!.name]!.hybrid.ndcg10,
    // two-sided paired randomization test against the current trainer over the set's queries
    pShortDocument: pairedP(r.variants[v.name]!.perQuery.short_document, r.variants[variants[0]!.name]!.perQuery.short_document),
    pHybrid: pairedP(r.variants[v.name]!.perQuery.hybrid, r.variants[variants[0]!.name]!.perQuery.hybrid),
  }));
  const avg = (k: 'short_document' | 'hybrid') => deltas.reduce((s, d) => s + d[k], 0) / Math.max(1, deltas.length);
  const worst = Math.min(...deltas.flatMap((d) => [d.short_document, d.hybrid]));
  const passes = avg('short_document') > 0 && avg('hybrid') >= 0 && worst >= -0.005;
  console.log(`${v.name.padEnd(26)} mean delta short_document ${avg('short_document').toFixed(4)} hybrid ${avg('hybrid').toFixed(4)}; worst ${worst.toFixed(4)}; ${passes ? 'PASSES' : 'fails'}`);
  return { variant: v.name, meanDelta: { short_document: avg('short_document'), hybrid: avg('hybrid') }, worstSetDelta: worst, passes, deltas };
});
if (args.includes('--write')) {
  const slim = results.map((r) => ({ ...r, variants: Object.fromEntries(Object.entries(r.variants).map(([k, v]) => [k, { trainCpuMs: v.trainCpuMs, short_document: v.short_document, hybrid: v.hybrid }])) }));
  const out = {
    benchmark: 'quality-dense-train',
    date: new Date().toISOString(),
    note: 'Issue 27 training attempts for the corpus-trained dense model; each variant trained on each set\'s own titles and abstracts (no judgments), measured in short_document and hybrid as the service runs them (bench/quality/channels.ts). Training CPU time via process.cpuUsage.',
    seed: seed ?? 'default (20261125)',
    variants: variants.map((v) => ({ name: v.name, options: v.opts })),
    results: slim,
    verdicts,
    machine: { cpu: cpus()[0]?.model, cores: cpus().length, ramGiB: Math.round(totalmem() / 2 ** 30), node: process.version, loadAverageAtStart: load0, loadAverageAtEnd: loadavg(), shared: 'machine shared with other helpers (load noted); quality numbers do not depend on load' },
  };
  writeFileSync(join(repoRoot, 'bench', 'results', outName), JSON.stringify(out, null, 2) + '\n');
}
