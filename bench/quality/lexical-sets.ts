// Lexical (fulltext) attempts of issue 27, each measured on EVERY judged set in one run against the
// current build (the engine's defaults), with per-query paired significance (two-sided randomization
// test, sign flips of the per-query nDCG@10 differences, 10,000 rounds, fixed seed). The landing rule:
// a change lands only if its nDCG@10 gain averaged over the sets is positive and no set loses more than
// 0.005. Usage:
//   node dist/bench/quality/lexical-sets.js [--write] [--only scifact-train,cranfield,cacm] [--variants a,b]
// --write stores bench/results/quality-lexical-sets.json (machine and load average noted).
// The extra sets come from bench/quality/sets/build.ts (run it first; see sets/MANIFEST.md).
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SCORING, documentTerms, MemoryIndexDirectory, SearchIndex, type ScoringParams } from '../../src/engine/index.js';
import { feedbackExpansion } from '../../src/search/lexical-feedback.js';
import { repoRoot } from '../../test/helpers/paths.js';
import { ndcgAt, recallAt, type IrSet } from './ir-eval.js';
import { pairedP } from './paired.js';
import { loadAllSets } from './sets.js';

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};

/** Pseudo-relevance feedback (RM3-style, over the analysed title+abstract terms of the first pass's top documents). */
interface Prf {
  /** Feedback documents (the first pass's top). */
  docs: number;
  /** Expansion terms added (not already in the query). */
  terms: number;
  /** Weight of the strongest expansion term (the others in proportion to their feedback weight). */
  weight: number;
  /** Query clarity gate: feedback only when the clarity of the top-10 model is at least this quantile of the set's queries (unsupervised; 0 = always). */
  clarityQuantile?: number;
  /** Weigh the feedback documents by exp(score - top score) (the relevance model's P(Q|D) from BM25) instead of uniformly. */
  scoreWeighted?: boolean;
}

export interface Variant {
  name: string;
  scoring?: Partial<ScoringParams>;
  proximityWeight?: number;
  prf?: Prf;
}

const d = DEFAULT_SCORING;
export const VARIANTS: Variant[] = [
  { name: 'current build (k1 1.2, b 0.5/0.75, title weight 2)' },
  // proximity beyond phrases: the engine's BM25TP-style re-ranking of the top 100
  { name: 'proximity weight 0.1', proximityWeight: 0.1 },
  { name: 'proximity weight 0.25', proximityWeight: 0.25 },
  { name: 'proximity weight 0.5', proximityWeight: 0.5 },
  // field-aware length normalisation / saturation (BM25F per-field b, k1)
  { name: 'title b 0.3', scoring: { b: [0.3, d.b[1], d.b[2]] } },
  { name: 'title b 0.75', scoring: { b: [0.75, d.b[1], d.b[2]] } },
  { name: 'abstract b 0.6', scoring: { b: [d.b[0], 0.6, d.b[2]] } },
  { name: 'abstract b 0.9', scoring: { b: [d.b[0], 0.9, d.b[2]] } },
  { name: 'k1 0.9', scoring: { k1: 0.9 } },
  { name: 'k1 1.5', scoring: { k1: 1.5 } },
  { name: 'title weight 1.5', scoring: { weights: [1.5, d.weights[1], d.weights[2]] } },
  { name: 'title weight 3', scoring: { weights: [3, d.weights[1], d.weights[2]] } },
  // pseudo-relevance feedback, ungated and gated on query clarity
  { name: 'PRF top 1 doc, 10 terms, weight 0.3', prf: { docs: 1, terms: 10, weight: 0.3 } },
  { name: 'PRF top 3 docs, 10 terms, weight 0.3', prf: { docs: 3, terms: 10, weight: 0.3 } },
  { name: 'PRF top 5 docs, 20 terms, weight 0.3', prf: { docs: 5, terms: 20, weight: 0.3 } },
  { name: 'PRF top 3 docs, 10 terms, weight 0.3, clarity >= median', prf: { docs: 3, terms: 10, weight: 0.3, clarityQuantile: 0.5 } },
  { name: 'PRF top 3 docs, 10 terms, weight 0.3, clarity >= lower quartile', prf: { docs: 3, terms: 10, weight: 0.3, clarityQuantile: 0.25 } },
  // round 2: around the one PRF setting that passed (top document only), and combinations
  { name: 'PRF top 1 doc, 10 terms, weight 0.2', prf: { docs: 1, terms: 10, weight: 0.2 } },
  { name: 'PRF top 1 doc, 10 terms, weight 0.5', prf: { docs: 1, terms: 10, weight: 0.5 } },
  { name: 'PRF top 1 doc, 5 terms, weight 0.3', prf: { docs: 1, terms: 5, weight: 0.3 } },
  { name: 'PRF top 1 doc, 20 terms, weight 0.3', prf: { docs: 1, terms: 20, weight: 0.3 } },
  { name: 'PRF top 3 docs score-weighted, 10 terms, weight 0.3', prf: { docs: 3, terms: 10, weight: 0.3, scoreWeighted: true } },
  { name: 'PRF top 10 docs score-weighted, 10 terms, weight 0.3', prf: { docs: 10, terms: 10, weight: 0.3, scoreWeighted: true } },
  { name: 'PRF top 1 doc (10 terms, 0.3) + proximity 0.25', proximityWeight: 0.25, prf: { docs: 1, terms: 10, weight: 0.3 } },
  { name: 'PRF top 1 doc (10 terms, 0.3) + abstract b 0.6', scoring: { b: [d.b[0], 0.6, d.b[2]] }, prf: { docs: 1, terms: 10, weight: 0.3 } },
  { name: 'abstract b 0.6 + proximity 0.25', scoring: { b: [d.b[0], 0.6, d.b[2]] }, proximityWeight: 0.25 },
];

