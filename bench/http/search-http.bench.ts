// Searches per second through HTTP (`POST /v2/search/`, top 10 with documents and snippets) with
// concurrent clients, on the synthetic corpus and its fixed workload (/work/shared/tools/synth-corpus):
// the service-level complement of bench/engine (which measures the engine alone). Issue 14, ADR 0110.
//
//   node dist/bench/http/search-http.bench.js --corpus /work/tmp/synth-100k.jsonl --dir /work/tmp/serve-100k \
//        [--threads 0,1,2] [--clients 1,2,16] [--seconds 10] [--after-ingest 100000] [--after-seconds 30] \
//        [--after-repeats 1] [--cpu-prof DIR] [--prof-clients 1,16] [--prof-classes or,phrase] [--builds base=/path/to/main.js,new=dist/src/main.js]
//        [--rounds 1] [--base /tmp/base-dist] [--warmup-seconds 0] [--out bench/results/search-http-100k.json]
//
// The data directory is built once (ingest through the service's own pipeline, timed) and reused.
// For each search_threads value a server runs as a separate process (over its own copy of the data
// directory) with rate limits lifted; measurements alternate between the servers; each client is a
// keep-alive loop over the workload queries; a server's resident memory (VmRSS, all threads) is read
// after warm-up and after the load (and its peak, VmHWM; and after every point). Every response must be 200 (fast-but-wrong fails).
// CPU per search (issue 14): for every point, the server's CPU by thread (/proc/PID/task: the main
// thread, the busiest other thread (a search thread), all threads) and the load generator's own CPU
// (process.cpuUsage), each divided by the searches answered. The load generator runs on the same cores,
// so it is a lean client: one raw keep-alive socket per client, request bytes prepared once, responses
// framed by Content-Length and checked (status 200, a hits array, one in 50 parsed whole) without
// building objects for each.
// --prep: the dist/src/main.js that prepares the data directory (ingest, merge, the account), when the
// builds' schemas differ (each server migrates its own copy at start: the base then gets no step of the new).
// --builds: several builds of the server (label=path of its dist/src/main.js), each a server of its own,
// alternated point by point like the thread counts (before/after comparisons in one run). A node flag
// after the path (label=path|--env-file=FILE) runs the same build with other settings. --rounds N: the
// grid N times over (each result has its round), the servers in reverse order in odd rounds (in one
// run of 3 servers measured in a fixed order, two servers of the same build differed by a median 9%,
// the later one cheaper: alternate the order, and compare pairs of points of one round).
// --base DIST: a copy of dist/ made before a change, measured as the build `base` before the others (the
// same as `--builds base=DIST/src/main.js,...`; without --builds the other is this checkout's, `current`).
// --warmup-seconds S: every server serves the classes for S seconds, unmeasured, before the grid (in a
// short run the JIT's compilations on V8's helper threads otherwise weigh on the first points).
// Ingest stalls: with the largest thread count, a steady load runs, then `lectern ingest` rewrites the
// first --after-ingest documents (new titles: updates, so the index deletes and re-adds them and merges
// follow); latencies are reported for the steady window, while the server catches up, and for
// --after-seconds after the new titles are searchable, with the CPU of the main thread and of the
// background (builder, merge) threads in each window. Every build gets this phase on its own copy of
// the data directory, builds alternating, --after-repeats rounds (default 1).
// Peer, in the same run: Xapian (python3-xapian, bench/engine/xapian_peer.py) over the same corpus and
// workload, in process, one thread: its throughput is 1000 / mean latency (ms) per core.
// --server-stdout FILE: every server's standard output appended to FILE (V8's --trace-gc and
// --trace-incremental-marking write there; a build's node flags go after its path in --builds).
// --peer-procs (issue 29): Xapian given as many processes as Lectern has clients, measured at every
// point of the grid right after Lectern's (bench/http/xapian_procs.py: queries/s of the processes
// together and their CPU per query), and the ratios per class and client count
// (`lectern_http_over_xapian_procs`: throughput and server CPU per search).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, closeSync, openSync, cpSync, createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { machine } from '../lib/machine.js';
import { benchServerEnv } from '../lib/server-env.js';

