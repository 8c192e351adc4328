// Engine speed benchmark on the synthetic corpus (shared/tools/synth-corpus) and its fixed workload:
// build docs/s, index bytes by component, open time, p50/p95/p99 latency per workload class (or,
// phrase, filter; single thread, top-10, after warm-up), resident memory. Asserts its own results:
// pruned top-10 equals the exhaustive scorer on a sample of every class, and classes return hits.
//
//   node --expose-gc dist/bench/engine/run.js --corpus /work/tmp/synth-100k.jsonl --dir /work/tmp/idx-100k \
//        --out engine-100k.json [--limit 100000] [--rounds 5] [--force-merge] [--no-stored]
//
// Stored fields (issue 29, ADR 0280): each document carries the display record the service stores for
// it (the record `lectern ingest` makes of the line, without full text, as JSON), compressed in blocks
// with node:zlib as the service's threads do; its encoding is outside the timed add(). `--no-stored`
// indexes without them (the index as before format 3).
//
// HTTP searches/s (2 clients) needs the service: the service benchmark should open the index built
// here (--dir) through the app and add its numbers under "http" in the same JSON (see README.md).
import { createReadStream, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { FsIndexDirectory } from '../../src/adapters/fs/index-directory.js';
import { SearchIndex, type EngineQuery } from '../../src/engine/index.js';
import { useZlibStoredCodec } from '../../src/adapters/zlib/stored-codec.js';
import { parseLectern } from '../../src/ingest/formats/lectern-jsonl.js';
import { encodeStoredDisplay } from '../../src/search/stored-display.js';
import { repoRoot } from '../../test/helpers/paths.js';
import { evalDataDir } from '../quality/data-dir.js';
import { machine } from '../lib/machine.js';
import { args, arg, pct } from '../lib/cli.js';

const loadAtStart = loadavg();
const machineAtStart = machine();
const corpus = arg('corpus')!;
const dirPath = arg('dir')!;
const outName = arg('out');
const limitDocs = Number(arg('limit', 'Infinity'));
const rounds = Number(arg('rounds', '5'));
const flushOccurrences = arg('flush-occurrences') ? Number(arg('flush-occurrences')) : undefined;
const indexOptions = flushOccurrences ? { flushOccurrences } : {};
const gc = (globalThis as { gc?: () => void }).gc;
const withStored = !args.includes('--no-stored');
useZlibStoredCodec();

interface WorkloadQuery {
  qid: string;
  cls: string;
  text: string;
  filter: { types?: string[]; issued_after?: number; issued_before?: number } | null;
}
const workloadPath = join(evalDataDir(), '..', 'tools', 'synth-corpus', 'workload.json');
const workload = JSON.parse(readFileSync(workloadPath, 'utf8')) as Record<string, WorkloadQuery[]>;

function toQuery(w: WorkloadQuery): EngineQuery {
  const q: EngineQuery = { text: w.text, limit: 10 };
  if (w.filter) q.filters = { types: w.filter.types ?? null, issuedAfter: w.filter.issued_after ?? null, issuedBefore: w.filter.issued_before ?? null };
  return q;
}

async function build(): Promise<{ docs: number; engineMs: number; engineCpuMs: number; wallMs: number; commits: number }> {
  rmSync(dirPath, { recursive: true, force: true });
  const idx = SearchIndex.open(new FsIndexDirectory(dirPath), indexOptions);
  const rl = createInterface({ input: createReadStream(corpus, { highWaterMark: 1 << 22 }), crlfDelay: Infinity });
  let docs = 0;
  let engineMs = 0;
  // CPU time of this thread in add() and commit(): robust to other processes on the shared cores
  let engineCpuUs = 0;
  let commits = 0;
  const w0 = performance.now();
  for await (const line of rl) {
    if (!line) continue;
    if (docs >= limitDocs) break;
    const d = JSON.parse(line) as { id: string; title: string; abstract: string; body: string; type: string; issued_at: number; language: string };
    const stored = withStored ? encodeStoredDisplay({ ...parseLectern(d).record, seq: docs + 1, workKey: d.id, createdAt: 1_700_000_000, updatedAt: 1_700_000_000 }) : null;
    const t = performance.now();
    const c = process.cpuUsage();
    idx.add({ id: d.id, title: d.title, abstract: d.abstract, body: d.body, type: d.type, issuedAt: d.issued_at, language: d.language, stored });
    docs++;
    if (docs % 50_000 === 0) {
      idx.commit(String(docs));
      commits++;
    }
    engineMs += performance.now() - t;
    const u = process.cpuUsage(c);
    engineCpuUs += u.user + u.system;
    if (docs % 100_000 === 0) console.error(`${docs} docs, ${(docs / (engineMs / 1000)).toFixed(0)} docs/s engine`);
  }
  const t = performance.now();
  const c = process.cpuUsage();
  idx.commit(String(docs));
  commits++;
  // the host's timer would now run merge steps; run them to completion (counted separately)
  engineMs += performance.now() - t;
  const u = process.cpuUsage(c);
  engineCpuUs += u.user + u.system;
  const wallMs = performance.now() - w0;
  idx.close();
  return { docs, engineMs, engineCpuMs: engineCpuUs / 1000, wallMs, commits };
}

function measure(idx: SearchIndex): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const cls of ['or', 'phrase', 'filter']) {
    const qs = workload[cls]!.map(toQuery);
    for (const q of qs) idx.search(q); // warm-up
    const samples: number[] = [];
    const cpuSamples: number[] = [];
    let hits = 0;
    let withHits = 0;
    for (let r = 0; r < rounds; r++) {
      for (const q of qs) {
        const c = process.cpuUsage();
        const t = performance.now();
        const res = idx.search(q);
        samples.push(performance.now() - t);
        const u = process.cpuUsage(c);
        cpuSamples.push((u.user + u.system) / 1000);
        if (r === 0) {
          hits += res.hits.length;
          if (res.hits.length > 0) withHits++;
        }
      }
    }
    samples.sort((a, b) => a - b);
    cpuSamples.sort((a, b) => a - b);
    // correctness: pruned == exhaustive on a sample
    let checked = 0;
    for (let i = 0; i < qs.length; i += 10) {
      const a = idx.search(qs[i]!);
      const b = idx.search({ ...qs[i]!, exhaustive: true });
      const key = (r: typeof a): string => JSON.stringify(r.hits.map((h) => [h.id, h.score]));
      if (key(a) !== key(b)) throw new Error(`pruned result differs from exhaustive for ${cls} query ${JSON.stringify(qs[i]!.text)}`);
      checked++;
    }
    if (withHits < qs.length * 0.5) throw new Error(`${cls}: only ${withHits}/${qs.length} queries returned hits`);
    out[cls] = {
      queries: qs.length,
      samples: samples.length,
      p50_ms: +pct(samples, 50).toFixed(4),
      p95_ms: +pct(samples, 95).toFixed(4),
      p99_ms: +pct(samples, 99).toFixed(4),
      mean_ms: +(samples.reduce((s, x) => s + x, 0) / samples.length).toFixed(4),
      // CPU time of the searching thread (1 µs resolution): robust to other processes on the shared cores
      cpu_p50_ms: +pct(cpuSamples, 50).toFixed(3),
      cpu_p95_ms: +pct(cpuSamples, 95).toFixed(3),
      cpu_p99_ms: +pct(cpuSamples, 99).toFixed(3),
      queries_with_hits: withHits,
      mean_hits: +(hits / qs.length).toFixed(2),
      checked_against_exhaustive: checked,
    };
    console.error(cls, JSON.stringify(out[cls]));
  }
  return out;
}

