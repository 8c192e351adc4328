// Quality benchmark of the lexical engine: nDCG@10 and Recall@100 on SciFact (train judgments, 809
// queries) and Cranfield (225 queries). Usage:
//   node dist/bench/quality/run.js [--write] [--k1 1.2] [--b 0.5,0.75,0.75] [--w 2,1,1] [--only scifact]
// --write stores bench/results/quality-lexical.json (with the machine noted).
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { MemoryIndexDirectory, SearchIndex, type ScoringParams } from '../../src/engine/index.js';
import { repoRoot } from '../../test/helpers/paths.js';
import { evalDataDir } from './data-dir.js';
import { loadIrSet, ndcgAt, recallAt, type IrSet } from './ir-eval.js';

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const triple = (s: string | undefined): [number, number, number] | undefined => (s ? (s.split(',').map(Number) as [number, number, number]) : undefined);

const scoring: Partial<ScoringParams> = {};
if (arg('k1')) scoring.k1 = Number(arg('k1'));
const b = triple(arg('b'));
if (b) scoring.b = b;
const w = triple(arg('w'));
if (w) scoring.weights = w;

export interface SetResult {
  set: string;
  queries: number;
  ndcg10: number;
  /** nDCG@10 with linear gain (differs from ndcg10 only for graded judgments, i.e. Cranfield). */
  ndcg10Linear: number;
  recall100: number;
  indexMs: number;
  queryMsMean: number;
}

const proximityWeight = arg('prox') !== undefined ? Number(arg('prox')) : undefined;

export function evaluate(set: IrSet, sc: Partial<ScoringParams>): SetResult {
  const t0 = performance.now();
  const index = SearchIndex.open(new MemoryIndexDirectory(), { scoring: sc, ...(proximityWeight !== undefined ? { proximityWeight } : {}) });
  for (const d of set.corpus) index.add({ id: d.id, title: d.title, abstract: d.text, language: 'en' });
  index.commit('bench');
  const t1 = performance.now();
  let ndcg = 0;
  let ndcgLin = 0;
  let recall = 0;
  let n = 0;
  let qms = 0;
  for (const [qid, rels] of set.qrels) {
    const text = set.queries.get(qid);
    if (text === undefined) continue;
    const q0 = performance.now();
    const r = index.search({ text, limit: 100, passagesPerHit: 0 });
    qms += performance.now() - q0;
    const ids = r.hits.map((h) => h.id);
    ndcg += ndcgAt(ids, rels, 10);
    ndcgLin += ndcgAt(ids, rels, 10, 'linear');
    recall += recallAt(ids, rels, 100);
    n++;
  }
  return { set: set.name, queries: n, ndcg10: ndcg / n, ndcg10Linear: ndcgLin / n, recall100: recall / n, indexMs: t1 - t0, queryMsMean: qms / n };
}

const only = arg('only');
const sets: IrSet[] = [];
if (!only || only === 'scifact') sets.push(loadIrSet(join(evalDataDir(), 'ir', 'scifact'), 'scifact-train', 'train'));
if (!only || only === 'cranfield') sets.push(loadIrSet(join(evalDataDir(), 'ir', 'cranfield'), 'cranfield', 'test'));
const results = sets.map((s) => evaluate(s, scoring));
for (const r of results) console.log(`${r.set}: nDCG@10 ${r.ndcg10.toFixed(4)} (linear gain ${r.ndcg10Linear.toFixed(4)})  R@100 ${r.recall100.toFixed(4)}  (${r.queries} q, index ${r.indexMs.toFixed(0)} ms, ${r.queryMsMean.toFixed(2)} ms/q)`);
if (args.includes('--write')) {
  const out = {
    benchmark: 'quality-lexical',
    scoring,
    proximityWeight: proximityWeight ?? 'index default',
    results,
    baselines: { 'scifact-train': { sqliteFts5: 0.704, xapian: 0.705, minisearch: 0.651 }, cranfield: { sqliteFts5: 0.336, xapian: 0.334, lucenepp: 0.325, minisearch: 0.323 } },
    machine: { cpu: cpus()[0]?.model, cores: cpus().length, ramGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
  };
  writeFileSync(join(repoRoot, 'bench', 'results', 'quality-lexical.json'), JSON.stringify(out, null, 2) + '\n');
}