const { values } = parseArgs({
  options: {
    corpus: { type: 'string' },
    dir: { type: 'string' },
    threads: { type: 'string', default: '0,1,2' },
    clients: { type: 'string', default: '1,2,16' },
    classes: { type: 'string', default: 'or,phrase,filter' },
    seconds: { type: 'string', default: '10' },
    'after-ingest': { type: 'string', default: '100000' },
    'after-seconds': { type: 'string', default: '30' },
    'cpu-prof': { type: 'string' },
    'prof-clients': { type: 'string' },
    'prof-classes': { type: 'string', default: 'or' },
    builds: { type: 'string' },
    base: { type: 'string' },
    'warmup-seconds': { type: 'string', default: '0' },
    prep: { type: 'string' },
    'no-peer': { type: 'boolean', default: false },
    'peer-procs': { type: 'boolean', default: false },
    'server-stdout': { type: 'string' },
    'skip-grid': { type: 'boolean', default: false },
    'after-repeats': { type: 'string', default: '1' },
    rounds: { type: 'string', default: '1' },
    port: { type: 'string', default: '18999' },
    out: { type: 'string' },
    workload: { type: 'string', default: join(process.cwd(), '..', 'shared', 'tools', 'synth-corpus', 'workload.json') },
  },
});
if (!values.corpus || !values.dir) throw new Error('--corpus and --dir are required');
const corpus = values.corpus;
const dataDir = values.dir;
const main = join(process.cwd(), 'dist', 'src', 'main.js');
/** The build that prepares the data directory (ingest, merge, the account): --prep, else this checkout's. */
const prepMain = values.prep ?? main;
/** The builds compared (label -> main.js); default: this checkout's. */
// label=path[|node flag|node flag...]
const builds: [string, string, string[]][] = values.builds
  ? values.builds.split(',').map((b) => {
      const eq = b.indexOf('=');
      const [label, rest] = [b.slice(0, eq), b.slice(eq + 1)];
      const [path, ...flags] = rest.split('|');
      return [label, path!, flags];
    })
  : [['current', main, []]];
// --base DIST: the base build (a copy of dist/ made before the change) first, as `base`, then the builds above
if (values.base) builds.unshift(['base', join(values.base, 'src', 'main.js'), []]);
const env = benchServerEnv(dataDir, { LECTERN_LIMITS_SEARCH_CONCURRENCY: '10000' });
const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean);
const threadCounts = list(values.threads).map(Number);
const clientCounts = list(values.clients).map(Number);
const classes = list(values.classes);
const seconds = Number(values.seconds);
const load1 = () => Math.round(loadavg()[0]! * 100) / 100;
const started = machine();

// 1. Build the data directory once.
let ingest: unknown = 'reused';
if (!existsSync(join(dataDir, 'lectern.db'))) {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [prepMain, 'ingest', '--format', 'lectern', corpus], { env, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`ingest failed (${r.status})`);
  const rep = JSON.parse(r.stdout)[0] as { inserted: number };
  ingest = { documents: rep.inserted, seconds: (Date.now() - t0) / 1000, docs_per_second: Math.round(rep.inserted / ((Date.now() - t0) / 1000)) };
  console.error('ingest', ingest);
}
// Steady state: every merge the policy wants is done before measuring (a previous run's after-ingest
// phase leaves deletions and small segments behind).
const mergeRun = spawnSync(process.execPath, [prepMain, 'index', 'merge'], { env, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 1 << 26 });
if (mergeRun.status !== 0) throw new Error(`index merge failed (${mergeRun.status})`);
const merged = JSON.parse(mergeRun.stdout) as { merges: number; seconds: number; indexes: { documents: { docs: number; segments: number; bytes: { total: number } } } };
const indexAtStart = { documents: merged.indexes.documents.docs, segments: merged.indexes.documents.segments, index_mib: Math.round(merged.indexes.documents.bytes.total / 2 ** 20), merges_before_run: merged.merges, merge_seconds: merged.seconds };
console.error('index', indexAtStart);
const acct = spawnSync(process.execPath, [prepMain, 'accounts', 'create', '--email', `bench${Date.now()}@example.org`, '--credits', '1000000000'], { env, encoding: 'utf8' });
const key = (JSON.parse(acct.stdout) as { api_key: string }).api_key;

