// Cost of distribution (issue 24, docs/scale.md "Scatter-gather"): the latency and coordinator CPU that
// scatter-gather adds over one node, on the synthetic corpus and its fixed workload (shared/tools/
// synth-corpus). One index of the whole corpus in this process; S shard processes (children of this
// script, each building its shard and serving the internal shard endpoints on loopback); every workload
// query run on both, alternating, with the service's lexical options (top 10, exact totals, collapse
// by work, 3 passages). Also checks that every query's top 10 is identical.
//   node /work/shared/tools/synth-corpus/synth.mjs --real <shared>/data/ir/scifact/corpus.jsonl --n 100000 --out /tmp/synth-100k.jsonl --seed 7
//   node dist/bench/scale/cost.js --corpus /tmp/synth-100k.jsonl [--shards 2] [--rounds 2] [--out bench/results/scale-cost-100k.json]
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { MemoryIndexDirectory, SearchIndex, type EngineQuery } from '../../src/engine/index.js';
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
if (!corpus) throw new Error('--corpus FILE (a synth-corpus JSONL) is required');

interface WorkloadQuery {
  text: string;
  filter: { types?: string[]; issued_after?: number; issued_before?: number } | null;
}

/** Builds an index of the corpus's documents (those of shard `only` when given). */
async function build(only: number | null): Promise<{ idx: SearchIndex; docs: number; ms: number }> {
  const idx = SearchIndex.open(new MemoryIndexDirectory());
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
  return { idx, docs, ms: performance.now() - t };
}

if (shardArg !== undefined) {
  // a shard process: build, serve on loopback, say where (one JSON line), serve until killed
  const s = Number(shardArg);
  const { idx, docs, ms } = await build(s);
  const app = await buildShardServer({ searchers: [new ShardSearcher(s, { get: () => idx })], secret: process.env['SHARD_SECRET']! });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(JSON.stringify({ shard: s, url, docs, build_ms: Math.round(ms), rss_mib: Math.round(process.memoryUsage().rss / 2 ** 20) }) + '\n');
} else {
  const secret = randomBytes(24).toString('base64url');
  const script = fileURLToPath(import.meta.url);
  const children: ChildProcess[] = [];
  const started = Array.from({ length: shards }, (_, s) => {
    const child = spawn(process.execPath, [script, '--corpus', corpus, '--shards', String(shards), '--shard', String(s)], { env: { ...process.env, SHARD_SECRET: secret }, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    return new Promise<{ shard: number; url: string; docs: number; build_ms: number; rss_mib: number }>((resolve, reject) => {
      let buf = '';
      child.stdout!.on('data', (b: Buffer) => {
        buf += b.toString();
        const nl = buf.indexOf('\n');
        if (nl >= 0) resolve(JSON.parse(buf.slice(0, nl)));
      });
      child.once('exit', (code) => reject(new Error(`shard ${s} exited with ${code}`)));
    });
  });
  try {
    const single = await build(null);
    const shardInfo = await Promise.all(started);
    const sg = new ScatterGather({ shards, replicas: (s) => [new HttpShardClient(s, shardInfo[s]!.url, secret)] }, { hedgeAfterMs: 60_000, deadlineMs: 120_000 });
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
        await sg.search('documents', q);
      }
      const one: number[] = [];
      const oneCpu: number[] = [];
      const dist: number[] = [];
      const coordCpu: number[] = [];
      for (let r = 0; r < rounds; r++) {
        for (const [i, q] of qs.entries()) {
          // alternate which side goes first
          const runOne = () => {
            const c = process.cpuUsage();
            const t = performance.now();
            const res = single.idx.search(q);
            one.push(performance.now() - t);
            const u = process.cpuUsage(c);
            oneCpu.push((u.user + u.system) / 1000);
            return res;
          };
          const runDist = async () => {
            const c = process.cpuUsage();
            const t = performance.now();
            const res = await sg.search('documents', q);
            dist.push(performance.now() - t);
            const u = process.cpuUsage(c);
            coordCpu.push((u.user + u.system) / 1000);
            return res;
          };
          let a;
          let b;
          if ((i + r) % 2 === 0) {
            a = runOne();
            b = await runDist();
          } else {
            b = await runDist();
            a = runOne();
          }
          if (r === 0) {
            queries++;
            if (JSON.stringify(a.hits.map((h) => h.id)) !== JSON.stringify(b.result.hits.map((h) => h.id)) || a.totalHits !== b.result.totalHits) differing++;
          }
        }
      }
      const s = (x: number[]) => [...x].sort((p, q) => p - q);
      const r3 = (x: number) => Math.round(x * 1000) / 1000;
      const [o, d, oc, dc] = [s(one), s(dist), s(oneCpu), s(coordCpu)];
      classes[cls] = {
        queries: qs.length,
        one_node_ms: { p50: r3(pct(o, 50)), p95: r3(pct(o, 95)), p99: r3(pct(o, 99)) },
        scatter_gather_ms: { p50: r3(pct(d, 50)), p95: r3(pct(d, 95)), p99: r3(pct(d, 99)) },
        added_p50_ms: r3(pct(d, 50) - pct(o, 50)),
        one_node_cpu_ms_p50: r3(pct(oc, 50)),
        coordinator_cpu_ms_p50: r3(pct(dc, 50)),
      };
    }
    const doc = {
      benchmark: 'scale-cost',
      what: `one index in-process vs ${shards} shard processes over HTTP on loopback through the coordinator (DFS + query + merge); service lexical options (top 10, exact totals, collapse, 3 passages); ${rounds} rounds after a warm-up, order alternated`,
      corpus: corpus,
      documents: single.docs,
      shards: shardInfo,
      single_build_ms: Math.round(single.ms),
      identical_top10_and_totals: `${queries - differing}/${queries}`,
      machine: { ...machine(), load_average_at_end: loadavg().map((x) => Math.round(x * 100) / 100), note: 'shared 2-core machine loaded by other work; the shard processes share the two cores with this one' },
      target: 'issue 24: p50 + <= 1 ms over one node at 100k on loopback',
      classes,
    };
    const text = JSON.stringify(doc, null, 2);
    console.log(text);
    const out = arg('out');
    if (out) writeFileSync(out, text + '\n');
    single.idx.close();
  } finally {
    for (const c of children) c.kill('SIGTERM');
  }
}
