// Cost of distribution (issue 24, docs/scale.md "Scatter-gather"): the latency and coordinator CPU that
// scatter-gather adds over one node, on the synthetic corpus and its fixed workload (shared/tools/
// synth-corpus). One index of the whole corpus in this process; S shard processes (children of this
// script, each building its shard and serving the internal shard endpoints on loopback); every workload
// query run on both, alternating, with the service's lexical options (top 10, exact totals, collapse
// by work, 3 passages). Also checks that every query's top 10 is identical.
//   node /work/shared/tools/synth-corpus/synth.mjs --real <shared>/data/ir/scifact/corpus.jsonl --n 100000 --out /tmp/synth-100k.jsonl --seed 7
//   node dist/bench/scale/cost.js --corpus /tmp/synth-100k.jsonl [--shards 2] [--replicas 1] [--rounds 2] [--index-dir DIR] [--colocate] [--out bench/results/scale-cost-100k.json]
// The documents carry the display records the product stores (ADR 0280), and each search fetches the
// page's records: over HTTP as a second call, over frames as a second call or folded into the search
// (ADRs 0291, 0292). --colocate: one shard process holding every shard (one connection for all).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { cpSync, createReadStream, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { MemoryIndexDirectory, SearchIndex, type EngineQuery, type EngineResult } from '../../src/engine/index.js';
import { FsIndexDirectory } from '../../src/adapters/fs/index-directory.js';
import { shardOfWork } from '../../src/domain/shard-routing.js';
import { ShardSearcher } from '../../src/search/shard-searcher.js';
import { encodeStoredDisplay } from '../../src/search/stored-display.js';
import type { StoredDocument } from '../../src/domain/document.js';
import { ScatterGather } from '../../src/search/scatter-gather.js';
import { HttpShardClient } from '../../src/adapters/cluster/http-shard-client.js';
import { FrameConnections, FrameShardClient } from '../../src/adapters/cluster/frame-shard-client.js';
import { fetchedIds, type ShardClient, type ShardFetch } from '../../src/ports/shard-client.js';
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
/** Snippets per hit (the search service's): hits with a body passage among them read their record with the body text from the store. */
const SNIPPETS = 3;
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
    idx.add({ id: d.id, title: d.title, abstract: d.abstract, body: d.body, type: d.type, issuedAt: d.issued_at, language: d.language, workKey: d.id, stored: displayRecord(d, Number(/\d+/.exec(d.id)?.[0] ?? 0)) });
    if (++docs % 50_000 === 0) idx.commit(String(docs));
  }
  idx.commit(String(docs));
  if (dir) writeFileSync(join(dir, 'done'), String(docs));
  return { idx, docs, ms: performance.now() - t, reused: false };
}

/**
 * The display record the product stores with each document (ADR 0280; search/stored-display.ts): the
 * synthetic document's fields, a DOI, four authors; the body is not in it (only `hasFullText`).
 */
function displayRecord(d: { id: string; title: string; abstract: string; body: string; type: string; issued_at: number; language: string }, seq: number): Uint8Array {
  return encodeStoredDisplay({
    id: d.id, index: 'documents', uris: [`doi://10.5555/${d.id}`], title: d.title, abstract: d.abstract, fullText: d.body || null,
    authors: [0, 1, 2, 3].map((i) => ({ name: `Author ${i} of ${d.id}`, orcid: null })) as StoredDocument['authors'],
    type: d.type, language: d.language, issuedAt: d.issued_at, publisher: 'Synthetic Press', issns: ['1234-5678'], venue: 'Journal of Synthetic Studies',
    references: [], isRetracted: false, notices: [], license: 'cc-by', attribution: null, originals: [], source: 'synth', extra: {},
    seq, workKey: d.id, createdAt: 1_700_000_000, updatedAt: 1_700_000_000,
  });
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux; clock ticks of 10 ms). */
function procCpuS(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) / 100;
}