/** Per set: the analysed term bags (title counted twice, as the corpus model does) and collection statistics. */
class TermModel {
  readonly bags = new Map<string, Map<string, number>>();
  readonly lens = new Map<string, number>();
  readonly df = new Map<string, number>();
  readonly cf = new Map<string, number>();
  total = 0;
  constructor(set: IrSet) {
    for (const doc of set.corpus) {
      const bag = documentTerms(doc.title, doc.text, 'en');
      this.bags.set(doc.id, bag);
      let len = 0;
      for (const [t, n] of bag) {
        len += n;
        this.df.set(t, (this.df.get(t) ?? 0) + 1);
        this.cf.set(t, (this.cf.get(t) ?? 0) + n);
      }
      this.lens.set(doc.id, len);
      this.total += len;
    }
  }
  /** Relevance model of the given documents (uniform document prior): P(t | feedback). */
  feedback(ids: readonly string[], docWeights?: readonly number[]): Map<string, number> {
    const m = new Map<string, number>();
    const docs = ids.map((id, i) => [id, docWeights?.[i] ?? 1] as const).filter(([id]) => (this.lens.get(id) ?? 0) > 0);
    const sum = docs.reduce((s, [, w]) => s + w, 0);
    for (const [id, w] of docs) {
      const len = this.lens.get(id)!;
      for (const [t, n] of this.bags.get(id)!) m.set(t, (m.get(t) ?? 0) + (n / len) * (w / sum));
    }
    return m;
  }
  /** Clarity (Cronen-Townsend et al. 2002): KL divergence of the feedback model from the collection model. */
  clarity(model: Map<string, number>): number {
    let kl = 0;
    for (const [t, p] of model) kl += p * Math.log2(p / ((this.cf.get(t) ?? 1) / this.total));
    return kl;
  }
}

interface PerQuery {
  ndcg: number[];
  recall: number[];
  cpuUs: number;
  prfApplied: number;
}

