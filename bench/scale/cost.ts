// Cost of distribution (issue 24, docs/scale.md "Scatter-gather"): the latency and coordinator CPU that
// scatter-gather adds over one node, on the synthetic corpus and its fixed workload (shared/tools/
// synth-corpus). One index of the whole corpus in this process; S shard processes (children of this
// script, each building its shard and serving the internal shard endpoints on loopback); every workload
// query run on both, alternating, with the service's lexical options (top 10, exact totals, collapse
// by work, 3 passages). Also checks that every query's top 10 is identical.
//   node /work/shared/tools/synth-corpus/synth.mjs --real <shared>/data/ir/scifact/corpus.jsonl --n 100000 --out /tmp/synth-100k.jsonl --seed 7
//   node dist/bench/scale/cost.js --corpus /tmp/synth-100k.jsonl [--shards 2] [--replicas 1] [--rounds 2] [--index-dir DIR] [--out bench/results/scale-cost-100k.json]
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { cpSync, createReadStream, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { MemoryIndexDirectory, SearchIndex, type EngineQuery } from '../../src/engine/index.js';
import { FsIndexDirectory } from '../../src/adapters/fs/index-directory.js';
import { shardOfWork } from '../../src/domain/shard-routing.js';
import { ShardSearcher } from '../../src/search/shard-searcher.js';
import { ScatterGather } from '../../src/search/scatter-gather.js';
import { HttpShardClient } from '../../src/adapters/cluster/http-shard-client.js';
import { buildShardServer } from '../../src/http/shard-server.js';
import { evalDataDir } from '../quality/data-dir.js';
import { arg, pct } from '../lib/cli.js';
import { machine } from '../lib/machine.js';

const corpus = arg('corpus');
const shards = Number(arg('shards', '2'));
const rounds = Number(arg('rounds', '2'));
const shardArg = arg('shard');
const replicas = Number(arg('replicas', '1'));
const replicaArg = Number(arg('replica', '0'));
const indexDir = arg('index-dir') ?? null;
if (!corpus) throw new Error('--corpus FILE (a synth-corpus JSONL) is required');

interface WorkloadQuery {
  text: string;
  filter: { types?: string[]; issued_after?: number; issued_before?: number } | null;
}

/**
 * Builds an index of the corpus's documents (those of shard `only` when given), in memory, or on disk in
 * `dir` (`--index-dir`), where a later run opens it again instead of building (to repeat a measurement).
 */
async function build(only: number | null, dir: string | null): Promise<{ idx: SearchIndex; docs: number; ms: number; reused: boolean }> {
  if (dir && existsSync(join(dir, 'done'))) {
    const t = performance.now();
    const idx = SearchIndex.open(new FsIndexDirectory(dir));
    return { idx, docs: idx.stats().docs, ms: performance.now() - t, reused: true };
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  const idx = SearchIndex.open(dir ? new FsIndexDirectory(dir) : new MemoryIndexDirectory());
  const t = performance.now();
  let docs = 0;
  const rl = createInterface({ input: createReadStream(corpus!, { highWaterMark: 1 << 22 }), crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line) continue;
    const d = JSON.parse(line) as { id: string; title: string; abstract: string; body: string; type: string; issued_at: number; language: string };
    if (only !== null && shardOfWork(d.id, shards) !== only) continue;
    idx.add({ id: d.id, title: d.title, abstract: d.abstract, body: d.body, type: d.type, issuedAt: d.issued_at, language: d.language, workKey: d.id });
    if (++docs % 50_000 === 0) idx.commit(String(docs));
  }
  idx.commit(String(docs));
  if (dir) writeFileSync(join(dir, 'done'), String(docs));
  return { idx, docs, ms: performance.now() - t, reused: false };
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux; clock ticks of 10 ms). */
function procCpuS(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) / 100;
}

if (shardArg !== undefined) {
  // a shard process: build, serve on loopback, say where (one JSON line), serve until killed
  const s = Number(shardArg);
  // a second replica opens a copy of the first one's files (an index directory has one opener)
  const dirOf = (r: number) => (indexDir ? join(indexDir, `shard-${s}-of-${shards}${r > 0 ? `-r${r}` : ''}`) : null);
  const own = dirOf(replicaArg);
  if (own && replicaArg > 0 && !existsSync(join(own, 'done')) && existsSync(join(dirOf(0)!, 'done'))) {
    rmSync(own, { recursive: true, force: true });
    cpSync(dirOf(0)!, own, { recursive: true, filter: (src) => !src.endsWith('LOCK') });
  }
  const { idx, docs, ms } = await build(s, own);
  const app = await buildShardServer({ searchers: [new ShardSearcher(s, { get: () => idx })], secret: process.env['SHARD_SECRET']! });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  let connections = 0;
  app.server.on('connection', () => connections++);
  process.once('SIGTERM', () => {
    // an orderly exit (writes --cpu-prof profiles); connections accepted: 1 per coordinator client when keep-alive works
    process.stderr.write(`shard ${s}: ${connections} connections accepted\n`);
    process.exit(0);
  });
  process.stdout.write(JSON.stringify({ shard: s, replica: replicaArg, url, docs, build_ms: Math.round(ms), rss_mib: Math.round(process.memoryUsage().rss / 2 ** 20) }) + '\n');
} else {
  const secret = randomBytes(24).toString('base64url');
  const script = fileURLToPath(import.meta.url);
  const children: ChildProcess[] = [];
  const started = Array.from({ length: shards * replicas }, (_, i) => {
    const s = i % shards;
    const r = Math.floor(i / shards);
    const child = spawn(process.execPath, [...process.execArgv, script, '--corpus', corpus, '--shards', String(shards), '--shard', String(s), '--replica', String(r), ...(indexDir ? ['--index-dir', indexDir] : [])], { env: { ...process.env, SHARD_SECRET: secret }, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    return new Promise<{ shard: number; replica: number; url: string; docs: number; build_ms: number; rss_mib: number }>((resolve, reject) => {
      let buf = '';
      child.stdout!.on('data', (b: Buffer) => {
        buf += b.toString();
        const nl = buf.indexOf('\n');
        if (nl >= 0) resolve(JSON.parse(buf.slice(0, nl)));
      });
      child.once('exit', (code) => reject(new Error(`shard ${s} exited with ${code}`)));
    });
  });
  const uptimeBefore = execFileSync('uptime', { encoding: 'utf8' }).trim();
  const machineAtStart = machine();
  try {
    const single = await build(null, indexDir ? join(indexDir, 'single') : null);
    const shardInfo = await Promise.all(started);
    // one client (one keep-alive agent) per shard for the whole run, as the api node's shard directory keeps
    // them (a client made per call would open a connection per search: the 20k run of this bench did that)
    const clients = shardInfo.map((x) => new HttpShardClient(x.shard, x.url, secret));
    const directory = { shards, replicas: (s: number) => clients.filter((c) => c.shard === s) };
    // the DFS phase on every search (a query the coordinator has not seen the terms of), and with kept
    // statistics (ADR 0260: one round trip when every term is kept; the warm-up pass keeps them)
    const sgDfs = new ScatterGather(directory, { hedgeAfterMs: 60_000, deadlineMs: 120_000, keepStats: false });
    const sg = new ScatterGather(directory, { hedgeAfterMs: 60_000, deadlineMs: 120_000 });
    const workload = JSON.parse(readFileSync(join(evalDataDir(), '..', 'tools', 'synth-corpus', 'workload.json'), 'utf8')) as Record<string, WorkloadQuery[]>;
    const toQuery = (w: WorkloadQuery): EngineQuery => ({
      text: w.text,
      limit: 10,
      exactTotal: true,
      collapseByWorkKey: true,
      passagesPerHit: 3,
      ...(w.filter ? { filters: { types: w.filter.types ?? null, issuedAfter: w.filter.issued_after ?? null, issuedBefore: w.filter.issued_before ?? null } } : {}),
    });
    const classes: Record<string, unknown> = {};
    let differing = 0;
    let queries = 0;
    for (const cls of ['or', 'phrase', 'filter']) {
      const qs = workload[cls]!.map(toQuery);
      for (const q of qs) {
        single.idx.search(q);
        await sgDfs.search('documents', q);
        await sg.search('documents', q);
      }
      const one: number[] = [];
      const oneCpu: number[] = [];
      const dist: number[] = [];
      const coordCpu: number[] = [];
      const kept: number[] = [];
      const keptCpu: number[] = [];
      let shardCpuDfs = 0;
      let shardCpuKept = 0;
      const keptBefore = { ...sg.keptStats };
      for (let r = 0; r < rounds; r++) {
        for (const [i, q] of qs.entries()) {
          const runOne = async () => {
            const c = process.cpuUsage();
            const t = performance.now();
            const res = single.idx.search(q);
            one.push(performance.now() - t);
            const u = process.cpuUsage(c);
            oneCpu.push((u.user + u.system) / 1000);
            return res;
          };
          const runDist = async (g: ScatterGather, wall: number[], cpu: number[]) => {
            const s0 = children.reduce((n, c) => n + procCpuS(c.pid!), 0);
            const c = process.cpuUsage();
            const t = performance.now();
            const res = await g.search('documents', q);
            wall.push(performance.now() - t);
            const u = process.cpuUsage(c);
            cpu.push((u.user + u.system) / 1000);
            const ds = children.reduce((n, c) => n + procCpuS(c.pid!), 0) - s0;
            if (g === sg) shardCpuKept += ds;
            else shardCpuDfs += ds;
            return res.result;
          };
          // rotate which side goes first
          const runs = [() => runOne(), () => runDist(sgDfs, dist, coordCpu), () => runDist(sg, kept, keptCpu)];
          const k = (i + r) % 3;
          const got: Record<number, Awaited<ReturnType<(typeof runs)[number]>>> = {};
          for (let j = 0; j < 3; j++) got[(k + j) % 3] = await runs[(k + j) % 3]!();
          if (r === 0) {
            queries++;
            const key = (x: typeof got[0]) => JSON.stringify([x.totalHits, x.hits.map((h) => [h.id, h.score])]);
            if (key(got[0]!) !== key(got[1]!) || key(got[0]!) !== key(got[2]!)) differing++;
          }
        }
      }
      // shard CPU from /proc (10 ms ticks), summed over each side's searches: a mean per search
      const mean = (x: number[]) => x.reduce((p, q) => p + q, 0) / x.length;
      const s = (x: number[]) => [...x].sort((p, q) => p - q);
      const r3 = (x: number) => Math.round(x * 1000) / 1000;
      const lat = (x: number[]) => ({ p50: r3(pct(x, 50)), p95: r3(pct(x, 95)), p99: r3(pct(x, 99)) });
      const [o, d, kk, oc, dc, kc] = [s(one), s(dist), s(kept), s(oneCpu), s(coordCpu), s(keptCpu)];
      classes[cls] = {
        queries: qs.length,
        samples_per_side: o.length,
        one_node_ms: lat(o),
        scatter_gather_dfs_ms: lat(d),
        scatter_gather_kept_stats_ms: lat(kk),
        added_p50_ms: { dfs: r3(pct(d, 50) - pct(o, 50)), kept_stats: r3(pct(kk, 50) - pct(o, 50)) },
        added_p99_ms: { dfs: r3(pct(d, 99) - pct(o, 99)), kept_stats: r3(pct(kk, 99) - pct(o, 99)) },
        // server CPU per search: one node's engine call; the cluster's coordinator + every shard process
        cpu_ms_per_search: {
          one_node: { p50: r3(pct(oc, 50)), mean: r3(mean(oc)) },
          dfs: { coordinator_p50: r3(pct(dc, 50)), coordinator_mean: r3(mean(dc)), shards_mean: r3((shardCpuDfs * 1000) / d.length), cluster_mean: r3(mean(dc) + (shardCpuDfs * 1000) / d.length) },
          kept_stats: { coordinator_p50: r3(pct(kc, 50)), coordinator_mean: r3(mean(kc)), shards_mean: r3((shardCpuKept * 1000) / kk.length), cluster_mean: r3(mean(kc) + (shardCpuKept * 1000) / kk.length) },
        },
        kept_stats_searches: sg.keptStats.searches - keptBefore.searches,
        kept_stats_stale: sg.keptStats.stale - keptBefore.stale,
      };
      console.error(cls, JSON.stringify(classes[cls]));
    }
    const doc = {
      benchmark: 'scale-cost',
      replicas_per_shard: replicas,
      what: `one index in-process vs ${shards} shards x ${replicas} replica processes (the coordinator rotates the replica it starts with per search) over HTTP on loopback through the coordinator, (a) with the DFS round trip on every search, (b) with kept statistics (ADR 0260: one round trip; the warm-up pass kept every query's terms); service lexical options (top 10, exact totals, collapse, 3 passages); concurrency 1; ${rounds} rounds after a warm-up, the three sides' order rotated per query`,
      corpus: corpus,
      documents: single.docs,
      shards: shardInfo,
      single_build_ms: Math.round(single.ms),
      single_reused_from_disk: single.reused,
      identical_top10_scores_and_totals: `${queries - differing}/${queries}`,
      concurrency: 1,
      machine: { ...machineAtStart, load_average_at_end: loadavg().map((x) => Math.round(x * 100) / 100), note: 'shared 2-core machine: other helpers build and test at the same time (load recorded); the shard processes share the two cores with this one' },
      uptime_before: uptimeBefore,
      uptime_after: execFileSync('uptime', { encoding: 'utf8' }).trim(),
      target: 'issue 24: p50 + <= 1 ms over one node at 100k on loopback',
      classes,
    };
    const text = JSON.stringify(doc, null, 2);
    console.log(text);
    const out = arg('out');
    if (out) writeFileSync(out, text + '\n');
    single.idx.close();
    for (const c of clients) c.close();
  } finally {
    for (const c of children) c.kill('SIGTERM');
  }
}
