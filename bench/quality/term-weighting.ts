// Issue 27 attempt: query term weighting from the corpus model (docs/models.md). Each unquoted query word
// is weighted by how well it fits the rest of the query in the corpus model's space: c = cosine of its
// term vector with the embedding of the query's other words (leave one out), clamped to [0, 1]; its
// clause weight becomes weight x (a + b c). Words the model does not know keep their weight. Measured on
// every judged set against the current build with per-query paired significance (the landing rule of
// docs/quality.md). The model is trained on each set's own titles and abstracts (no judgments), as
// bench/quality/channels.ts trains it. Usage:
//   node dist/bench/quality/term-weighting.js [--write] [--only scifact-train,cranfield]
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { fieldTerms, MemoryIndexDirectory, SearchIndex, TrainingState, type CorpusModel } from '../../src/engine/index.js';
import { repoRoot } from '../../test/helpers/paths.js';
import { ndcgAt, recallAt } from './ir-eval.js';
import { pairedP } from './paired.js';
import { loadAllSets } from './sets.js';

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};

/** a + b c per variant; the control (1, 0) checks that the clause route scores as the query does. */
const VARIANTS: { name: string; a: number; b: number }[] = [
  { name: 'control: own words as weighted clauses, unchanged weights', a: 1, b: 0 },
  { name: 'corpus-model term weight 0.75 + 0.5 c', a: 0.75, b: 0.5 },
  { name: 'corpus-model term weight 0.5 + 1.0 c', a: 0.5, b: 1 },
];

function cosine(model: CorpusModel, term: string, e: Float32Array): number | null {
  const r = model.row(term);
  if (r < 0) return null;
  const d = model.dims;
  let dot = 0;
  let nn = 0;
  for (let j = 0; j < d; j++) {
    const x = model.vectors[r * d + j]!;
    dot += x * e[j]!;
    nn += x * x;
  }
  return nn > 0 ? dot / Math.sqrt(nn) : null;
}

const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);

function main(): void {
  const { sets, missing } = loadAllSets(arg('only')?.split(','));
  const load0 = loadavg();
  const perSet: Record<string, unknown> = {};
  const deltas = new Map<string, number[]>();
  for (const set of sets) {
    const t0 = performance.now();
    const state = new TrainingState();
    for (const d of set.corpus) state.set(d.id, fieldTerms(d.title, d.text, 'en'));
    const { dense } = state.train({});
    const trainMs = performance.now() - t0;
    const index = SearchIndex.open(new MemoryIndexDirectory());
    for (const d of set.corpus) index.add({ id: d.id, title: d.title, abstract: d.text, language: 'en' });
    index.commit('bench');
    const base: number[] = [];
    const baseR: number[] = [];
    const res = VARIANTS.map(() => ({ n: [] as number[], r: [] as number[], reweighted: 0 }));
    for (const [qid, rels] of set.qrels) {
      const text = set.queries.get(qid);
      if (text === undefined) continue;
      const b = index.search({ text, limit: 100, passagesPerHit: 0 }).hits.map((h) => h.id);
      base.push(ndcgAt(b, rels, 10));
      baseR.push(recallAt(b, rels, 100));
      const parsed = index.parse(text);
      const words = parsed.words.filter((w) => !w.quoted);
      const simple = parsed.phrases.length === 0 && words.every((w) => w.terms.length === 1);
      const bag = new Map<string, number>();
      for (const w of words) bag.set(w.terms[0]!, (bag.get(w.terms[0]!) ?? 0) + 1);
      const c = new Map<string, number>();
      for (const t of bag.keys()) {
        const rest = [...bag].filter(([x]) => x !== t);
        const e = rest.length > 0 ? dense.embed(rest) : null;
        const cos = e ? cosine(dense, t, e) : null;
        if (cos !== null) c.set(t, Math.max(0, Math.min(1, cos)));
      }
      VARIANTS.forEach((v, i) => {
        let ids = b;
        if (simple && words.length > 0) {
          // one clause per distinct term at the parser's weight (the engine keeps the first of a repeated term)
          const seen = new Set<string>();
          const expansion: { term: string; weight: number }[] = [];
          for (const w of words) {
            const t = w.terms[0]!;
            if (seen.has(t)) continue;
            seen.add(t);
            const ct = c.get(t);
            expansion.push({ term: t, weight: Math.min(10, w.weight * (ct === undefined ? 1 : v.a + v.b * ct)) });
          }
          ids = index.search({ text: '', expansion, limit: 100, passagesPerHit: 0 }).hits.map((h) => h.id);
          res[i]!.reweighted++;
        }
        res[i]!.n.push(ndcgAt(ids, rels, 10));
        res[i]!.r.push(recallAt(ids, rels, 100));
      });
    }
    const entry: Record<string, unknown> = { queries: base.length, documents: set.corpus.length, trainMs, current: { ndcg10: mean(base), recall100: mean(baseR) } };
    console.log(`${set.name} (${base.length} q; model trained in ${(trainMs / 1000).toFixed(1)} s): current ${mean(base).toFixed(4)}`);
    VARIANTS.forEach((v, i) => {
      const r = res[i]!;
      const delta = mean(r.n) - mean(base);
      const p = pairedP(r.n, base);
      entry[v.name] = { ndcg10: mean(r.n), deltaNdcg10: delta, p, recall100: mean(r.r), reweightedQueries: r.reweighted };
      let ds = deltas.get(v.name);
      if (!ds) deltas.set(v.name, (ds = []));
      ds.push(delta);
      console.log(`  ${v.name.padEnd(58)} ${mean(r.n).toFixed(4)} (${delta >= 0 ? '+' : ''}${delta.toFixed(4)}, p ${p.toFixed(3)})  R@100 ${mean(r.r).toFixed(4)}  (${r.reweighted} reweighted)`);
    });
    perSet[set.name] = entry;
  }
  const summary = VARIANTS.map((v) => {
    const ds = deltas.get(v.name) ?? [];
    return { variant: v.name, meanDeltaNdcg10: mean(ds), worstSetDelta: Math.min(...ds), passesRule: v.b !== 0 && mean(ds) > 0 && Math.min(...ds) >= -0.005 };
  });
  for (const s of summary) console.log(`${s.variant.padEnd(58)} mean ${s.meanDeltaNdcg10.toFixed(4)} worst ${s.worstSetDelta.toFixed(4)} ${s.passesRule ? 'PASSES' : ''}`);
  if (args.includes('--write'))
    writeFileSync(
      join(repoRoot, 'bench', 'results', 'quality-term-weighting.json'),
      JSON.stringify({ benchmark: 'quality-term-weighting', date: new Date().toISOString(), sets: Object.keys(perSet), missingSets: missing, perSet, summary, machine: { cpu: cpus()[0]?.model, cores: cpus().length, ramGiB: Math.round(totalmem() / 2 ** 30), node: process.version, loadAverageAtStart: load0, loadAverageAtEnd: loadavg() } }, null, 2) + '\n',
    );
}

main();
