// Issue 27, ADR 0315: would lexical feedback from the top document also help `hybrid`? Per set, the
// corpus models are trained on the set's own titles and abstracts (as bench/quality/channels.ts does) and
// hybrid is fused as the search service fuses it (channels.ts's hybrid row), once with the fulltext
// channel as it is and once with the fulltext channel's feedback pass (the sparse channel keeps the
// unexpanded pass as its own query's pass; the dense feedback reads the fused-in fulltext top hits).
// Per-query paired significance against the current build. Usage:
//   node dist/bench/quality/feedback-modes.js [--write] [--only scifact-train,cranfield]
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { fieldTerms, fuseRrf, MemoryIndexDirectory, SearchIndex, TrainingState } from '../../src/engine/index.js';
import { DEFAULT_HEAP_FACTOR, denseQueryVector, denseSearch, sparseEngineOptions, sparseQueryVector, withFeedback, type SparseParams } from '../../src/search/channels.js';
import { feedbackExpansion, MEASURED_LEXICAL_FEEDBACK } from '../../src/search/lexical-feedback.js';
import { DEFAULT_COMBINER, multiQuerySearch } from '../../src/search/multi-query.js';
import { DEFAULT_RRF_K, DENSE_FEEDBACK_DOCS, DENSE_FEEDBACK_WEIGHT, DENSE_RRF_WEIGHT, SPARSE_RRF_WEIGHT } from '../../src/search/search-service.js';
import { repoRoot } from '../../test/helpers/paths.js';
import { ndcgAt } from './ir-eval.js';
import { pairedP } from './paired.js';
import { loadAllSets } from './sets.js';

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);

function main(): void {
  const { sets, missing } = loadAllSets(arg('only')?.split(','));
  const load0 = loadavg();
  const perSet: Record<string, unknown> = {};
  const deltas: Record<string, number[]> = { fulltext: [], hybrid: [] };
  for (const set of sets) {
    const state = new TrainingState();
    for (const d of set.corpus) state.set(d.id, fieldTerms(d.title, d.text, 'en'));
    const { dense, sparse } = state.train({});
    const index = SearchIndex.open(new MemoryIndexDirectory());
    for (const d of set.corpus) index.add({ id: d.id, title: d.title, abstract: d.text, language: 'en' });
    index.commit('bench');
    index.setVectorModel({ id: 'bench', model: dense });
    const byId = new Map(set.corpus.map((d) => [d.id, d]));
    const sp: SparseParams = { maxQueryDims: 0, weightThreshold: 0, pruning: null, heapFactor: DEFAULT_HEAP_FACTOR };
    const out = { ft: [] as number[], ftFb: [] as number[], hy: [] as number[], hyFb: [] as number[] };
    for (const [qid, rels] of set.qrels) {
      const text = set.queries.get(qid);
      if (text === undefined) continue;
      const q = { text, limit: 100, passagesPerHit: 0 };
      const ftResult = index.search(q);
      const ft = ftResult.hits.map((h) => h.id);
      const top = ft[0] !== undefined ? byId.get(ft[0]) : undefined;
      const expansion = top ? feedbackExpansion(index, q, { title: top.title, abstract: top.text, language: 'en' }, MEASURED_LEXICAL_FEEDBACK) : [];
      const ftFb = expansion.length > 0 ? index.search({ ...q, expansion }).hits.map((h) => h.id) : ft;
      const sv = sparseQueryVector(index, sparse, text, null, sp);
      const sps = multiQuerySearch(index, q, sv, sparseEngineOptions(sv, sp).heapFactor, DEFAULT_COMBINER, ftResult).result.hits.map((h) => h.id);
      const qv = denseQueryVector(index, dense, text, null);
      const hybrid = (lex: string[]): string[] => {
        const fb = qv ? withFeedback(index, qv, lex.slice(0, DENSE_FEEDBACK_DOCS), DENSE_FEEDBACK_WEIGHT) : null;
        const dp = fb ? denseSearch(index, fb, 'auto', { limit: 100, passagesPerHit: 0 }).hits.map((h) => h.id) : [];
        const nominated = new Set([...lex, ...dp]);
        return fuseRrf(
          [
            { channel: 'fulltext', ids: lex },
            { channel: 'sparse', ids: sps.filter((id) => nominated.has(id)), weight: SPARSE_RRF_WEIGHT },
            { channel: 'short_document', ids: dp, weight: DENSE_RRF_WEIGHT },
          ],
          { k: DEFAULT_RRF_K },
        ).map((f) => f.id);
      };
      out.ft.push(ndcgAt(ft, rels, 10));
      out.ftFb.push(ndcgAt(ftFb, rels, 10));
      out.hy.push(ndcgAt(hybrid(ft), rels, 10));
      out.hyFb.push(ndcgAt(hybrid(ftFb), rels, 10));
    }
    const row = {
      queries: out.ft.length,
      fulltext: { current: mean(out.ft), withFeedback: mean(out.ftFb), delta: mean(out.ftFb) - mean(out.ft), p: pairedP(out.ftFb, out.ft) },
      hybrid: { current: mean(out.hy), withFeedback: mean(out.hyFb), delta: mean(out.hyFb) - mean(out.hy), p: pairedP(out.hyFb, out.hy) },
    };
    deltas['fulltext']!.push(row.fulltext.delta);
    deltas['hybrid']!.push(row.hybrid.delta);
    perSet[set.name] = row;
    console.log(`${set.name}: fulltext ${row.fulltext.current.toFixed(4)} -> ${row.fulltext.withFeedback.toFixed(4)} (p ${row.fulltext.p.toFixed(3)}); hybrid ${row.hybrid.current.toFixed(4)} -> ${row.hybrid.withFeedback.toFixed(4)} (p ${row.hybrid.p.toFixed(3)})`);
  }
  const summary = Object.fromEntries(Object.entries(deltas).map(([m, ds]) => [m, { meanDelta: mean(ds), worstSet: Math.min(...ds), passesRule: mean(ds) > 0 && Math.min(...ds) >= -0.005 }]));
  console.log(JSON.stringify(summary));
  if (args.includes('--write'))
    writeFileSync(
      join(repoRoot, 'bench', 'results', 'quality-feedback-modes.json'),
      JSON.stringify({ benchmark: 'quality-feedback-modes', date: new Date().toISOString(), feedback: MEASURED_LEXICAL_FEEDBACK, sets: Object.keys(perSet), missingSets: missing, perSet, summary, machine: { cpu: cpus()[0]?.model, cores: cpus().length, ramGiB: Math.round(totalmem() / 2 ** 30), node: process.version, loadAverageAtStart: load0, loadAverageAtEnd: loadavg() } }, null, 2) + '\n',
    );
}

main();
