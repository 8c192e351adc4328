// Where a phrase query's ranking work goes (ADR 0379): the workload's phrase queries grouped by kind
// (whether the segments' pair postings drive the join, ADR 0175; a stopword inside the phrase, whose words
// are then 2 apart and never paired; the number of words; an extra unquoted word), with the candidates
// the join verified per query (docs holding every slot's word, from the engine's trace) and the CPU time
// per query (best of 3). A query's candidates with pairs fewer than without (`phrasePairs: false`) means
// the pairs drove it.
//
//   node dist/bench/engine/phrase-kinds.js --dir /tmp/idx-100k [--out kinds.json]
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { FsIndexDirectory } from '../../src/adapters/fs/index-directory.js';
import { SearchIndex, type EngineQuery } from '../../src/engine/index.js';
import { machine } from '../lib/machine.js';
import { loadSynthWorkload, workloadQuery } from '../lib/synth-workload.js';
import { arg } from '../lib/cli.js';

const dir = arg('dir')!;
const outPath = arg('out');
const idx = SearchIndex.open(new FsIndexDirectory(dir));
const queries = loadSynthWorkload()['phrase']!;
// the query-side stopwords that occur inside the workload's phrases
const stop = /(^| )(the|of|with|in|and|to|a|for|is|by|on|as|from|at|or|an|be|are|was|were|this|that|which|whereas)( |$)/;

const candidates = (q: EngineQuery): number => {
  const r = idx.search({ ...q, trace: true });
  return (r.trace?.segments ?? []).reduce((s, g) => s + g.candidates, 0);
};
const cpuMs = (q: EngineQuery): number => {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const c = process.cpuUsage();
    idx.search(q);
    const u = process.cpuUsage(c);
    best = Math.min(best, (u.user + u.system) / 1000);
  }
  return best;
};

const kinds: Record<string, { queries: number; candidates: number; cpu_ms: number }> = {};
let allCandidates = 0;
let allMatches = 0;
for (const w of queries) {
  const q = workloadQuery(w);
  const withPairs = candidates(q);
  const without = candidates({ ...q, phrasePairs: false });
  const r = idx.search({ ...q, trace: true });
  allMatches += (r.trace?.segments ?? []).reduce((s, g) => s + g.scored, 0);
  allCandidates += withPairs;
  const phrase = /"([^"]*)"/.exec(w.text)?.[1] ?? '';
  const kind = `${withPairs < without ? 'pairs' : 'no pairs'}${stop.test(phrase) ? ', stopword inside' : ''}, ${phrase.split(' ').length} words${w.text.trim().endsWith('"') ? '' : ' + a word'}`;
  const k = (kinds[kind] ??= { queries: 0, candidates: 0, cpu_ms: 0 });
  k.queries++;
  k.candidates += withPairs;
  k.cpu_ms += cpuMs(q);
}
const rows = Object.entries(kinds)
  .sort((a, b) => b[1].cpu_ms - a[1].cpu_ms)
  .map(([kind, k]) => ({ kind, queries: k.queries, candidates_per_query: Math.round(k.candidates / k.queries), cpu_ms_per_query: Math.round((k.cpu_ms / k.queries) * 100) / 100 }));
for (const r of rows) console.log(`${r.kind}: ${r.queries} queries, ${r.candidates_per_query} candidates/query, ${r.cpu_ms_per_query} ms CPU/query`);
console.log(`all: ${(allCandidates / queries.length).toFixed(0)} candidates/query, ${(allMatches / queries.length).toFixed(0)} scored (matches the pruned pass scored)/query`);
idx.close();
const result = { meta: { ...machine(), dir, load_average_1m_at_end: Math.round(loadavg()[0]! * 100) / 100 }, candidates_per_query: allCandidates / queries.length, scored_per_query: allMatches / queries.length, kinds: rows };
if (outPath !== undefined) writeFileSync(outPath, JSON.stringify(result, null, 2) + '\n');
