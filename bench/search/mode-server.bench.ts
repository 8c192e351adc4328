// What each search mode costs through one running server, as a user gets it (issue 27's target is by
// server time: hybrid <= 2x fulltext at 100k documents). bench/engine/mode-cost.ts measures the engine
// alone; this sends `POST /v2/search/` with `return_documents: true` (documents and snippets, 10 hits,
// the defaults otherwise) to a server over a data directory built as a user builds one (`lectern ingest`,
// `lectern models train`), the same workload queries mode by mode interleaved (for query i the five
// modes in an order rotated by i, so every mode sees the same machine minute by minute), one client,
// one request at a time, on a keep-alive loopback connection.
//
// Per mode: the server's own time (`timings.total_us`: arrival to serialization; `search_us`, `load_us`),
// client wall time, and the server process's CPU per search: the sum over all its threads of
// /proc/PID/task/TID/schedstat (time on a CPU, nanoseconds) read before and after each request; as the
// client is sequential, each request's delta is that search's CPU (plus whatever the server's timers and
// background threads did meanwhile, spread over the modes by the interleaving; the idle rate is measured
// before and after and reported). A cross-check: utime+stime from /proc/PID/stat summed per mode (10 ms
// ticks). On a loaded machine (other work on the same cores) CPU time is the number to read; wall and
// total_us include time the server waited for a core.
//
//   node dist/bench/search/mode-server.bench.js --dir tmp/serve-100k [--queries 200] [--rounds 3] \
//        [--port 18997] [--titles /work/data/synth-100k.jsonl | --queries-file scifact/queries.jsonl]
//        [--limit 10] [--out bench/results/mode-server-100k.json]
//
// The data directory must exist with its models (the script does not ingest or train: see the README,
// `lectern ingest` then `lectern models train`); every response must be 200 with hits, and the hybrid
// RRF votes (`include_rrf_scores`) must include the sparse and short_document channels, or the run fails.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createReadStream, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { machine } from '../lib/machine.js';
import { benchServerEnv } from '../lib/server-env.js';

const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    queries: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '20' },
    idle: { type: 'string', default: '5' },
    port: { type: 'string', default: '18997' },
    out: { type: 'string' },
    titles: { type: 'string' },
    limit: { type: 'string', default: '10' },
    'queries-file': { type: 'string' },
    workload: { type: 'string', default: join(process.cwd(), '..', '..', 'shared', 'tools', 'synth-corpus', 'workload.json') },
  },
});
if (!values.dir) throw new Error('--dir DATA_DIR is required (a data directory with documents and trained models)');
const dataDir = values.dir;
if (!existsSync(join(dataDir, 'lectern.db'))) throw new Error(`${dataDir} has no lectern.db: run \`lectern ingest\` and \`lectern models train\` with LECTERN_DATA_DIR=${dataDir} first`);
const workloadPath = existsSync(values.workload) ? values.workload : '/work/shared/tools/synth-corpus/workload.json';
const MODES = ['fulltext', 'sparse', 'short_document', 'binary', 'hybrid'] as const;
type Mode = (typeof MODES)[number];
const nQueries = Number(values.queries);
const rounds = Number(values.rounds);
const port = Number(values.port);
const main = join(process.cwd(), 'dist', 'src', 'main.js');
const env = benchServerEnv(dataDir);
const load = () => loadavg().map((x) => Math.round(x * 100) / 100);
const started = machine();
const loadBefore = load();

// An account and key, as the README's "First requests" says.
const acct = spawnSync(process.execPath, [main, 'accounts', 'create', '--email', `mode-server${Date.now()}@example.org`, '--credits', '1000000000'], { env, encoding: 'utf8' });
if (acct.status !== 0) throw new Error(`accounts create failed: ${acct.stderr}`);
const key = (JSON.parse(acct.stdout) as { api_key: string }).api_key;