const basePort = Number(values.port);
/** The server requests go to (one at a time). */
let port = basePort;
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
type Reply = { status: number; json: { hits?: unknown[]; total_hits?: number; timings?: { total_us: number } } };
function post(body: unknown): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = request({ port, method: 'POST', path: '/v2/search/', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), 'x-api-key': key } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(data);
  });
}
function get(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) =>
    request({ port, path, agent }, (x) => {
      const chunks: Buffer[] = [];
      x.on('data', (c: Buffer) => chunks.push(c));
      x.on('end', () => resolve({ status: x.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    })
      .on('error', reject)
      .end(),
  );
}

async function startServer(threads: number, nodeArgs: string[] = [], dir = dataDir, at = basePort, entry = main): Promise<ChildProcess> {
  port = at;
  // --server-stdout FILE: the servers' standard output appended there (V8's --trace-gc writes to it), else dropped
  const out = values['server-stdout'] ? openSync(values['server-stdout'], 'a') : 'ignore';
  const server = spawn(process.execPath, [...nodeArgs, entry], { env: { ...env, LECTERN_DATA_DIR: dir, PORT: String(at), LECTERN_SEARCH_THREADS: String(threads) }, stdio: ['ignore', out, 'inherit'] });
  if (typeof out === 'number') closeSync(out);
  // its pid first, so the lines of each server can be told apart
  if (values['server-stdout']) appendFileSync(values['server-stdout'], `== server pid ${server.pid} ${entry} ${nodeArgs.join(' ')}\n`);
  server.once('exit', (code, signal) => {
    if (!stopping.has(server)) console.error(`server (search_threads ${threads}) exited unexpectedly: code ${code}, signal ${signal}`);
  });
  for (let i = 0; ; i++) {
    try {
      if ((await get('/healthz')).status === 200) break;
    } catch {
      if (i > 900) throw new Error('server did not start');
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return server;
}
const stopping = new Set<ChildProcess>();
async function stopServer(server: ChildProcess): Promise<void> {
  stopping.add(server);
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise((r) => server.once('exit', r));
  server.kill('SIGTERM');
  await exited;
}
/** Resident memory of a process (all its threads), MiB. */
const rssMib = (pid: number) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024);
/** The most resident memory the server process has had (VmHWM), MiB. */
const peakRssMib = (pid: number) => Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024);

type Q = { text: string; filter: { types?: string[]; issued_after?: number; issued_before?: number } | null };
const workload = JSON.parse(readFileSync(values.workload, 'utf8')) as Record<string, Q[]>;
const bodyOf = (q: Q) => ({
  query: q.text,
  limit: 10,
  return_documents: true,
  ...(q.filter ? { filter_types: q.filter.types, filter_issued_after: q.filter.issued_after, filter_issued_before: q.filter.issued_before } : {}),
});
const pct = (xs: number[], p: number) => (xs.length === 0 ? NaN : xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!);
const summary = (lat: number[], elapsedS: number) => {
  const s = [...lat].sort((a, b) => a - b);
  return { requests: s.length, searches_per_second: Math.round(s.length / elapsedS), latency_ms: { p50: +pct(s, 50).toFixed(2), p95: +pct(s, 95).toFixed(2), p99: +pct(s, 99).toFixed(2) } };
};

/** One keep-alive connection of the lean load generator: a request at a time, framed by Content-Length. */
class Conn {
  readonly #sock: Socket;
  #buf: Buffer | null = null;
  #waiting: { resolve: (r: { status: number; body: Buffer }) => void; reject: (e: Error) => void } | null = null;
  closed = false;
  constructor(at: number) {
    this.#sock = connect(at, '127.0.0.1');
    this.#sock.setNoDelay(true);
    this.#sock.on('data', (c: Buffer) => this.#data(c));
    const fail = (e: Error) => {
      this.closed = true;
      const w = this.#waiting;
      this.#waiting = null;
      w?.reject(e);
    };
    this.#sock.on('error', fail);
    this.#sock.on('close', () => fail(new Error('connection closed')));
  }
  send(bytes: Buffer): Promise<{ status: number; body: Buffer }> {
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
      this.#sock.write(bytes);
    });
  }
  #data(c: Buffer): void {
    const buf = this.#buf === null ? c : Buffer.concat([this.#buf, c]);
    const head = buf.indexOf('\r\n\r\n');
    if (head < 0) return void (this.#buf = buf);
    const headers = buf.toString('latin1', 0, head);
    const m = /\r\ncontent-length: *(\d+)/i.exec(headers);
    if (!m) throw new Error(`response without content-length: ${headers}`);
    const end = head + 4 + Number(m[1]);
    if (buf.length < end) return void (this.#buf = buf);
    this.#buf = buf.length > end ? buf.subarray(end) : null;
    const w = this.#waiting;
    this.#waiting = null;
    if (/\r\nconnection: *close/i.test(headers)) this.#sock.end();
    w?.resolve({ status: Number(headers.slice(9, 12)), body: buf.subarray(head + 4, end) });
  }
  close(): void {
    this.#sock.destroy();
  }
}
const requestBytes = (q: Q) => {
  const data = JSON.stringify(bodyOf(q));
  return Buffer.from(`POST /v2/search/ HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\nx-api-key: ${key}\r\ncontent-length: ${Buffer.byteLength(data)}\r\n\r\n${data}`);
};
const EMPTY_HITS = Buffer.from('"hits":[]');
const HITS = Buffer.from('"hits":[');

