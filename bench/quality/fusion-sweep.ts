// Fusion settings of hybrid (issue 15's quality target) swept on SciFact train and Cranfield with the
// corpus-trained models: each channel's top 100 is computed once per query (fulltext, sparse as the
// service runs it, short_document with and without pseudo-relevance feedback), then the fusion variants
// are evaluated on those lists (weighted RRF over rrf_k and weights; score fusion of min-max normalized
// scores). A setting is kept only if it helps on both collections (tuned for the kind of input, not for
// one file). Usage: node dist/bench/quality/fusion-sweep.js [--write]
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fieldTerms, fuseRrf, MemoryIndexDirectory, SearchIndex, TrainingState } from '../../src/engine/index.js';
import { DEFAULT_HEAP_FACTOR, denseQueryVector, denseSearch, sparseEngineOptions, sparseQueryVector, withFeedback, type SparseParams } from '../../src/search/channels.js';
import { DEFAULT_COMBINER, multiQuerySearch } from '../../src/search/multi-query.js';
import { repoRoot } from '../../test/helpers/paths.js';
import { evalDataDir } from './data-dir.js';
import { loadIrSet, ndcgAt, recallAt, type IrSet } from './ir-eval.js';

type Ranked = { id: string; score: number }[];
interface QueryLists {
  rels: Map<string, number>;
  ft: Ranked;
  sp: Ranked;
  dn: Ranked;
  dnFb: (n: number, w: number) => Ranked;
  /** Sparse with pseudo-relevance feedback from the top 3 fulltext hits (weight 1, 3). */
  spFb: Ranked[];
}

function lists(set: IrSet): QueryLists[] {
  const state = new TrainingState();
  for (const d of set.corpus) state.set(d.id, fieldTerms(d.title, d.text, 'en'));
  const { dense, sparse } = state.train({});
  const index = SearchIndex.open(new MemoryIndexDirectory());
  for (const d of set.corpus) index.add({ id: d.id, title: d.title, abstract: d.text, language: 'en' });
  index.commit('bench');
  index.setVectorModel({ id: 'bench', model: dense });
  const sp: SparseParams = { maxQueryDims: 0, weightThreshold: 0, pruning: null, heapFactor: DEFAULT_HEAP_FACTOR };
  const out: QueryLists[] = [];
  const pick = (hits: { id: string; score: number }[]) => hits.map((h) => ({ id: h.id, score: h.score }));
  for (const [qid, rels] of set.qrels) {
    const text = set.queries.get(qid);
    if (text === undefined) continue;
    const q = { text, limit: 100, passagesPerHit: 0 };
    const ft = pick(index.search(q).hits);
    const sv = sparseQueryVector(index, sparse, text, null, sp);
    const spl = pick(multiQuerySearch(index, q, sv, sparseEngineOptions(sv, sp).heapFactor, DEFAULT_COMBINER).result.hits);
    const qv = denseQueryVector(index, dense, text, null);
    const dn = qv ? pick(denseSearch(index, qv, 'auto', { limit: 100, passagesPerHit: 0 }).hits) : [];
    const memo = new Map<string, Ranked>();
    const dnFb = (n: number, w: number) => {
      const key = `${n}/${w}`;
      let r = memo.get(key);
      if (!r) memo.set(key, (r = qv ? pick(denseSearch(index, withFeedback(index, qv, ft.slice(0, n).map((h) => h.id), w), 'auto', { limit: 100, passagesPerHit: 0 }).hits) : []));
      return r;
    };
    const spFb = (n: number, w: number) => {
      const v = sparseQueryVector(index, sparse, text, null, sp, { ids: ft.slice(0, n).map((h) => h.id), weight: w });
      return pick(multiQuerySearch(index, q, v, sparseEngineOptions(v, sp).heapFactor, DEFAULT_COMBINER).result.hits);
    };
    out.push({ rels, ft, sp: spl, dn, dnFb, spFb: [spFb(3, 1), spFb(3, 3)] });
  }
  return out;
}

interface Variant {
  name: string;
  run: (l: QueryLists) => string[];
}

const rrf = (k: number, parts: { ids: string[]; w: number }[]) => fuseRrf(parts.map((p, i) => ({ channel: `c${i}`, ids: p.ids, weight: p.w })), { k }).map((f) => f.id);
const ids = (r: Ranked) => r.map((h) => h.id);
/** Min-max normalized score fusion (CombSUM): absent documents score 0 in that channel. */
function scoreFusion(parts: { r: Ranked; w: number }[]): string[] {
  const acc = new Map<string, number>();
  for (const { r, w } of parts) {
    if (r.length === 0 || w === 0) continue;
    const max = r[0]!.score;
    const min = r[r.length - 1]!.score;
    const span = max - min || 1;
    for (const h of r) acc.set(h.id, (acc.get(h.id) ?? 0) + (w * (h.score - min)) / span);
  }
  return [...acc].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map((x) => x[0]);
}
const nominatedSparse = (l: QueryLists, dense: Ranked) => {
  const nom = new Set([...ids(l.ft), ...ids(dense)]);
  return ids(l.sp).filter((id) => nom.has(id));
};

