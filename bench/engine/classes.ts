// Latency of the workload classes on an index that already exists (no build, no merge, no peer): the
// quick A/B and profiling loop for engine changes (`node --cpu-prof dist/bench/engine/classes.js ...`).
//
//   node dist/bench/engine/classes.js --dir /work/tmp/idx-100k [--classes or,phrase,filter] [--rounds 5]
//     [--exact] [--collapse] [--no-pairs] [--base OTHER/dist [--base-dir COPY]] [--out result.json]
//
// Prints CPU-time p50/p95/p99 per class (the searching thread's CPU time: robust to other processes on the
// shared cores) and a checksum of the results, so two builds can be compared on the same index.
// --exact asks for exact totals (exactTotal: true, as the HTTP search does), --collapse for work-collapsed
// searches (totals counted in works). --base DIR loads another build's engine into this process and runs
// every query on both, alternating which goes first, so both see the same load; every query's hits (ids
// and scores, in order) must agree, and its total with --exact. An index
// directory is locked by its opener, so the base opens --base-dir (a copy, e.g. hard links of the files).
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FsIndexDirectory } from '../../src/adapters/fs/index-directory.js';
import { SearchIndex, type EngineQuery } from '../../src/engine/index.js';
import { termBitsetBytes } from '../../src/engine/term-bitsets.js';
import { machine } from '../lib/machine.js';
import { loadSynthWorkload, workloadQuery, type WorkloadQuery } from '../lib/synth-workload.js';
import { args, arg, pct } from '../lib/cli.js';

const dir = arg('dir')!;
const rounds = Number(arg('rounds', '5'));
const classes = arg('classes', 'or,phrase,filter')!.split(',');
const exactTotal = args.includes('--exact');
const collapse = args.includes('--collapse');
// --no-pairs: phrases without the segments' pair postings (phrasePairs: false; ADR 0175), e.g. for profiles
const noPairs = args.includes('--no-pairs');
const baseDir = arg('base');
const outPath = arg('out');

const workload = loadSynthWorkload();

function toQuery(w: WorkloadQuery): EngineQuery {
  const q = workloadQuery(w);
  if (exactTotal) q.exactTotal = true;
  if (collapse) q.collapseByWorkKey = true;
  if (noPairs) q.phrasePairs = false;
  return q;
}
const r3 = (x: number): number => Math.round(x * 1000) / 1000;

interface Searcher {
  search(q: EngineQuery): { hits: { id: string; score: number }[]; totalHits: number };
  close(): void;
}
const engines: [string, Searcher][] = [['this', SearchIndex.open(new FsIndexDirectory(dir))]];
if (baseDir !== undefined) {
  const root = resolve(baseDir);
  const eng = (await import(pathToFileURL(join(root, 'src', 'engine', 'index.js')).href)) as { SearchIndex: { open(d: unknown): Searcher } };
  const fs = (await import(pathToFileURL(join(root, 'src', 'adapters', 'fs', 'index-directory.js')).href)) as { FsIndexDirectory: new (d: string) => unknown };
  engines.unshift(['base', eng.SearchIndex.open(new fs.FsIndexDirectory(arg('base-dir', dir)!))]);
}
const meta: Record<string, unknown> = { ...machine(), dir, rounds, exactTotal, collapse, base: baseDir ?? null };
const result: Record<string, unknown> = { meta, classes: {} };
for (const cls of classes) {
  const qs = workload[cls]!.map(toQuery);
  const sums = new Map<string, { score: number; totals: number }>();
  const answers = new Map<string, string[]>();
  for (const [name, idx] of engines) {
    let score = 0;
    let totals = 0;
    const got: string[] = [];
    for (const q of qs) {
      const r = idx.search(q);
      totals += r.totalHits;
      for (const h of r.hits) score += h.score;
      got.push(JSON.stringify([exactTotal ? r.totalHits : null, r.hits.map((h) => [h.id, h.score])]));
    }
    sums.set(name, { score, totals });
    answers.set(name, got);
  }
  // with --base, every query's hits (ids and scores, in order) must be identical, and its total when exact
  // (without --exact a total is a lower bound that depends on which candidates the pruned pass reaches, e.g.
  // fewer with phrase pair postings, ADR 0175)
  if (engines.length > 1 && exactTotal && sums.get('base')!.totals !== sums.get('this')!.totals) throw new Error(`${cls}: totals differ: ${JSON.stringify([...sums])}`);
  if (engines.length > 1)
    answers.get('base')!.forEach((a, i) => {
      if (a !== answers.get('this')![i]) throw new Error(`${cls}: query ${i} (${JSON.stringify(qs[i]!.text)}) differs: base ${a} this ${answers.get('this')![i]}`);
    });
  const cpu = new Map<string, number[]>(engines.map(([n]) => [n, []]));
  const wall = new Map<string, number[]>(engines.map(([n]) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    for (let qi = 0; qi < qs.length; qi++) {
      const order = (r + qi) % 2 === 0 ? engines : [...engines].reverse();
      for (const [name, idx] of order) {
        const t = performance.now();
        const c = process.cpuUsage();
        idx.search(qs[qi]!);
        const u = process.cpuUsage(c);
        wall.get(name)!.push(performance.now() - t);
        cpu.get(name)!.push((u.user + u.system) / 1000);
      }
    }
  }
  const out: Record<string, unknown> = {};
  for (const [name] of engines) {
    const c = cpu.get(name)!.sort((a, b) => a - b);
    const w = wall.get(name)!.sort((a, b) => a - b);
    const mean = c.reduce((s, x) => s + x, 0) / c.length;
    const sum = sums.get(name)!;
    out[name] = { cpu_ms: { p50: r3(pct(c, 50)), p95: r3(pct(c, 95)), p99: r3(pct(c, 99)), mean: r3(mean) }, wall_ms: { p50: r3(pct(w, 50)), p99: r3(pct(w, 99)) }, score_checksum: +sum.score.toFixed(6), total_hits_sum: sum.totals };
    console.log(`${cls}${engines.length > 1 ? ` [${name}]` : ''}: cpu p50 ${pct(c, 50).toFixed(3)} p95 ${pct(c, 95).toFixed(3)} p99 ${pct(c, 99).toFixed(3)} ms; mean ${mean.toFixed(3)} ms; score checksum ${sum.score.toFixed(6)}; totals ${sum.totals}`);
  }
  if (engines.length > 1) {
    const m = (n: string) => (out[n] as { cpu_ms: { p50: number; mean: number } }).cpu_ms;
    out['base_over_this_cpu'] = { p50: r3(m('base').p50 / m('this').p50), mean: r3(m('base').mean / m('this').mean) };
    console.log(`${cls}: base/this cpu p50 ${(m('base').p50 / m('this').p50).toFixed(3)}x, mean ${(m('base').mean / m('this').mean).toFixed(3)}x`);
  }
  (result['classes'] as Record<string, unknown>)[cls] = out;
}
meta['load_average_1m_at_end'] = Math.round(loadavg()[0]! * 100) / 100;
// memory of this build's dense-term bitsets after the workload (ADR 0165)
meta['term_bitset_bytes'] = termBitsetBytes();
console.log(`dense-term bitsets held: ${(termBitsetBytes() / 1024).toFixed(0)} KiB`);
for (const [, idx] of engines) idx.close();
if (outPath !== undefined) writeFileSync(outPath, JSON.stringify(result, null, 2) + '\n');