type CpuReading = Map<number, { name: string; s: number; sys: number; nice: number }>;
/** CPU seconds of each thread of a process (utime + stime, /proc/PID/task/TID/stat), and its nice value, by thread id. */
function threadCpu(pid: number): CpuReading {
  const out: CpuReading = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), s: (Number(f[11]) + Number(f[12])) / 100, sys: Number(f[12]) / 100, nice: Number(f[16]) });
    } catch {
      // the thread ended
    }
  }
  return out;
}
/**
 * CPU of a window between two readings: seconds and share of the window's wall time, for the main
 * thread, the background threads (nice > 0: builder and merge threads) and all threads.
 */
function windowCpu(pid: number, before: CpuReading, after: CpuReading, wallS: number) {
  let main = 0;
  let background = 0;
  let all = 0;
  for (const [tid, a] of after) {
    const d = a.s - (before.get(tid)?.s ?? 0);
    all += d;
    if (tid === pid) main += d;
    else if (a.nice > 0) background += d;
  }
  const share = (x: number) => +(x / Math.max(1e-9, wallS)).toFixed(3);
  return { main_thread_s: +main.toFixed(2), main_thread_busy: share(main), background_threads_s: +background.toFixed(2), background_busy: share(background), all_threads_s: +all.toFixed(2), cores_busy: share(all) };
}
/** CPU microseconds per search of the server's threads between two readings, and of this process. */
function cpuPerSearch(pid: number, before: CpuReading, after: CpuReading, client: NodeJS.CpuUsage, searches: number, elapsedS: number) {
  const d = [...after].map(([tid, a]) => ({ tid, name: a.name, s: a.s - (before.get(tid)?.s ?? 0), sys: a.sys - (before.get(tid)?.sys ?? 0) }));
  const main = d.find((x) => x.tid === pid)?.s ?? 0;
  const others = d.filter((x) => x.tid !== pid).sort((a, b) => b.s - a.s);
  const total = d.reduce((n, x) => n + x.s, 0);
  const per = (s: number) => Math.round((s * 1e6) / Math.max(1, searches));
  return {
    server_main_thread_us: per(main),
    server_busiest_other_thread_us: per(others[0]?.s ?? 0),
    busiest_other_thread: others[0]?.name ?? null,
    server_all_threads_us: per(total),
    // the rest by thread name (V8's GC/compiler helpers, libuv's pool, the segment builder...)
    other_threads_us: Object.fromEntries(
      [...others.slice(1).reduce((m, x) => m.set(x.name, (m.get(x.name) ?? 0) + x.s), new Map<string, number>())].filter(([, v]) => v > 0).map(([k, v]) => [k, per(v)]),
    ),
    // kernel time of the main thread (socket reads and writes: on loopback the kernel also delivers to the client)
    server_main_thread_system_share: +((d.find((x) => x.tid === pid)?.sys ?? 0) / Math.max(1e-9, main)).toFixed(2),
    client_us: per((client.user + client.system) / 1e6),
    server_cores_busy: +(total / elapsedS).toFixed(2),
    server_main_thread_busy: +(main / elapsedS).toFixed(2),
  };
}