function run(set: IrSet, v: Variant, tm: TermModel, index: SearchIndex, clarityCut: number): PerQuery {
  const out: PerQuery = { ndcg: [], recall: [], cpuUs: 0, prfApplied: 0 };
  const N = set.corpus.length;
  const docsById = new Map(set.corpus.map((doc) => [doc.id, doc]));
  for (const [qid, rels] of set.qrels) {
    const text = set.queries.get(qid);
    if (text === undefined) continue;
    const c0 = process.cpuUsage();
    const q = { text, limit: 100, passagesPerHit: 0, ...(v.proximityWeight !== undefined ? { proximityWeight: v.proximityWeight } : {}) };
    const first = index.search(q).hits;
    let ids = first.map((h) => h.id);
    if (v.prf && ids.length > 0) {
      const gateOk = v.prf.clarityQuantile ? tm.clarity(tm.feedback(ids.slice(0, 10))) >= clarityCut : true;
      if (gateOk && v.prf.docs === 1 && !v.prf.scoreWeighted) {
        // the product's function (src/search/lexical-feedback.ts, what ranking.lexicalFeedbackTerms runs)
        const doc = docsById.get(first[0]!.id)!;
        const expansion = feedbackExpansion(index, { text }, { title: doc.title, abstract: doc.text, language: 'en' }, { terms: v.prf.terms, weight: v.prf.weight });
        if (expansion.length > 0) {
          ids = index.search({ ...q, expansion }).hits.map((h) => h.id);
          out.prfApplied++;
        }
      } else if (gateOk) {
        // prototype over several documents (relevance model over the harness's own term bags)
        const own = documentTerms('', text, 'en');
        const top = first.slice(0, v.prf.docs);
        const fb = tm.feedback(
          top.map((h) => h.id),
          v.prf.scoreWeighted ? top.map((h) => Math.exp(h.score - top[0]!.score)) : undefined,
        );
        const scored = [...fb]
          .filter(([t]) => !own.has(t))
          .map(([t, p]) => [t, p * Math.log(N / (tm.df.get(t) ?? 1))] as const)
          .filter(([, s]) => s > 0)
          .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
          .slice(0, v.prf.terms);
        const best = scored[0]?.[1] ?? 0;
        if (best > 0) {
          const expansion = scored.map(([term, s]) => ({ term, weight: (v.prf!.weight * s) / best }));
          ids = index.search({ ...q, expansion }).hits.map((h) => h.id);
          out.prfApplied++;
        }
      }
    }
    const c = process.cpuUsage(c0);
    out.cpuUs += c.user + c.system;
    out.ndcg.push(ndcgAt(ids, rels, 10));
    out.recall.push(recallAt(ids, rels, 100));
  }
  return out;
}

const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);
const quantile = (xs: readonly number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : 0;
};

