// Latency of the workload classes on an index that already exists (no build, no merge, no peer): the
// quick A/B and profiling loop for engine changes (`node --cpu-prof dist/bench/engine/classes.js ...`).
//
//   node dist/bench/engine/classes.js --dir /work/tmp/idx-100k [--classes or,phrase,filter] [--rounds 5]
//
// Prints CPU-time p50/p95/p99 per class (the searching thread's CPU time: robust to other processes on the
// shared cores) and a checksum of the results, so two builds can be compared on the same index.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FsIndexDirectory } from '../../src/adapters/fs/index-directory.js';
import { SearchIndex, type EngineQuery } from '../../src/engine/index.js';
import { evalDataDir } from '../quality/data-dir.js';

const args = process.argv.slice(2);
const arg = (name: string, d?: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : d;
};
const dir = arg('dir')!;
const rounds = Number(arg('rounds', '5'));
const classes = arg('classes', 'or,phrase,filter')!.split(',');

interface WorkloadQuery {
  text: string;
  filter: { types?: string[]; issued_after?: number; issued_before?: number } | null;
}
const workload = JSON.parse(readFileSync(join(evalDataDir(), '..', 'tools', 'synth-corpus', 'workload.json'), 'utf8')) as Record<string, WorkloadQuery[]>;

function toQuery(w: WorkloadQuery): EngineQuery {
  const q: EngineQuery = { text: w.text, limit: 10 };
  if (w.filter) q.filters = { types: w.filter.types ?? null, issuedAfter: w.filter.issued_after ?? null, issuedBefore: w.filter.issued_before ?? null };
  return q;
}
const pct = (s: number[], p: number): number => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;

const idx = SearchIndex.open(new FsIndexDirectory(dir));
for (const cls of classes) {
  const qs = workload[cls]!.map(toQuery);
  let sum = 0;
  for (const q of qs) for (const h of idx.search(q).hits) sum += h.score;
  const cpu: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const q of qs) {
      const c = process.cpuUsage();
      idx.search(q);
      const u = process.cpuUsage(c);
      cpu.push((u.user + u.system) / 1000);
    }
  }
  cpu.sort((a, b) => a - b);
  console.log(`${cls}: cpu p50 ${pct(cpu, 50).toFixed(3)} p95 ${pct(cpu, 95).toFixed(3)} p99 ${pct(cpu, 99).toFixed(3)} ms; mean ${(cpu.reduce((s, x) => s + x, 0) / cpu.length).toFixed(3)} ms; score checksum ${sum.toFixed(6)}`);
}
idx.close();