const agent = new Agent({ keepAlive: true, maxSockets: 1 });
type Json = { hits?: { snippets?: unknown[]; document?: unknown; rrf?: unknown }[]; total_hits?: number; timings?: { search_us: number; load_us: number; total_us: number }; retrieval_traces?: unknown[] };
function call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string | number> = { 'x-api-key': key };
    if (data !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) });
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** Nanoseconds on a CPU of all the threads of a process (schedstat), and of its main thread alone. */
function cpuNs(pid: number): number {
  return cpuSplit(pid)[0];
}
function cpuSplit(pid: number): [number, number] {
  let ns = 0;
  let main = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const t = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      ns += t;
      if (Number(tid) === pid) main = t;
    } catch {
      // the thread ended (its time is lost from this reading: rare, noted by the tick cross-check)
    }
  }
  return [ns, main];
}
function cpuTicks(pid: number): number {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

const server: ChildProcess = spawn(process.execPath, [main], { env: { ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] });
let stopping = false;
server.once('exit', (code, signal) => {
  if (!stopping) {
    console.error(`the server exited: code ${code}, signal ${signal}`);
    process.exit(1);
  }
});
const pid = server.pid!;
const spawnedAt = performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
for (let i = 0; ; i++) {
  try {
    if ((await call('GET', '/readyz')).status === 200) break;
  } catch {
    // not listening yet
  }
  if (i > 3000) throw new Error('the server was not ready in 10 minutes');
  await sleep(200);
}
const readyAt = performance.now();

type Q = { text: string };
const workload = JSON.parse(readFileSync(workloadPath, 'utf8')) as Record<string, Q[]>;
/** --titles CORPUS.jsonl: the titles of nQueries documents spread over the corpus (every 500th line) as
 * queries, natural-length queries (13.6 words on average in the synthetic corpus) instead of the
 * workload's short `or` queries. */
async function titles(file: string): Promise<string[]> {
  const out: string[] = [];
  let line = 0;
  const rl = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const l of rl) {
    if (line++ % 500 !== 0) continue;
    const t = (JSON.parse(l) as { title?: string }).title;
    if (t) out.push(t);
    if (out.length >= nQueries) break;
  }
  rl.close();
  return out;
}
/** --queries-file QUERIES.jsonl: BEIR queries (`text`), the first nQueries (e.g. SciFact's claims). */
const beirQueries = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => (JSON.parse(l) as { text: string }).text)
    .slice(0, nQueries);
const queries = values['queries-file'] ? beirQueries(values['queries-file']) : values.titles ? await titles(values.titles) : workload['or']!.map((q) => q.text).slice(0, nQueries);
const body = (text: string, mode: Mode, extra: Record<string, unknown> = {}) => ({ query: text, mode, limit: Number(values.limit), return_documents: true, ...extra });

// Every mode must answer with the models (no 422 feature_unavailable); wait for the server to install
// the models' vectors, then check that hybrid fuses all three channels.
for (let i = 0; ; i++) {
  const rs = await Promise.all(MODES.map(async (m) => (await call('POST', '/v2/search/', body(queries[0]!, m))).status));
  if (rs.every((s) => s === 200)) break;
  if (i > 600) throw new Error(`modes not available after 10 minutes: ${MODES.map((m, j) => `${m} ${rs[j]}`).join(', ')}`);
  await sleep(1000);
}
// the exact RRF votes of the first queries' hits must include the sparse and short_document channels
// (a channel that is not configured is named in the trace but casts no vote)
const votes: string[] = [];
for (const text of queries.slice(0, 5)) {
  const traced = JSON.parse((await call('POST', '/v2/search/', body(text, 'hybrid', { include_rrf_scores: true }))).text) as Json;
  votes.push(JSON.stringify((traced.hits ?? []).map((h) => h.rrf ?? null)));
}
const hybridChannels = ['fulltext', 'sparse', 'short_document'].filter((c) => votes.some((v) => v.includes(`"${c}"`)));
if (hybridChannels.length < 3) throw new Error(`hybrid's votes do not come from all three channels: ${votes[0]!.slice(0, 2000)}`);
const models = spawnSync(process.execPath, [main, 'models', 'status'], { env, encoding: 'utf8' });

