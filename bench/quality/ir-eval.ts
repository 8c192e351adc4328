// IR evaluation for the lexical engine on BEIR-layout collections: nDCG@10 with exponential gain
// (2^rel - 1) / log2(rank + 1), as trec_eval and BEIR compute it, and Recall@100 (relevant = score > 0).
// Used by bench/quality/run.ts; kept separate so tests can check the metric on hand-made examples.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface IrSet {
  name: string;
  corpus: { id: string; title: string; text: string }[];
  queries: Map<string, string>;
  /** query id -> (doc id -> relevance) */
  qrels: Map<string, Map<string, number>>;
}

/** Loads a BEIR-layout set (`corpus.jsonl`, `queries.jsonl`, `qrels/<split>.tsv`). */
export function loadIrSet(dir: string, name: string, split: string): IrSet {
  const lines = (f: string): string[] => readFileSync(join(dir, f), 'utf8').split('\n').filter((l) => l.trim());
  const corpus = lines('corpus.jsonl').map((l) => {
    const o = JSON.parse(l) as { _id: string; title?: string; text?: string };
    return { id: String(o._id), title: o.title ?? '', text: o.text ?? '' };
  });
  const queries = new Map<string, string>();
  for (const l of lines('queries.jsonl')) {
    const o = JSON.parse(l) as { _id: string; text: string };
    queries.set(String(o._id), o.text);
  }
  const qrels = new Map<string, Map<string, number>>();
  for (const l of lines(join('qrels', `${split}.tsv`)).slice(1)) {
    const [q, d, s] = l.split('\t');
    if (q === undefined || d === undefined || s === undefined) continue;
    let m = qrels.get(q);
    if (!m) qrels.set(q, (m = new Map()));
    m.set(d, Number(s));
  }
  return { name, corpus, queries, qrels };
}

/** nDCG@k of a ranking: exponential gain 2^rel - 1 (default) or linear gain rel (trec_eval's default). */
export function ndcgAt(ranking: readonly string[], rels: Map<string, number>, k: number, gain: 'exp' | 'linear' = 'exp'): number {
  const g = (r: number): number => (gain === 'exp' ? 2 ** r - 1 : r);
  let dcg = 0;
  for (let i = 0; i < Math.min(k, ranking.length); i++) {
    const r = rels.get(ranking[i]!) ?? 0;
    if (r > 0) dcg += g(r) / Math.log2(i + 2);
  }
  const ideal = [...rels.values()].filter((r) => r > 0).sort((a, b) => b - a);
  let idcg = 0;
  for (let i = 0; i < Math.min(k, ideal.length); i++) idcg += g(ideal[i]!) / Math.log2(i + 2);
  return idcg > 0 ? dcg / idcg : 0;
}

/** Recall@k: relevant (score > 0) documents retrieved in the top k over all relevant ones. */
export function recallAt(ranking: readonly string[], rels: Map<string, number>, k: number): number {
  const relevant = [...rels.entries()].filter(([, r]) => r > 0).map(([d]) => d);
  if (relevant.length === 0) return 0;
  const top = new Set(ranking.slice(0, k));
  return relevant.filter((d) => top.has(d)).length / relevant.length;
}