/** `clients` loops over `queries` until `until()` is false; every sample is (end time, latency ms). */
async function drive(queries: Q[], clients: number, until: () => boolean): Promise<{ samples: [number, number][]; failures: number; empty: number; resets: number }> {
  const samples: [number, number][] = [];
  let resets = 0;
  let failures = 0;
  let empty = 0;
  const bytes = queries.map(requestBytes);
  const at = port;
  let checked = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      let conn = new Conn(at);
      for (let i = c; until(); i += clients) {
        const s = performance.now();
        let r: { status: number; body: Buffer };
        try {
          if (conn.closed) conn = new Conn(at);
          r = await conn.send(bytes[i % queries.length]!);
        } catch (err) {
          // a reset connection is a failure of this request (reported), not of the benchmark
          failures++;
          resets++;
          console.error('request failed:', (err as Error).message);
          await new Promise((res) => setTimeout(res, 100));
          continue;
        }
        const e = performance.now();
        samples.push([e, e - s]);
        if (r.status !== 200) {
          failures++;
          if (failures < 4) console.error('non-200:', r.status, r.body.toString('utf8').slice(0, 300));
        } else if (r.body.indexOf(EMPTY_HITS) >= 0) empty++;
        else if (r.body.indexOf(HITS) < 0) failures++;
        else if (checked++ % 50 === 0) {
          const json = JSON.parse(r.body.toString('utf8')) as { hits?: { id?: unknown; document?: unknown; snippets?: unknown[] }[]; total_hits?: unknown };
          const h = json.hits?.[0];
          if (typeof json.total_hits !== 'number' || !h || typeof h.id !== 'string' || !h.document || !Array.isArray(h.snippets)) failures++;
        }
      }
      conn.close();
    }),
  );
  return { samples, failures, empty, resets };
}

async function measure(cls: string, clients: number, pid: number): Promise<Record<string, unknown>> {
  const queries = workload[cls]!;
  for (const q of queries.slice(0, 50)) await post(bodyOf(q)); // warm-up
  const end = Date.now() + seconds * 1000;
  const cpu0 = threadCpu(pid);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await drive(queries, clients, () => Date.now() < end);
  const elapsed = (performance.now() - t0) / 1000;
  const client = process.cpuUsage(c0);
  const cpu = cpuPerSearch(pid, cpu0, threadCpu(pid), client, r.samples.length, elapsed);
  if (r.failures > 0) throw new Error(`${cls}: ${r.failures} non-200 or malformed responses`);
  return { clients, ...summary(r.samples.map((x) => x[1]), elapsed), empty_results: r.empty, cpu_per_search: cpu };
}

// 2. Throughput and latency for each thread count and client count. One server per thread count runs
// at once, each over its own copy of the data directory (the index has one writer), and measurements
// alternate between them, so a change in the machine's load (other users) hits every thread count alike.
type Served = { build: string; threads: number; port: number; dir: string; proc: ChildProcess; rssIdle: number; results: Record<string, unknown[]> };
const served: Served[] = [];
for (const [i, [build, entry, flags, threads]] of (values['skip-grid'] ? [] : builds.flatMap(([b, e, f]) => threadCounts.map((t) => [b, e, f, t] as const))).entries()) {
  const dir = `${dataDir}-${build}-t${threads}`;
  rmSync(dir, { recursive: true, force: true });
  cpSync(dataDir, dir, { recursive: true });
  const at = basePort + 1 + i;
  const proc = await startServer(threads, flags, dir, at, entry);
  for (const q of workload.or!.slice(0, 100)) await post(bodyOf(q));
  served.push({ build, threads, port: at, dir, proc, rssIdle: rssMib(proc.pid!), results: {} });
}
// --warmup-seconds S: each server first serves every class for S seconds (4 clients), unmeasured: the JIT's
// compilations (on V8's helper threads, counted in the server's CPU) are over before the first point
const warmupS = Number(values['warmup-seconds']);
if (warmupS > 0) {
  for (const s of served) {
    port = s.port;
    for (const cls of classes) {
      const end = Date.now() + (warmupS * 1000) / classes.length;
      await drive(workload[cls]!, 4, () => Date.now() < end);
    }
  }
}
// Xapian with as many processes as clients (--peer-procs): its database must hold the corpus first
const xdir = `${dataDir}-xapian`;
const xdocs = () => Number(spawnSync('/usr/bin/python3', ['-c', `import xapian,sys\ntry:\n print(xapian.Database(sys.argv[1]).get_doccount())\nexcept Exception:\n print(0)`, xdir], { encoding: 'utf8' }).stdout.trim() || 0);
const peerProcs: Record<string, unknown[]> = {};
if (values['peer-procs'] && xdocs() < indexAtStart.documents) throw new Error(`--peer-procs: ${xdir} holds ${xdocs()} documents, not ${indexAtStart.documents} (build it first: bench/engine/xapian_peer.py)`);
for (let round = 0; round < Number(values.rounds); round++)
for (const cls of classes) {
  for (const c of clientCounts) {
    // odd rounds measure the servers in reverse order: a point measured after another is not favoured
    for (const s of round % 2 === 0 ? served : [...served].reverse()) {
      port = s.port;
      const r = await measure(cls, c, s.proc.pid!);
      (s.results[cls] ??= []).push({ ...r, round, load_average_1m: load1(), rss_mib_after_point: rssMib(s.proc.pid!) });
      console.error(`${s.build} threads ${s.threads}`, cls, JSON.stringify(r), 'load', load1());
    }
    if (values['peer-procs']) {
      const x = spawnSync('/usr/bin/python3', [join(process.cwd(), 'bench', 'http', 'xapian_procs.py'), xdir, values.workload, cls, String(c), String(seconds)], { encoding: 'utf8', maxBuffer: 1 << 26 });
      if (x.status !== 0) throw new Error(`xapian_procs failed: ${x.stderr.slice(-500)}`);
      const r = { ...(JSON.parse(x.stdout) as Record<string, unknown>), load_average_1m: load1() };
      (peerProcs[cls] ??= []).push(r);
      console.error('xapian procs', cls, JSON.stringify(r));
    }
  }
}
const runs: Record<string, unknown>[] = [];
for (const s of served) {
  runs.push({ build: s.build, search_threads: s.threads, rss_mib: { after_warmup: s.rssIdle, after_load: rssMib(s.proc.pid!), peak: peakRssMib(s.proc.pid!) }, results: s.results });
  await stopServer(s.proc);
  rmSync(s.dir, { recursive: true, force: true });
}