// Warm-up (not measured): every mode on the first queries.
for (const q of queries.slice(0, Number(values.warmup))) for (const m of MODES) await call('POST', '/v2/search/', body(q, m));

/** The server's CPU while no request is in flight, ns per second (timers, background threads). */
async function idleRate(seconds: number) {
  const c0 = cpuNs(pid);
  const t0 = performance.now();
  await sleep(seconds * 1000);
  return ((cpuNs(pid) - c0) / (performance.now() - t0)) * 1000;
}
const idleBefore = await idleRate(Number(values.idle));

type Sample = { wallMs: number; totalUs: number; searchUs: number; loadUs: number; cpuUs: number; mainUs: number; hits: number; snippets: number };
const samples = new Map<Mode, Sample[]>(MODES.map((m) => [m, []]));
const ticks = new Map<Mode, number>(MODES.map((m) => [m, 0]));
const t0 = performance.now();
const loadDuring: number[][] = [];
for (let r = 0; r < rounds; r++) {
  for (let i = 0; i < queries.length; i++) {
    for (let j = 0; j < MODES.length; j++) {
      const mode = MODES[(i + r + j) % MODES.length]!;
      const k0 = cpuTicks(pid);
      const [c0, m0] = cpuSplit(pid);
      const w0 = performance.now();
      const res = await call('POST', '/v2/search/', body(queries[i]!, mode));
      const w1 = performance.now();
      const [c1, m1] = cpuSplit(pid);
      ticks.set(mode, ticks.get(mode)! + cpuTicks(pid) - k0);
      if (res.status !== 200) throw new Error(`${mode} "${queries[i]}": ${res.status} ${res.text.slice(0, 300)}`);
      const j2 = JSON.parse(res.text) as Json;
      if (!Array.isArray(j2.hits) || !j2.timings) throw new Error(`${mode}: a response without hits or timings`);
      samples.get(mode)!.push({ wallMs: w1 - w0, totalUs: j2.timings.total_us, searchUs: j2.timings.search_us, loadUs: j2.timings.load_us, cpuUs: (c1 - c0) / 1000, mainUs: (m1 - m0) / 1000, hits: j2.hits.length, snippets: j2.hits.reduce((a, h) => a + (h.snippets?.length ?? 0), 0) });
    }
  }
  loadDuring.push(load());
  console.error(`round ${r + 1}/${rounds} done, load ${load().join(' ')}`);
}
const elapsedS = (performance.now() - t0) / 1000;
const idleAfter = await idleRate(Number(values.idle));
const loadAfter = load();
const threadsAtEnd = readdirSync(`/proc/${pid}/task`).length;
const rss = Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024);
stopping = true;
server.kill('SIGTERM');
await new Promise((r) => server.once('exit', r));
agent.destroy();