if (shardArg !== undefined) {
  // a shard process: build, serve on loopback, say where (one JSON line), serve until killed.
  // `--shard all` (the bench's --colocate): one process holding every shard (one connection for all)
  const held = shardArg === 'all' ? Array.from({ length: shards }, (_, i) => i) : [Number(shardArg)];
  // a second replica opens a copy of the first one's files (an index directory has one opener)
  const dirOf = (s: number, r: number) => (indexDir ? join(indexDir, `shard-${s}-of-${shards}${r > 0 ? `-r${r}` : ''}`) : null);
  const searchers: ShardSearcher[] = [];
  let docs = 0;
  let ms = 0;
  for (const s of held) {
    const own = dirOf(s, replicaArg);
    if (own && replicaArg > 0 && !existsSync(join(own, 'done')) && existsSync(join(dirOf(s, 0)!, 'done'))) {
      rmSync(own, { recursive: true, force: true });
      cpSync(dirOf(s, 0)!, own, { recursive: true, filter: (src) => !src.endsWith('LOCK') });
    }
    const b = await build(s, own);
    docs += b.docs;
    ms += b.ms;
    searchers.push(new ShardSearcher(s, { get: () => b.idx }));
  }
  // the shard server serves both transports on its port: HTTP requests and the framed upgrade (ADR 0291)
  const app = await buildShardServer({ searchers, secret: process.env['SHARD_SECRET']! });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  // the same server on a Unix domain socket too (the frames_unix side): its connections go to the HTTP server
  const sock = join(tmpdir(), `lectern-cost-${process.pid}.sock`);
  rmSync(sock, { force: true });
  await new Promise<void>((resolve) => createServer((c) => app.server.emit('connection', c)).listen(sock, resolve));
  let connections = 0;
  app.server.on('connection', () => connections++);
  process.once('SIGTERM', () => {
    // an orderly exit (writes --cpu-prof profiles); connections accepted: 1 per coordinator client when keep-alive works
    process.stderr.write(`shards ${held.join(',')}: ${connections} connections accepted\n`);
    rmSync(sock, { force: true });
    process.exit(0);
  });
  process.stdout.write(JSON.stringify({ shards: held, replica: replicaArg, url, socket: sock, docs, build_ms: Math.round(ms), rss_mib: Math.round(process.memoryUsage().rss / 2 ** 20) }) + '\n');
} else {
  const secret = randomBytes(24).toString('base64url');
  const script = fileURLToPath(import.meta.url);
  const colocate = process.argv.includes('--colocate');
  const children: ChildProcess[] = [];
  const procs = colocate ? replicas : shards * replicas;
  const started = Array.from({ length: procs }, (_, i) => {
    const s = colocate ? 'all' : String(i % shards);
    const r = colocate ? i : Math.floor(i / shards);
    const child = spawn(process.execPath, [...process.execArgv, script, '--corpus', corpus, '--shards', String(shards), '--shard', s, '--replica', String(r), ...(indexDir ? ['--index-dir', indexDir] : [])], { env: { ...process.env, SHARD_SECRET: secret }, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    return new Promise<{ shards: number[]; replica: number; url: string; socket: string; docs: number; build_ms: number; rss_mib: number }>((resolve, reject) => {
      let buf = '';
      child.stdout!.on('data', (b: Buffer) => {
        buf += b.toString();
        const nl = buf.indexOf('\n');
        if (nl >= 0) resolve(JSON.parse(buf.slice(0, nl)));
      });
      child.once('exit', (code) => reject(new Error(`shard process ${s} exited with ${code}`)));
    });
  });
  const uptimeBefore = execFileSync('uptime', { encoding: 'utf8' }).trim();
  const machineAtStart = machine();
  try {
    const single = await build(null, indexDir ? join(indexDir, 'single') : null);
    const shardInfo = await Promise.all(started);
    // one client per shard replica for the whole run, as the api node's shard directory keeps them: HTTP
    // (a keep-alive agent per client) and frames (one connection per shard process, shared by its shards)
    const pool = new FrameConnections();
    const httpClients: ShardClient[] = shardInfo.flatMap((x) => x.shards.map((s) => new HttpShardClient(s, x.url, secret)));
    const frameClients: FrameShardClient[] = shardInfo.flatMap((x) => x.shards.map((s) => new FrameShardClient(s, x.url, secret, pool)));
    const unixPool = new FrameConnections();
    const unixClients: FrameShardClient[] = shardInfo.flatMap((x) => x.shards.map((s) => new FrameShardClient(s, x.url, secret, unixPool, { socketPath: x.socket })));
    const dir = (clients: readonly ShardClient[]) => ({ shards, replicas: (s: number) => clients.filter((c) => c.shard === s) });
    // every side keeps DFS statistics (ADR 0260: one query round trip per shard; the warm-up pass keeps them)
    const opts = { hedgeAfterMs: 60_000, deadlineMs: 120_000 };
    const sgHttp = new ScatterGather(dir(httpClients), opts);
    const sgFrames = new ScatterGather(dir(frameClients), opts);
    const sgUnix = new ScatterGather(dir(unixClients), opts);
    const workload = JSON.parse(readFileSync(join(evalDataDir(), '..', 'tools', 'synth-corpus', 'workload.json'), 'utf8')) as Record<string, WorkloadQuery[]>;
    const toQuery = (w: WorkloadQuery): EngineQuery => ({
      text: w.text,
      limit: 10,
      exactTotal: true,
      collapseByWorkKey: true,
      passagesPerHit: SNIPPETS,
      ...(w.filter ? { filters: { types: w.filter.types ?? null, issuedAfter: w.filter.issued_after ?? null, issuedBefore: w.filter.issued_before ?? null } } : {}),
    });
    const fetch: ShardFetch = { hits: 10, skipBodyPassages: SNIPPETS };
    type Page = { totalHits: number; hits: { id: string; score: number }[]; docs: Record<string, unknown> };
    // what a page costs the server: the engine's top 10 and the display records of the hits whose
    // snippets are not in the body (the others' come with their text from the store on every side)
    const recordIds = (hits: EngineResult['hits']) => fetchedIds(hits, fetch);
    const page = (res: EngineResult, records: ReadonlyMap<string, string>): Page => {
      const docs: Record<string, unknown> = {};
      // `seq` left out: indexes this bench built before it numbered documents by their id numbered them per process
      for (const [id, text] of records) {
        const { seq: _seq, ...rest } = JSON.parse(text) as Record<string, unknown>;
        docs[id] = rest;
      }
      return { totalHits: res.totalHits, hits: res.hits.map((h) => ({ id: h.id, score: h.score })), docs };
    };
    const dec = new TextDecoder();
    const sides: Record<string, () => Promise<Page>> = {};
    let q: EngineQuery = toQuery(workload['or']![0]!);
    sides['one_node'] = async () => {
      const res = single.idx.search(q);
      const rec = new Map<string, string>();
      for (const [id, b] of single.idx.stored(recordIds(res.hits))) rec.set(id, dec.decode(b));
      return page(res, rec);
    };
    // the fetch phase as a second round trip (the product before ADR 0292)
    const twoTrips = (g: ScatterGather) => async () => {
      const r = await g.search('documents', q);
      return page(r.result, await g.records('documents', recordIds(r.result.hits)));
    };
    sides['http_two_trips'] = twoTrips(sgHttp);
    sides['frames_two_trips'] = twoTrips(sgFrames);
    // the fetch folded into the query phase (ADR 0292): one round trip per shard
    const oneTrip = (g: ScatterGather) => async () => {
      const r = await g.search('documents', q, { fetch });
      const f = r.fetched!;
      const missing = recordIds(r.result.hits).filter((id) => !f.covered.has(id));
      const rec = new Map<string, string>();
      for (const id of recordIds(r.result.hits)) if (f.records.has(id)) rec.set(id, f.records.get(id)!);
      if (missing.length > 0) for (const [id, t] of await g.records('documents', missing)) rec.set(id, t);
      return page(r.result, rec);
    };
    sides['frames_one_trip'] = oneTrip(sgFrames);
    // the same frames over a Unix domain socket instead of loopback TCP (not wired into the product)
    sides['frames_unix_one_trip'] = oneTrip(sgUnix);
    // --sides a,b: only those (profiling one side); one_node is always run (the reference)
    const only = arg('sides');
    const names = Object.keys(sides).filter((n) => !only || n === 'one_node' || only.split(',').includes(n));
    const classes: Record<string, unknown> = {};
    let differing = 0;
    let queries = 0;
    let recordsShown = 0;
    let firstDifference: Record<string, string> | null = null;
    for (const cls of ['or', 'phrase', 'filter']) {
      const qs = workload[cls]!.map(toQuery);
      for (const x of qs) {
        q = x;
        for (const n of names) await sides[n]!();
      }
      const wall: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
      const cpu: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
      const shardCpu: Record<string, number> = Object.fromEntries(names.map((n) => [n, 0]));
      const keptBefore = { http: { ...sgHttp.keptStats }, frames: { ...sgFrames.keptStats } };
      const loadBefore = loadavg()[0]!;
      for (let r = 0; r < rounds; r++) {
        for (const [i, x] of qs.entries()) {
          q = x;
          // A/B alternated: the sides' order rotates per query and round
          const k = (i + r) % names.length;
          const got: Record<string, Page> = {};
          for (let j = 0; j < names.length; j++) {
            const n = names[(k + j) % names.length]!;
            const s0 = children.reduce((t, c) => t + procCpuS(c.pid!), 0);
            const c0 = process.cpuUsage();
            const t0 = performance.now();
            got[n] = await sides[n]!();
            wall[n]!.push(performance.now() - t0);
            const u = process.cpuUsage(c0);
            cpu[n]!.push((u.user + u.system) / 1000);
            shardCpu[n]! += children.reduce((t, c) => t + procCpuS(c.pid!), 0) - s0;
          }
          if (r === 0) {
            queries++;
            recordsShown += Object.keys(got['one_node']!.docs).length;
            const key = (p: Page) => JSON.stringify([p.totalHits, p.hits, Object.keys(p.docs).sort().map((id) => [id, p.docs[id]])]);
            const odd = names.find((n) => key(got[n]!) !== key(got['one_node']!));
            if (odd) {
              differing++;
              if (firstDifference === null) firstDifference = { class: cls, query: x.text, side: odd, one_node: key(got['one_node']!).slice(0, 600), other: key(got[odd]!).slice(0, 600) };
            }
          }
        }
      }
      const mean = (x: number[]) => x.reduce((p, v) => p + v, 0) / x.length;
      const sorted = (x: number[]) => [...x].sort((p, v) => p - v);
      const r3 = (x: number) => Math.round(x * 1000) / 1000;
      const lat = (x: number[]) => ({ p50: r3(pct(x, 50)), p95: r3(pct(x, 95)), p99: r3(pct(x, 99)) });
      const one = sorted(wall['one_node']!);
      const oneCpu = mean(cpu['one_node']!);
      classes[cls] = {
        queries: qs.length,
        samples_per_side: one.length,
        load_average_1m: { before: r3(loadBefore), after: r3(loadavg()[0]!) },
        latency_ms: Object.fromEntries(names.map((n) => [n, lat(sorted(wall[n]!))])),
        added_p50_ms: Object.fromEntries(names.filter((n) => n !== 'one_node').map((n) => [n, r3(pct(sorted(wall[n]!), 50) - pct(one, 50))])),
        added_p99_ms: Object.fromEntries(names.filter((n) => n !== 'one_node').map((n) => [n, r3(pct(sorted(wall[n]!), 99) - pct(one, 99))])),
        // server CPU per search: one node's engine call and record reads; the cluster's coordinator (this
        // process) and the shard processes (/proc, 10 ms ticks summed over the side's searches: a mean)
        cpu_ms_per_search: Object.fromEntries(
          names.map((n) => {
            const c = sorted(cpu[n]!);
            const shardsMean = (shardCpu[n]! * 1000) / c.length;
            return [n, n === 'one_node' ? { p50: r3(pct(c, 50)), mean: r3(mean(c)) } : { coordinator_p50: r3(pct(c, 50)), coordinator_mean: r3(mean(c)), shards_mean: r3(shardsMean), cluster_mean: r3(mean(c) + shardsMean), added_over_one_node_mean: r3(mean(c) + shardsMean - oneCpu) }];
          }),
        ),
        kept_stats_searches: { http: sgHttp.keptStats.searches - keptBefore.http.searches, frames: sgFrames.keptStats.searches - keptBefore.frames.searches },
        kept_stats_stale: { http: sgHttp.keptStats.stale - keptBefore.http.stale, frames: sgFrames.keptStats.stale - keptBefore.frames.stale },
      };
      console.error(cls, JSON.stringify(classes[cls]));
    }
    const doc = {
      benchmark: 'scale-cost',
      replicas_per_shard: replicas,
      shard_processes: colocate ? `${replicas} (each holding all ${shards} shards)` : `${shards * replicas} (one shard each)`,
      what: `one index in-process vs ${shards} shards over loopback through the coordinator (ScatterGather, kept DFS statistics: ADR 0260), a page of 10 hits with the display records of those whose snippets are not in the body (ADR 0280), four sides A/B alternated per query (order rotated per query and round): one_node (engine call + stored records), http_two_trips (HTTP per call: search, then records), frames_two_trips (frames on one connection per shard process: search, then records; ADR 0291), frames_one_trip (frames, records folded into the search answer; ADR 0292), frames_unix_one_trip (the same over a Unix domain socket, not wired into the product); service lexical options (top 10, exact totals, collapse, 3 passages); concurrency 1; ${rounds} rounds after a warm-up pass`,
      corpus: corpus,
      documents: single.docs,
      shards: shardInfo,
      frame_connections_opened: [...new Set(frameClients.map((c) => c.connection))].reduce((n, c) => n + c.opened, 0),
      single_build_ms: Math.round(single.ms),
      single_reused_from_disk: single.reused,
      identical_top10_scores_totals_and_records: `${queries - differing}/${queries}`,
      first_difference: firstDifference,
      records_per_page_mean: Math.round((recordsShown / Math.max(1, queries)) * 100) / 100,
      concurrency: 1,
      machine: { ...machineAtStart, load_average_at_end: loadavg().map((x) => Math.round(x * 100) / 100), note: 'shared 2-core machine: other helpers build and test at the same time (load recorded); the shard processes share the two cores with this one. CPU time per search is the figure to read; wall-clock latency includes waiting for a core' },
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
    for (const c of [...httpClients, ...frameClients, ...unixClients]) c.close?.();
  } finally {
    for (const c of children) c.kill('SIGTERM');
  }
}
