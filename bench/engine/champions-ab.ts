// Champion lists (ADR 0329) on and off in one process over one index: every workload query runs with
// `champions: true` and `champions: false`, alternating which goes first, and their hits (ids and scores, in
// order) and totals must agree. Reports the searching thread's CPU time per query (p50/p95/p99) for both, the
// MaxScore counters (candidates scored, blocks skipped) from the trace, and how many queries had a seed.
//   node dist/bench/engine/champions-ab.js --dir /tmp/idx-100k [--classes or,phrase,filter] [--rounds 5] [--out x.json]
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { FsIndexDirectory } from '../../src/adapters/fs/index-directory.js';
import { useZlibStoredCodec } from '../../src/adapters/zlib/stored-codec.js';
import { SearchIndex, type EngineQuery, type EngineResult } from '../../src/engine/index.js';
import { machine } from '../lib/machine.js';
import { loadSynthWorkload, workloadQuery } from '../lib/synth-workload.js';
import { arg, pct } from '../lib/cli.js';

useZlibStoredCodec();
const dir = arg('dir')!;
const rounds = Number(arg('rounds', '5'));
const classes = arg('classes', 'or,phrase,filter')!.split(',');
const outPath = arg('out');

const workload = loadSynthWorkload();
const toQuery = workloadQuery;

const loadAtStart = loadavg();
const idx = SearchIndex.open(new FsIndexDirectory(dir));
const stats = idx.stats();
const r3 = (x: number): number => Math.round(x * 1000) / 1000;
const key = (r: EngineResult): string => JSON.stringify([r.totalHits, r.totalHitsExact, r.hits.map((h) => [h.id, h.score])]);
const hitsKey = (r: EngineResult): string => JSON.stringify(r.hits.map((h) => [h.id, h.score]));
const result: Record<string, unknown> = {};
for (const cls of classes) {
  const qs = workload[cls]!.map(toQuery);
  const cpu = { on: [] as number[], off: [] as number[] };
  let seeded = 0;
  let totalsDiffer = 0;
  let exactOn = 0;
  let exactOff = 0;
  const counters = { on: { candidates: 0, scored: 0, skipped: 0 }, off: { candidates: 0, scored: 0, skipped: 0 } };
  const one = (q: EngineQuery, on: boolean, record: boolean): EngineResult => {
    const c = process.cpuUsage();
    const r = idx.search({ ...q, champions: on });
    const u = process.cpuUsage(c);
    if (record) cpu[on ? 'on' : 'off'].push((u.user + u.system) / 1000);
    return r;
  };
  // warm-up, the equality check and the counters (traced runs are not timed)
  for (const q of qs) {
    const a = one({ ...q, trace: true }, true, false);
    const b = one({ ...q, trace: true }, false, false);
    if (hitsKey(a) !== hitsKey(b)) throw new Error(`${cls}: hits differ for ${JSON.stringify(q.text)}`);
    if (key(a) !== key(b)) totalsDiffer++;
    if (a.totalHitsExact) exactOn++;
    if (b.totalHitsExact) exactOff++;
    if (a.trace!.championFloor !== undefined) seeded++;
    for (const [r, c] of [[a, counters.on], [b, counters.off]] as const) {
      for (const s of r.trace!.segments) {
        c.candidates += s.candidates;
        c.scored += s.scored;
        c.skipped += s.skippedBlocks;
      }
    }
  }
  for (let r = 0; r < rounds; r++) {
    qs.forEach((q, i) => {
      const first = (i + r) % 2 === 0;
      one(q, first, true);
      one(q, !first, true);
    });
  }
  const summary = (xs: number[]) => {
    xs.sort((a, b) => a - b);
    return { cpu_p50_ms: r3(pct(xs, 50)), cpu_p95_ms: r3(pct(xs, 95)), cpu_p99_ms: r3(pct(xs, 99)), cpu_mean_ms: r3(xs.reduce((s, x) => s + x, 0) / xs.length) };
  };
  const on = summary(cpu.on);
  const off = summary(cpu.off);
  result[cls] = {
    queries: qs.length,
    samples_each: cpu.on.length,
    champions_on: { ...on, ...counters.on, totals_exact: exactOn },
    champions_off: { ...off, ...counters.off, totals_exact: exactOff },
    p50_speedup: r3(off.cpu_p50_ms / on.cpu_p50_ms),
    p99_speedup: r3(off.cpu_p99_ms / on.cpu_p99_ms),
    seeded_queries: seeded,
    queries_whose_total_differs: totalsDiffer,
  };
  console.error(cls, JSON.stringify(result[cls]));
}
idx.close();
const out = { benchmark: 'engine champion lists on/off (ADR 0329)', dir, docs: stats.docs, segments: stats.segments, bytes: stats.bytes, rounds, load_average_at_start: loadAtStart, load_average_at_end: loadavg(), machine: machine(), classes: result };
if (outPath) writeFileSync(outPath, JSON.stringify(out, null, 1));
console.log(JSON.stringify(out, null, 1));