// 3. Latency right after an ingest (the largest thread count, the most clients), for every build,
// alternating (--after-repeats rounds of one phase per build), each over its own copy of the data
// directory with its own server and its own CLI doing the ingest. CPU by thread for each window: the
// main thread (the index's writer, which answers HTTP), the background threads (those running at a
// lowered priority: nice > 0, the builder and merge threads of ADR 0180) and all threads.
const afterIngest: Record<string, unknown>[] = [];
const reingest = Number(values['after-ingest']);
if (reingest > 0) {
  const threads = Math.max(...threadCounts);
  const clients = Math.max(...clientCounts);
  // one word of letters only (the analyzer splits letters from digits), new in every run
  const stamp = `rev${[...String(Date.now())].map((c) => 'abcdefghij'[Number(c)]).join('')}`;
  const file = `${dataDir}-reingest.jsonl`;
  await new Promise<void>((resolve, reject) => {
    const out = createWriteStream(file);
    let n = 0;
    const rl = createInterface({ input: createReadStream(corpus) });
    rl.on('line', (line) => {
      if (n >= reingest || !line.trim()) return;
      const d = JSON.parse(line) as { title: string };
      d.title = `${d.title} ${stamp}`;
      out.write(JSON.stringify(d) + '\n');
      if (++n === reingest) rl.close();
    });
    rl.on('close', () => out.end(resolve));
    rl.on('error', reject);
  });
  const rounds = Number(values['after-repeats']);
  for (let round = 0; round < rounds; round++) {
    for (const [build, entry, flags] of builds) {
      const dir = `${dataDir}-after-${build}`;
      rmSync(dir, { recursive: true, force: true });
      cpSync(dataDir, dir, { recursive: true });
      const server = await startServer(threads, flags, dir, basePort, entry);
      const pid = server.pid!;
      const queries = workload.or!;
      for (const q of queries.slice(0, 100)) await post(bodyOf(q));
      let stop = false;
      const t0 = performance.now();
      const cpu0 = threadCpu(pid);
      const driving = drive(queries, clients, () => !stop);
      await new Promise((r) => setTimeout(r, seconds * 1000));
      const tIngest = performance.now();
      const cpuIngest = threadCpu(pid);
      const cli = spawn(process.execPath, [entry, 'ingest', '--format', 'lectern', file], { env: { ...env, LECTERN_DATA_DIR: dir }, stdio: ['ignore', 'ignore', 'ignore'] });
      const cliDone = new Promise<number>((r) => cli.once('exit', () => r(performance.now())));
      // searchable: every rewritten title is found by its new word (polled outside the measured load)
      let tSearchable = 0;
      for (;;) {
        await new Promise((r) => setTimeout(r, 250));
        if (server.exitCode !== null || server.signalCode !== null) throw new Error('the server exited during the ingest');
        const r = await post({ query: stamp, limit: 1, return_documents: false }).catch(() => null);
        if (r && (r.json.total_hits ?? 0) >= reingest) {
          tSearchable = performance.now();
          break;
        }
        if (performance.now() - tIngest > 30 * 60_000) throw new Error('the ingest did not become searchable in 30 minutes');
      }
      const cpuSearchable = threadCpu(pid);
      const tStoreDone = await cliDone;
      const afterS = Number(values['after-seconds']);
      await new Promise((r) => setTimeout(r, afterS * 1000));
      stop = true;
      const r = await driving;
      const tEnd = performance.now();
      const cpuEnd = threadCpu(pid);
      if (r.failures > r.resets) throw new Error(`after ingest: ${r.failures - r.resets} non-200 responses`);
      const win = (a: number, b: number, ca: CpuReading, cb: CpuReading) => ({
        ...summary(r.samples.filter(([t]) => t >= a && t < b).map((x) => x[1]), (b - a) / 1000),
        cpu: windowCpu(pid, ca, cb, (b - a) / 1000),
      });
      const phase: Record<string, unknown> = {
        build,
        round,
        search_threads: threads,
        clients,
        class: 'or',
        documents_rewritten: reingest,
        store_ingest_seconds: +((tStoreDone - tIngest) / 1000).toFixed(1),
        searchable_after_seconds: +((tSearchable - tIngest) / 1000).toFixed(1),
        steady: win(t0, tIngest, cpu0, cpuIngest),
        while_catching_up: win(tIngest, tSearchable, cpuIngest, cpuSearchable),
        right_after: { seconds: afterS, ...win(tSearchable, tEnd, cpuSearchable, cpuEnd) },
        rss_mib: server.exitCode === null ? rssMib(pid) : null,
        failed_requests: r.failures,
        load_average_1m: load1(),
      };
      const steadyP99 = (phase.steady as { latency_ms: { p99: number } }).latency_ms.p99;
      phase.p99_after_over_steady = +((phase.right_after as { latency_ms: { p99: number } }).latency_ms.p99 / steadyP99).toFixed(2);
      phase.p99_catching_up_over_steady = +((phase.while_catching_up as { latency_ms: { p99: number } }).latency_ms.p99 / steadyP99).toFixed(2);
      console.error('after ingest', JSON.stringify(phase));
      afterIngest.push(phase);
      await stopServer(server);
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

// 4. A CPU profile of the server under load (every thread), when asked.
// One server (and one directory of profiles) per build and client count: DIR/<build>-c<clients>.
const profile: unknown[] = [];
if (values['cpu-prof']) {
  const threads = Math.max(...threadCounts);
  const profClients = values['prof-clients'] ? list(values['prof-clients']).map(Number) : [Math.max(...clientCounts)];
  for (const [build, entry, flags] of builds) {
    for (const c of profClients) for (const cls of list(values['prof-classes'])) {
      const dir = join(values['cpu-prof'], `${build}-${cls === 'or' ? '' : `${cls}-`}c${c}`);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const server = await startServer(threads, [...flags, '--cpu-prof', `--cpu-prof-dir=${dir}`], dataDir, basePort, entry);
      for (const q of workload.or!.slice(0, 100)) await post(bodyOf(q));
      // --warmup-seconds: the profiled server warms up as the grid's do (its display cache filled, the JIT done)
      const warmS = Number(values['warmup-seconds']);
      if (warmS > 0) for (const k of classes) { const end = Date.now() + (warmS * 1000) / classes.length; await drive(workload[k]!, 4, () => Date.now() < end); }
      const r = await measure(cls, c, server.pid!);
      await stopServer(server);
      profile.push({ dir, build, class: cls, search_threads: threads, run: r });
      console.error('profile', build, cls, c, JSON.stringify(r));
    }
  }
}

// 5. The peer: Xapian in process, one thread, same corpus and workload, in this run.
let peer: Record<string, unknown> | null = null;
if (!values['no-peer']) {
  // a database built earlier (or still being built by another process) is reused once it holds the
  // whole corpus; waits up to 40 minutes for a build in progress, else builds it here
  const want = indexAtStart.documents;
  for (const until = Date.now() + 40 * 60_000; existsSync(xdir) && xdocs() < want && Date.now() < until; ) await new Promise((r) => setTimeout(r, 15_000));
  const reuse = existsSync(xdir) && xdocs() >= want;
  const x = spawnSync('/usr/bin/python3', [join(process.cwd(), 'bench', 'engine', 'xapian_peer.py'), corpus, values.workload, xdir, '5', String(want), reuse ? 'reuse' : 'build'], { encoding: 'utf8', maxBuffer: 16 * 2 ** 20 });
  if (x.status !== 0) console.error(`xapian peer not measured: ${(x.stderr || x.error?.message || '').slice(-500)}`);
  else {
    peer = JSON.parse(x.stdout) as Record<string, unknown>;
    const lat = peer.latency as Record<string, { mean_ms: number }>;
    peer.searches_per_second_one_thread = Object.fromEntries(Object.entries(lat).map(([c, v]) => [c, Math.round(1000 / v.mean_ms)]));
  }
}

// Ratios: Lectern's best HTTP throughput (documents + snippets + billing + JSON) over Xapian's bare
// in-process queries on one thread.
const ratios: Record<string, unknown> = {};
if (peer) {
  const xs = peer.searches_per_second_one_thread as Record<string, number>;
  for (const cls of classes) {
    let best = 0;
    for (const run of runs.filter((x) => x.build === builds[builds.length - 1]![0])) for (const r of (run.results as Record<string, { searches_per_second: number }[]>)[cls] ?? []) best = Math.max(best, r.searches_per_second);
    ratios[cls] = { lectern_http_best_per_second: best, xapian_in_process_one_thread_per_second: xs[cls], ratio: +(best / xs[cls]!).toFixed(3) };
  }
}
// Ratios with Xapian given as many processes as Lectern has clients (issue 29), per class and client
// count: throughput (Lectern HTTP with documents and snippets / Xapian's bare queries) and CPU per search
// (Lectern's server, all threads / Xapian's processes); > 1 CPU ratio: Lectern spends more.
const ratiosProcs: Record<string, unknown[]> = {};
for (const [cls, xs] of Object.entries(peerProcs)) {
  const last = runs.filter((x) => x.build === builds[builds.length - 1]![0]);
  // Xapian runs once per round after each client count's point: its k-th point at N processes is paired
  // with the k-th Lectern point at N clients (the same round), not always with the first round's.
  const seen = new Map<number, number>();
  ratiosProcs[cls] = (xs as { processes: number; searches_per_second: number; cpu_ms_per_query: number }[]).map((x) => {
    const k = seen.get(x.processes) ?? 0;
    seen.set(x.processes, k + 1);
    const best = last
      .map((run) => {
        const points = (run.results as Record<string, { clients: number; searches_per_second: number; cpu_per_search: { server_all_threads_us: number } }[]>)[cls]!.filter((r) => r.clients === x.processes);
        return points[Math.min(k, points.length - 1)]!;
      })
      .sort((a, b) => b.searches_per_second - a.searches_per_second)[0]!;
    return {
      clients: x.processes,
      lectern_searches_per_second: best.searches_per_second,
      xapian_searches_per_second: x.searches_per_second,
      throughput_ratio: +(best.searches_per_second / x.searches_per_second).toFixed(3),
      lectern_server_cpu_us_per_search: best.cpu_per_search.server_all_threads_us,
      xapian_cpu_us_per_query: Math.round(x.cpu_ms_per_query * 1000),
      cpu_ratio_lectern_over_xapian: +(best.cpu_per_search.server_all_threads_us / (x.cpu_ms_per_query * 1000)).toFixed(2),
    };
  });
}
const out = {
  benchmark: 'search-http',
  corpus,
  top_k: 10,
  with_documents_and_snippets: true,
  seconds_per_measurement: seconds,
  ingest,
  index: indexAtStart,
  machine: started,
  load_average_1m_at_end: load1(),
  runs,
  after_ingest: afterIngest,
  builds: Object.fromEntries(builds.map(([l, p, f]) => [l, { main: p, node_flags: f }])),
  cpu_profile: profile,
  peer,
  lectern_http_over_xapian: ratios,
  peer_procs: values['peer-procs'] ? peerProcs : null,
  lectern_http_over_xapian_procs: values['peer-procs'] ? ratiosProcs : null,
};
if (values.out) writeFileSync(values.out, JSON.stringify(out, null, 2) + '\n');
console.log(JSON.stringify(out, null, 2));
agent.destroy();
