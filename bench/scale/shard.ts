// Per-shard figures (issue 24, docs/scale.md "A plan for 100M works"): what one shard replica of N
// documents costs. A shard's index is an ordinary index of the documents routed to it, so this builds one
// on disk from the first N documents of the synthetic corpus (shared/tools/synth-corpus) exactly as a
// search node's index does (commit every 50,000 documents; work key = id, so collapsing by work is
// exercised), and records along the way, at every checkpoint (`--every`, default 100,000 documents):
// documents, wall and CPU time of the indexing thread, RSS and peak RSS of the process, bytes on disk,
// the load average; at every `--measure-every` checkpoint (default 250,000) it also runs the fixed workload
// (or / phrase / filter, 200 queries each, single thread, one warm-up pass) with the options the
// coordinator sends a shard (top 10, exact totals, collapse by work, 3 passages per hit), so the curve of
// latency against shard size is measured, not assumed. After the build: reopen (open time, RSS after
// open), then the workload `--rounds` times. The JSON is rewritten after every checkpoint, so a run cut
// short by a deadline still leaves its largest measured size.
//   node --expose-gc dist/bench/scale/shard.js --corpus tmp/synth-1m.jsonl --dir tmp/shard-1m --docs 1000000 \
//        --out bench/results/scale-shard-1m.json [--every 100000] [--measure-every 250000] [--rounds 2] [--follow]
// --follow: the corpus file is still being written by its generator; read it as it grows (tail -f) and
// stop at --docs documents. After the build the index is also opened by a fresh process (the RSS a
// serving replica pays, without the building process's heap): `fresh_process_open`.
//   node --expose-gc dist/bench/scale/shard.js --open-only DIR   (that child: prints its JSON)
import { execFileSync, spawn } from 'node:child_process';
import { createReadStream, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { FsIndexDirectory } from '../../src/adapters/fs/index-directory.js';
import { SearchIndex, type EngineQuery } from '../../src/engine/index.js';
import { evalDataDir } from '../quality/data-dir.js';
import { arg, args, pct } from '../lib/cli.js';
import { machine } from '../lib/machine.js';

if (arg('open-only')) {
  // the child of the fresh-process measurement: open the index, collect, print
  const before = process.memoryUsage().rss;
  const t0 = performance.now();
  const i = SearchIndex.open(new FsIndexDirectory(arg('open-only')!));
  const openMs = performance.now() - t0;
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  const r = { docs: i.stats().docs, open_ms: Math.round(openMs), rss_mib_before_open: Math.round(before / 2 ** 20), rss_mib_after_open: Math.round(m.rss / 2 ** 20), heap_used_mib: Math.round(m.heapUsed / 2 ** 20), external_mib: Math.round(m.external / 2 ** 20), array_buffers_mib: Math.round(m.arrayBuffers / 2 ** 20) };
  i.close();
  process.stdout.write(JSON.stringify(r) + '\n');
  process.exit(0);
}
const corpus = arg('corpus');
const dir = arg('dir');
const out = arg('out');
if (!corpus || !dir || !out) throw new Error('--corpus FILE --dir DIR --out FILE are required');
const maxDocs = Number(arg('docs', '1000000'));
const every = Number(arg('every', '100000'));
const measureEvery = Number(arg('measure-every', '250000'));
const rounds = Number(arg('rounds', '2'));
const gc = (globalThis as { gc?: () => void }).gc;

interface WorkloadQuery {
  text: string;
  filter: { types?: string[]; issued_after?: number; issued_before?: number } | null;
}
const workload = JSON.parse(readFileSync(join(evalDataDir(), '..', 'tools', 'synth-corpus', 'workload.json'), 'utf8')) as Record<string, WorkloadQuery[]>;
const toQuery = (w: WorkloadQuery): EngineQuery => ({
  text: w.text,
  limit: 10,
  exactTotal: true,
  collapseByWorkKey: true,
  passagesPerHit: 3,
  ...(w.filter ? { filters: { types: w.filter.types ?? null, issuedAfter: w.filter.issued_after ?? null, issuedBefore: w.filter.issued_before ?? null } } : {}),
});

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const mib = (b: number) => Math.round(b / 2 ** 20);
const load = () => loadavg().map((x) => Math.round(x * 100) / 100);
const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();
/** Bytes the index directory takes on disk (du: allocated blocks, what a disk must hold). */
const diskBytes = (): number => Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);

/** The workload on `idx`: p50/p95/p99 wall and CPU (of this thread) per class. */
function measure(idx: SearchIndex, passes: number): Record<string, unknown> {
  const res: Record<string, unknown> = {};
  for (const cls of ['or', 'phrase', 'filter']) {
    const qs = workload[cls]!.map(toQuery);
    for (const q of qs) idx.search(q); // warm-up
    const wall: number[] = [];
    const cpu: number[] = [];
    let withHits = 0;
    for (let r = 0; r < passes; r++) {
      for (const q of qs) {
        const c = process.cpuUsage();
        const t = performance.now();
        const x = idx.search(q);
        wall.push(performance.now() - t);
        const u = process.cpuUsage(c);
        cpu.push((u.user + u.system) / 1000);
        if (r === 0 && x.hits.length > 0) withHits++;
      }
    }
    wall.sort((a, b) => a - b);
    cpu.sort((a, b) => a - b);
    if (withHits < qs.length / 2) throw new Error(`${cls}: only ${withHits}/${qs.length} queries returned hits`);
    res[cls] = {
      samples: wall.length,
      p50_ms: r3(pct(wall, 50)),
      p95_ms: r3(pct(wall, 95)),
      p99_ms: r3(pct(wall, 99)),
      cpu_p50_ms: r3(pct(cpu, 50)),
      cpu_p99_ms: r3(pct(cpu, 99)),
      queries_with_hits: withHits,
    };
  }
  return res;
}