function main(): void {
  const only = arg('only')?.split(',');
  const pick = arg('variants')?.split(',').map(Number);
  const variants = pick ? [VARIANTS[0]!, ...pick.filter((i) => i > 0).map((i) => VARIANTS[i]!)] : VARIANTS;
  const { sets, missing } = loadAllSets(only);
  if (missing.length) console.log(`not found (run node dist/bench/quality/sets/build.js): ${missing.join(', ')}`);
  const load0 = loadavg();
  const perSet: Record<string, { queries: number; documents: number; variants: Record<string, { ndcg10: number; recall100: number; deltaNdcg10: number; p: number; deltaRecall100: number; cpuMsPerQuery: number; prfApplied?: number }> }> = {};
  const perVariantDeltas = new Map<string, number[]>();
  for (const set of sets) {
    const tm = new TermModel(set);
    // clarity of every query's top-10 first-pass model, for the gates (no judgments used)
    const indexes = new Map<string, SearchIndex>();
    const indexFor = (sc: Partial<ScoringParams> | undefined): SearchIndex => {
      const key = JSON.stringify(sc ?? {});
      let ix = indexes.get(key);
      if (!ix) {
        ix = SearchIndex.open(new MemoryIndexDirectory(), { scoring: sc ?? {} });
        for (const doc of set.corpus) ix.add({ id: doc.id, title: doc.title, abstract: doc.text, language: 'en' });
        ix.commit('bench');
        indexes.set(key, ix);
      }
      return ix;
    };
    const base = indexFor(undefined);
    const clarities: number[] = [];
    for (const [qid] of set.qrels) {
      const text = set.queries.get(qid);
      if (text === undefined) continue;
      clarities.push(tm.clarity(tm.feedback(base.search({ text, limit: 10, passagesPerHit: 0 }).hits.map((h) => h.id))));
    }
    const results = new Map<string, PerQuery>();
    for (const v of variants) {
      const cut = v.prf?.clarityQuantile ? quantile(clarities, v.prf.clarityQuantile) : 0;
      results.set(v.name, run(set, v, tm, indexFor(v.scoring), cut));
    }
    const b = results.get(variants[0]!.name)!;
    const entry: (typeof perSet)[string] = { queries: b.ndcg.length, documents: set.corpus.length, variants: {} };
    for (const v of variants) {
      const r = results.get(v.name)!;
      const delta = mean(r.ndcg) - mean(b.ndcg);
      entry.variants[v.name] = {
        ndcg10: mean(r.ndcg),
        recall100: mean(r.recall),
        deltaNdcg10: delta,
        p: v === variants[0] ? 1 : pairedP(r.ndcg, b.ndcg),
        deltaRecall100: mean(r.recall) - mean(b.recall),
        cpuMsPerQuery: r.cpuUs / 1000 / r.ndcg.length,
        ...(v.prf ? { prfApplied: r.prfApplied } : {}),
      };
      let ds = perVariantDeltas.get(v.name);
      if (!ds) perVariantDeltas.set(v.name, (ds = []));
      ds.push(delta);
    }
    perSet[set.name] = entry;
    console.log(`${set.name} (${entry.queries} q, ${entry.documents} docs)`);
    for (const [name, r] of Object.entries(entry.variants))
      console.log(`  ${name.padEnd(62)} nDCG@10 ${r.ndcg10.toFixed(4)} (${r.deltaNdcg10 >= 0 ? '+' : ''}${r.deltaNdcg10.toFixed(4)}, p ${r.p.toFixed(3)})  R@100 ${r.recall100.toFixed(4)}  ${r.cpuMsPerQuery.toFixed(2)} ms cpu/q${r.prfApplied !== undefined ? `  prf on ${r.prfApplied}` : ''}`);
  }
  const summary = variants.map((v) => {
    const ds = perVariantDeltas.get(v.name)!;
    const worst = Math.min(...ds);
    const avg = mean(ds);
    return { variant: v.name, meanDeltaNdcg10: avg, worstSetDelta: worst, passesRule: v !== variants[0] && avg > 0 && worst >= -0.005 };
  });
  console.log('\nacross sets (mean delta nDCG@10, worst set):');
  for (const s of summary) console.log(`  ${s.variant.padEnd(62)} ${s.meanDeltaNdcg10 >= 0 ? '+' : ''}${s.meanDeltaNdcg10.toFixed(4)}  worst ${s.worstSetDelta.toFixed(4)}  ${s.passesRule ? 'PASSES' : ''}`);
  if (args.includes('--write')) {
    const out = {
      benchmark: 'quality-lexical-sets',
      date: new Date().toISOString(),
      rule: 'lands only if the mean nDCG@10 delta over the sets is > 0 and no set loses more than 0.005',
      significance: 'two-sided paired randomization test (sign flips of per-query nDCG@10 differences, 10,000 rounds) against the current build',
      sets: Object.keys(perSet),
      missingSets: missing,
      variants: variants.map((v) => ({ name: v.name, scoring: v.scoring ?? null, proximityWeight: v.proximityWeight ?? null, prf: v.prf ?? null })),
      perSet,
      summary,
      machine: { cpu: cpus()[0]?.model, cores: cpus().length, ramGiB: Math.round(totalmem() / 2 ** 30), node: process.version, loadAverageAtStart: load0, loadAverageAtEnd: loadavg(), note: 'shared machine; CPU time per query (process.cpuUsage) rather than wall time' },
    };
    writeFileSync(join(repoRoot, 'bench', 'results', arg('out') ?? 'quality-lexical-sets.json'), JSON.stringify(out, null, 2) + '\n');
  }
}

main();