/**
 * Xapian over the same corpus and workload, in this run (bench/engine/xapian_peer.py, Debian's
 * python3-xapian): null with the reason on stderr when it is not installed or --no-peer is given.
 */
function xapianPeer(): Record<string, unknown> | null {
  if (args.includes('--no-peer')) return null;
  // --peer-reuse: query the Xapian database an earlier run left beside --dir (its build numbers then come
  // from the --build-from JSON)
  const reuse = args.includes('--peer-reuse');
  const r = spawnSync('/usr/bin/python3', [join(repoRoot, 'bench', 'engine', 'xapian_peer.py'), corpus, workloadPath, `${dirPath}-xapian`, String(rounds), String(b.docs), ...(reuse ? ['reuse'] : [])], { encoding: 'utf8', maxBuffer: 16 * 2 ** 20 });
  if (r.status !== 0) {
    console.error(`xapian peer not measured (apt-get install python3-xapian): ${(r.stderr || r.error?.message || '').slice(-500)}`);
    return null;
  }
  const peer = JSON.parse(r.stdout) as Record<string, unknown>;
  if (peer['build_docs_per_s'] === null && prevRun?.peer) {
    peer['build_docs_per_s'] = prevRun.peer.build_docs_per_s;
    peer['build_s'] = prevRun.peer.build_s;
    peer['build_note'] = `build measured in the run of ${arg('build-from')}; database reused`;
  }
  console.error('xapian', JSON.stringify(peer));
  return peer;
}