const doc: Record<string, unknown> = {
  benchmark: 'scale-shard: one shard replica of N documents (bench/scale/shard.ts)',
  what: 'an on-disk index of the first N synthetic documents built as a search node builds its shard (commit every 50,000), checkpoints every ' + every + ' documents; workload with the options the coordinator sends a shard (top 10, exact totals, collapse by work, 3 passages); single thread',
  corpus,
  machine: { ...machine(), note: 'shared 2-core machine: other helpers run builds and tests at the same time; wall-clock figures are inflated by their load (recorded), CPU-time figures much less' },
  uptime_before: uptime(),
  checkpoints: [] as unknown[],
};
const save = () => writeFileSync(out, JSON.stringify(doc, null, 2) + '\n');

rmSync(dir, { recursive: true, force: true });
const idx = SearchIndex.open(new FsIndexDirectory(dir));
const follow = args.includes('--follow');
const tail = follow ? spawn('tail', ['-c', '+1', '-f', corpus], { stdio: ['ignore', 'pipe', 'inherit'] }) : null;
const rl = createInterface({ input: tail ? tail.stdout! : createReadStream(corpus, { highWaterMark: 1 << 22 }), crlfDelay: Infinity });
let docs = 0;
let engineMs = 0;
let engineCpuUs = 0;
const w0 = performance.now();
for await (const line of rl) {
  if (!line) continue;
  if (docs >= maxDocs) break;
  const d = JSON.parse(line) as { id: string; title: string; abstract: string; body: string; type: string; issued_at: number; language: string };
  const t = performance.now();
  const c = process.cpuUsage();
  idx.add({ id: d.id, title: d.title, abstract: d.abstract, body: d.body, type: d.type, issuedAt: d.issued_at, language: d.language, workKey: d.id });
  docs++;
  if (docs % 50_000 === 0) idx.commit(String(docs));
  engineMs += performance.now() - t;
  const u = process.cpuUsage(c);
  engineCpuUs += u.user + u.system;
  if (docs % every === 0) {
    const cp: Record<string, unknown> = {
      docs,
      wall_s: r3((performance.now() - w0) / 1000),
      engine_s: r3(engineMs / 1000),
      engine_cpu_s: r3(engineCpuUs / 1e6),
      engine_docs_per_s: Math.round(docs / (engineMs / 1000)),
      engine_cpu_docs_per_s: Math.round(docs / (engineCpuUs / 1e6)),
      rss_mib: mib(process.memoryUsage().rss),
      peak_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024),
      disk_mib: mib(diskBytes()),
      segments: idx.stats().segments,
      load_average: load(),
      at: new Date().toISOString(),
    };
    if (docs % measureEvery === 0) {
      // measuring is not indexing: wall_s (from the start) includes it, engine_* do not
      if (docs % 50_000 !== 0) idx.commit(String(docs)); // searches see committed documents
      cp['latency'] = measure(idx, 1);
      cp['latency_note'] = 'on the writer, as built (no merge), one pass after a warm-up';
    }
    (doc['checkpoints'] as unknown[]).push(cp);
    console.error(JSON.stringify(cp));
    save();
  }
  if (docs >= maxDocs) break; // --follow: the file may not end here
}
rl.close();
tail?.kill();
idx.commit(String(docs));
idx.close();
gc?.();
const built = { docs, wall_s: r3((performance.now() - w0) / 1000), engine_s: r3(engineMs / 1000), engine_cpu_s: r3(engineCpuUs / 1e6), engine_docs_per_s: Math.round(docs / (engineMs / 1000)), engine_cpu_docs_per_s: Math.round(docs / (engineCpuUs / 1e6)), peak_rss_mib_during_build: Math.round(process.resourceUsage().maxRSS / 1024), disk_mib: mib(diskBytes()) };
doc['build'] = built;
save();
const t = performance.now();
const reopened = SearchIndex.open(new FsIndexDirectory(dir));
const openMs = performance.now() - t;
gc?.();
const stats = reopened.stats();
doc['final'] = {
  docs: stats.docs,
  open_ms: Math.round(openMs),
  rss_mib_after_open: mib(process.memoryUsage().rss),
  rss_note: 'of the process that built the index (its build heap may still be mapped): an upper bound; fresh_process_open is the same index opened by a new process (a serving replica\'s RSS)',
  segments: stats.segments,
  bytes: stats.bytes,
  disk_mib: mib(diskBytes()),
  latency: measure(reopened, rounds),
  rss_mib_after_queries: mib(process.memoryUsage().rss),
  load_average: load(),
};
reopened.close();
// a serving replica's RSS: the index opened by a new process (this one still maps its build heap)
const child = execFileSync(process.execPath, ['--expose-gc', process.argv[1]!, '--open-only', dir], { encoding: 'utf8', maxBuffer: 1 << 20 });
doc['fresh_process_open'] = { dir, ...(JSON.parse(child.trim().split('\n').pop()!) as object), uptime: uptime() };
doc['uptime_after'] = uptime();
save();
console.log(JSON.stringify(doc, null, 2));