const variants: Variant[] = [{ name: 'fulltext', run: (l) => ids(l.ft) }];
for (const k of [60, 20, 100]) {
  for (const wd of [0.2, 0.3, 0.5]) {
    for (const ws of [1, 0.5, 0]) {
      for (const [n, w] of [[3, 3], [0, 0], [5, 3], [3, 1]] as const) {
        variants.push({
          name: `rrf k ${k}, dense ${wd}, sparse ${ws}, feedback ${n}x${w}`,
          run: (l) => {
            const d = n === 0 ? l.dn : l.dnFb(n, w);
            return rrf(k, [{ ids: ids(l.ft), w: 1 }, { ids: nominatedSparse(l, d), w: ws }, { ids: ids(d), w: wd }]);
          },
        });
      }
    }
  }
}
for (const [fi, label] of [[0, '3x1'], [1, '3x3']] as const) {
  for (const ws of [0.5, 1]) {
    for (const nominate of [false, true]) {
      variants.push({
        name: `rrf k 60, dense 0.2, sparse ${ws} with feedback ${label}${nominate ? ' nominating' : ''}, dense feedback 3x3`,
        run: (l) => {
          const d = l.dnFb(3, 3);
          const nom = new Set([...ids(l.ft), ...ids(d)]);
          const s2 = ids(l.spFb[fi]!).filter((id) => nominate || nom.has(id));
          return rrf(60, [{ ids: ids(l.ft), w: 1 }, { ids: s2, w: ws }, { ids: ids(d), w: 0.2 }]);
        },
      });
    }
  }
  variants.push({ name: `sparse alone with feedback ${label}`, run: (l) => ids(l.spFb[fi]!) });
}
variants.push({ name: 'sparse alone', run: (l) => ids(l.sp) });
for (const wd of [0.1, 0.2, 0.3, 0.5]) {
  for (const ws of [0, 0.5, 1]) {
    for (const [n, w] of [[3, 3], [0, 0]] as const) {
      variants.push({ name: `score fusion: fulltext 1, dense ${wd}, sparse ${ws}, feedback ${n}x${w}`, run: (l) => scoreFusion([{ r: l.ft, w: 1 }, { r: l.sp, w: ws }, { r: n === 0 ? l.dn : l.dnFb(n, w), w: wd }]) });
    }
  }
}

const sets = [loadIrSet(join(evalDataDir(), 'ir', 'scifact'), 'scifact-train', 'train'), loadIrSet(join(evalDataDir(), 'ir', 'cranfield'), 'cranfield', 'test')];
const load0 = loadavg()[0];
const results: Record<string, Record<string, { ndcg10: number; recall100: number; zeroScoreShare: number }>> = {};
for (const set of sets) {
  const ls = lists(set);
  const r: Record<string, { ndcg10: number; recall100: number; zeroScoreShare: number }> = {};
  for (const v of variants) {
    let n = 0;
    let rc = 0;
    let z = 0;
    for (const l of ls) {
      const ranking = v.run(l);
      const x = ndcgAt(ranking, l.rels, 10);
      n += x;
      rc += recallAt(ranking, l.rels, 100);
      if (x === 0) z++;
    }
    r[v.name] = { ndcg10: n / ls.length, recall100: rc / ls.length, zeroScoreShare: z / ls.length };
  }
  results[set.name] = r;
}
const rows = variants.map((v) => ({ name: v.name, scifact: results['scifact-train']![v.name]!, cranfield: results['cranfield']![v.name]! }));
rows.sort((a, b) => b.scifact.ndcg10 + b.cranfield.ndcg10 - (a.scifact.ndcg10 + a.cranfield.ndcg10));
for (const r of rows) console.log(`${r.scifact.ndcg10.toFixed(4)} ${r.cranfield.ndcg10.toFixed(4)}  zero ${(100 * r.scifact.zeroScoreShare).toFixed(1)}%/${(100 * r.cranfield.zeroScoreShare).toFixed(1)}%  ${r.name}`);
if (process.argv.includes('--write')) {
  writeFileSync(
    join(repoRoot, 'bench', 'results', 'quality-fusion-sweep.json'),
    JSON.stringify({ benchmark: 'quality-fusion-sweep', note: 'Hybrid fusion variants on the same channel lists; sorted by the sum of both nDCG@10.', rows, machine: { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version, loadAverage1mAtStart: load0, loadAverage1mAtEnd: loadavg()[0], date: new Date().toISOString() } }, null, 2) + '\n',
  );
}