// --reuse: measure an index a previous run built in --dir (build numbers then come from --build-from JSON)
let b: { docs: number; engineMs: number; engineCpuMs: number; wallMs: number; commits: number };
let prevRun: { peer?: { build_docs_per_s: number; build_s: number } | null } | null = null;
if (args.includes('--reuse')) {
  const prev = JSON.parse(readFileSync(join(repoRoot, 'bench', 'results', arg('build-from', outName ?? '')!), 'utf8')) as { docs: number; build: { engine_ms: number; engine_cpu_ms?: number; wall_ms_including_json_parse: number; commits: number }; peer?: { build_docs_per_s: number; build_s: number } | null };
  prevRun = prev;
  b = { docs: prev.docs, engineMs: prev.build.engine_ms, engineCpuMs: prev.build.engine_cpu_ms ?? NaN, wallMs: prev.build.wall_ms_including_json_parse, commits: prev.build.commits };
} else b = await build();
console.error(`built ${b.docs} docs: ${(b.docs / (b.engineMs / 1000)).toFixed(0)} docs/s (engine), wall ${(b.wallMs / 1000).toFixed(1)} s`);
gc?.();
let t = performance.now();
let idx = SearchIndex.open(new FsIndexDirectory(dirPath));
const openMs = performance.now() - t;
gc?.();
const rssAfterOpen = process.memoryUsage().rss;
const statsBuilt = idx.stats();
const asBuilt = measure(idx);
// background merging as the host's timer would do it
t = performance.now();
let steps = 0;
if (!args.includes('--no-merge')) while (idx.mergeStep().state !== 'idle') steps++;
const tieredMergeMs = performance.now() - t;
let forceMergeMs: number | null = null;
if (args.includes('--force-merge')) {
  t = performance.now();
  idx.forceMerge(1);
  forceMergeMs = performance.now() - t;
}
idx.close();
gc?.();
t = performance.now();
idx = SearchIndex.open(new FsIndexDirectory(dirPath));
const openMergedMs = performance.now() - t;
const statsMerged = idx.stats();
const merged = measure(idx);
gc?.();
const rss = process.memoryUsage().rss;
idx.close();
const result = {
  benchmark: 'engine',
  corpus,
  docs: b.docs,
  flush_occurrences: flushOccurrences ?? 'default',
  load_average_at_start: loadAtStart,
  load_average_at_end: loadavg(),
  build: { engine_docs_per_s: Math.round(b.docs / (b.engineMs / 1000)), engine_ms: Math.round(b.engineMs), engine_cpu_docs_per_s: Math.round(b.docs / (b.engineCpuMs / 1000)), engine_cpu_ms: Math.round(b.engineCpuMs), wall_ms_including_json_parse: Math.round(b.wallMs), commits: b.commits, note: 'engine time = add() + commit() (flushes included), JSON parsing excluded; merges reported separately; engine_cpu_* = CPU time of the indexing thread over the same calls (fsync waits excluded, other processes on the shared cores mostly excluded)' },
  open_ms: Math.round(openMs),
  stored_fields: { included: withStored, as_built_mib: +(statsBuilt.bytes.stored / 2 ** 20).toFixed(1), after_merge_mib: +(statsMerged.bytes.stored / 2 ** 20).toFixed(1), index_mib_without_them_after_merge: +((statsMerged.bytes.total - statsMerged.bytes.stored) / 2 ** 20).toFixed(1), note: 'ADR 0280: the display record of each document (the record lectern ingest makes of the line, no full text) as JSON, raw DEFLATE in 16 KiB blocks' },
  as_built: { segments: statsBuilt.segments, bytes: statsBuilt.bytes, index_mib: +(statsBuilt.bytes.total / 2 ** 20).toFixed(1), latency: asBuilt },
  after_merge: { tiered_merge_ms: Math.round(tieredMergeMs), merge_steps: steps, force_merge_ms: forceMergeMs === null ? null : Math.round(forceMergeMs), segments: statsMerged.segments, open_ms: Math.round(openMergedMs), bytes: statsMerged.bytes, index_mib: +(statsMerged.bytes.total / 2 ** 20).toFixed(1), latency: merged },
  rss_mib_after_open: Math.round(rssAfterOpen / 2 ** 20),
  rss_mib_end: Math.round(rss / 2 ** 20),
  http: null,
  peer: xapianPeer(),
  machine: { cpu: cpus()[0]?.model, cores: cpus().length, ram_gib: Math.round(totalmem() / 2 ** 30), node: process.version, note: '2 cores shared with other work; numbers are medians-of-samples percentiles and may be noisy' },
  machine_at_start: machineAtStart,
  // --note: what the run's reader should know (e.g. why the peer is missing)
  note: arg('note') ?? null,
};
// Ratios against the peer measured in this run (> 1: Lectern is faster / smaller).
if (result.peer) {
  const p = result.peer as { build_docs_per_s: number; index_mib: number; latency: Record<string, { p50_ms: number; p99_ms: number; cpu_p50_ms?: number; cpu_p99_ms?: number }> };
  const ratios: Record<string, number> = {
    build_docs_per_s: +(result.build.engine_docs_per_s / p.build_docs_per_s).toFixed(2),
    index_size: +(p.index_mib / result.after_merge.index_mib).toFixed(2),
  };
  for (const cls of ['or', 'phrase', 'filter']) {
    const ours = (merged as Record<string, { p50_ms: number; p99_ms: number }>)[cls]!;
    ratios[`${cls}_p50_speedup`] = +(p.latency[cls]!.p50_ms / ours.p50_ms).toFixed(2);
    ratios[`${cls}_p99_speedup`] = +(p.latency[cls]!.p99_ms / ours.p99_ms).toFixed(2);
  }
  // CPU time of the querying thread on both sides: the comparison that survives a loaded machine
  for (const cls of ['or', 'phrase', 'filter']) {
    const ours = (merged as Record<string, { cpu_p50_ms: number; cpu_p99_ms: number }>)[cls]!;
    const theirs = p.latency[cls]!;
    if (theirs.cpu_p50_ms === undefined || theirs.cpu_p99_ms === undefined) continue;
    ratios[`${cls}_cpu_p50_speedup`] = +(theirs.cpu_p50_ms / ours.cpu_p50_ms).toFixed(2);
    ratios[`${cls}_cpu_p99_speedup`] = +(theirs.cpu_p99_ms / ours.cpu_p99_ms).toFixed(2);
  }
  (result as Record<string, unknown>).lectern_over_xapian = ratios;
}
console.log(JSON.stringify(result, null, 1));
if (outName) writeFileSync(join(repoRoot, 'bench', 'results', outName), JSON.stringify(result, null, 2) + '\n');