const q = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const r2 = (x: number) => Math.round(x * 100) / 100;
const r3 = (x: number) => Math.round(x * 1000) / 1000;
const perMode = Object.fromEntries(
  MODES.map((m) => {
    const s = samples.get(m)!;
    const ms = (f: (x: Sample) => number, div = 1) => {
      const xs = s.map((x) => f(x) / div);
      return { mean: r3(mean(xs)), p50: r3(q(xs, 50)), p99: r3(q(xs, 99)) };
    };
    return [
      m,
      {
        searches: s.length,
        server_cpu_ms: ms((x) => x.cpuUs, 1000),
        server_main_thread_cpu_ms: ms((x) => x.mainUs, 1000),
        server_cpu_ms_from_ticks_mean: r3((ticks.get(m)! * 10) / s.length),
        server_total_ms: ms((x) => x.totalUs, 1000),
        server_search_ms: ms((x) => x.searchUs, 1000),
        server_load_ms: ms((x) => x.loadUs, 1000),
        client_wall_ms: ms((x) => x.wallMs),
        hits_mean: r2(mean(s.map((x) => x.hits))),
        snippets_mean: r2(mean(s.map((x) => x.snippets))),
      },
    ];
  }),
) as unknown as Record<Mode, { server_cpu_ms: { mean: number; p50: number }; server_total_ms: { mean: number; p50: number; p99: number }; client_wall_ms: { p50: number } }>;
const ft = perMode.fulltext;
const ratios = Object.fromEntries(
  MODES.map((m) => [
    m,
    {
      server_cpu_mean: r2(perMode[m].server_cpu_ms.mean / ft.server_cpu_ms.mean),
      server_cpu_p50: r2(perMode[m].server_cpu_ms.p50 / ft.server_cpu_ms.p50),
      server_total_p50: r2(perMode[m].server_total_ms.p50 / ft.server_total_ms.p50),
      server_total_mean: r2(perMode[m].server_total_ms.mean / ft.server_total_ms.mean),
      client_wall_p50: r2(perMode[m].client_wall_ms.p50 / ft.client_wall_ms.p50),
    },
  ]),
);
const out = {
  benchmark: 'mode-server',
  issue: 27,
  what: 'POST /v2/search/ per mode through one server (return_documents: true, limit 10, snippets and documents as a user gets them), the same workload queries interleaved mode by mode (order rotated per query), 1 client sequential, keep-alive loopback',
  machine: started,
  load_average_before: loadBefore,
  load_average_after_each_round: loadDuring,
  load_average_after: loadAfter,
  note: 'The machine is shared (2 cores, other engineers\' builds and benches): server CPU per search (schedstat of all the server\'s threads, ns, per request) is the reliable measure; server_total_ms (timings.total_us, arrival to serialization) and client wall include waiting for a core. Idle server CPU (timers, background threads) is attributed to whichever search is in flight; the interleaving spreads it over the modes.',
  data_dir: { path: dataDir, documents: null as number | null, models: models.status === 0 ? JSON.parse(models.stdout) : models.stderr },
  workload: { file: values['queries-file'] ?? values.titles ?? workloadPath, class: values['queries-file'] ? 'BEIR queries (the first)' : values.titles ? 'titles (every 500th document)' : 'or', mean_words: r2(mean(queries.map((x) => x.split(/\s+/).length))), queries: queries.length, rounds, limit: Number(values.limit), warmup_queries_per_mode: Number(values.warmup) },
  server: { search_threads: env.LECTERN_SEARCH_THREADS ?? `default (the available cores: ${started.cores})`, threads_at_end: threadsAtEnd, rss_mib_after: rss, seconds_to_ready: Math.round((readyAt - spawnedAt) / 100) / 10, idle_cpu_ms_per_s_before: r3(idleBefore / 1e6), idle_cpu_ms_per_s_after: r3(idleAfter / 1e6) },
  hybrid_voting_channels: hybridChannels,
  elapsed_s: Math.round(elapsedS),
  per_mode: perMode,
  x_fulltext: ratios,
  target: { hybrid_server_time_at_most_2x_fulltext: { by_server_cpu_mean: ratios.hybrid!.server_cpu_mean <= 2, by_server_total_p50: ratios.hybrid!.server_total_p50 <= 2 } },
};
const stats = spawnSync(process.execPath, [main, 'index', 'stats'], { env, encoding: 'utf8' });
if (stats.status === 0) out.data_dir.documents = (JSON.parse(stats.stdout) as { indexes: { documents: { docs: number } } }).indexes.documents.docs;
console.log(JSON.stringify({ per_mode: perMode, x_fulltext: ratios }, null, 2));
if (values.out) writeFileSync(values.out, JSON.stringify(out, null, 2) + '\n');
