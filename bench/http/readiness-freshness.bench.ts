// Start-up and freshness of a served 100k index (issue 29, ADRs 0243-0244), two phases:
//
//   node dist/bench/http/readiness-freshness.bench.js --phase startup --dir /tmp/data-100k [--runs 3] [--pending 1000] \
//        [--out bench/results/startup-ready-100k.json]
//   node dist/bench/http/readiness-freshness.bench.js --phase freshness --dir /tmp/data-100k [--rounds 3] [--clients 16] \
//        [--docs 200] [--out bench/results/freshness-under-load.json]
//
// The data directory holds a 100k-document store and its indexes, caught up (e.g. `lectern ingest` of
// the synthetic corpus, /work/shared/tools/synth-corpus, seed 7).
// startup: the server (`dist/src/main.js`, LECTERN_LOAD_DEMO_CORPUS=false) is spawned `--runs` times;
// from the spawn, /healthz and /readyz are polled every 10 ms: ms to listening (first /healthz 200) and
// ms to ready (first /readyz 200), and the server's CPU (all threads) at ready. Then the same with
// `--pending` documents stored by the CLI while the indexes' locks were held (as by a running server), so
// the start has them to catch up with after it listens.
// freshness: for each round and each setting of freshnessBoundMs (1000: pacing, the default; 0: off),
// alternated, a server starts, `--clients` keep-alive clients search the workload's `or` queries without
// pause; after a 5 s steady window, `lectern ingest --wait` writes `--docs` new documents with a word
// of their own; the time it waited (store -> searchable by the server, its own report) and whether the
// first search after it finds them all are recorded, with searches/s and latencies in the steady window
// and while waiting. Numbers are from a loaded, shared machine: the JSON records the load.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { machine } from '../lib/machine.js';
import { pct } from '../lib/cli.js';

const { values } = parseArgs({
  options: {
    phase: { type: 'string', default: 'startup' },
    dir: { type: 'string' },
    runs: { type: 'string', default: '3' },
    pending: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
    clients: { type: 'string', default: '16' },
    docs: { type: 'string', default: '200' },
    port: { type: 'string', default: String(20000 + Math.floor(Math.random() * 20000)) },
    out: { type: 'string' },
    /** startup: several builds (label=path of dist/src/main.js), alternated run by run (caught-up starts). */
    builds: { type: 'string' },
    workload: { type: 'string', default: join(process.cwd(), '..', '..', 'shared', 'tools', 'synth-corpus', 'workload.json') },
  },
});
if (!values.dir) throw new Error('--dir is required');
const dataDir = values.dir;
const main = join(process.cwd(), 'dist', 'src', 'main.js');
const port = Number(values.port);
const { DATABASE_URL: _d, REDIS_URL: _r, ...baseEnv } = process.env;
const env: NodeJS.ProcessEnv = {
  ...baseEnv,
  LECTERN_DATA_DIR: dataDir,
  LECTERN_LOAD_DEMO_CORPUS: 'false',
  LECTERN_LOG_LEVEL: 'warn',
  LECTERN_HOST: '127.0.0.1',
  PORT: String(port),
  LECTERN_RATE_LIMITS_SEARCH_CAPACITY: '1000000',
  LECTERN_RATE_LIMITS_SEARCH_REFILL_PER_SECOND: '1000000',
  LECTERN_LIMITS_SEARCH_CONCURRENCY: '10000',
};
const loads: number[][] = [];
const noteLoad = () => loads.push(loadavg().map((x) => Math.round(x * 100) / 100));
const agent = new Agent({ keepAlive: true, maxSockets: 1024 });

function get(path: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}
function post(key: string, body: unknown): Promise<{ status: number; total: number }> {
  return new Promise((resolve) => {
    const data = JSON.stringify(body);
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/v2/search/', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), 'x-api-key': key } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        resolve({ status, total: status === 200 ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { total_hits: number }).total_hits : -1 });
      });
    });
    req.on('error', () => resolve({ status: 0, total: -1 }));
    req.end(data);
  });
}
/** CPU seconds of a process, all threads (utime + stime). */
function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function stop(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise((r) => server.once('exit', r));
  server.kill('SIGTERM');
  await exited;
}
function cli(args: string[], extraEnv: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [main, ...args], { env: { ...env, ...extraEnv }, encoding: 'utf8', maxBuffer: 1 << 26 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Spawns the server; resolves when /readyz answers 200 with the times from the spawn. */
async function startTimed(extraEnv: NodeJS.ProcessEnv = {}, entry = main): Promise<{ server: ChildProcess; listeningMs: number; readyMs: number; cpuAtReadyS: number }> {
  const t0 = performance.now();
  const server = spawn(process.execPath, [entry], { env: { ...env, ...extraEnv }, stdio: ['ignore', 'ignore', 'inherit'] });
  let listeningMs = -1;
  for (let i = 0; i < 30_000; i++) {
    if (listeningMs < 0 && (await get('/healthz')) === 200) listeningMs = performance.now() - t0;
    if (listeningMs >= 0 && (await get('/readyz')) === 200) {
      const readyMs = performance.now() - t0;
      return { server, listeningMs: Math.round(listeningMs), readyMs: Math.round(readyMs), cpuAtReadyS: cpuSeconds(server.pid!) };
    }
    if (server.exitCode !== null) throw new Error(`server exited: ${server.exitCode}`);
    await sleep(10);
  }
  throw new Error('server not ready within 300 s');
}

const result: Record<string, unknown> = { benchmark: `readiness-freshness/${values.phase}`, machine: machine(), note: 'measured on a shared 2-core machine loaded by other engineers\' builds and tests; see load', data_dir_documents: null };
noteLoad();

if (values.phase === 'startup') {
  const runs: Record<string, unknown>[] = [];
  const builds: [string, string][] = values.builds ? values.builds.split(',').map((b) => [b.slice(0, b.indexOf('=')), b.slice(b.indexOf('=') + 1)]) : [['current', main]];
  for (let i = 0; i < Number(values.runs); i++) {
    for (const [label, entry] of builds) {
      const r = await startTimed({}, entry);
      runs.push({ kind: 'caught_up', build: label, listening_ms: r.listeningMs, ready_ms: r.readyMs, cpu_at_ready_s: r.cpuAtReadyS, load_1m: loadavg()[0] });
      await stop(r.server);
      noteLoad();
    }
  }
  result.builds = Object.fromEntries(builds);
  // changes written while the server was down: it listens first and is ready when caught up
  const pending = Number(values.pending);
  if (pending > 0) {
    for (let i = 0; i < Number(values.runs); i++) {
      const file = join(tmpdir(), `pending-${process.pid}-${i}.jsonl`);
      writeFileSync(file, Array.from({ length: pending }, (_, j) => JSON.stringify({ id: `pending-${i}-${j}`, title: `Pending start-up record ${j} of run ${i}`, abstract: 'Written while the server was down.' })).join('\n'));
      // the indexes' writer locks held by this (live) process, as a running server would: the CLI only
      // stores the documents, and the next start has them to catch up with
      const locks = ['documents', 'social'].map((n) => join(dataDir, 'index', n, 'LOCK'));
      for (const l of locks) writeFileSync(l, String(process.pid));
      const ing = cli(['ingest', '--format', 'lectern', file]);
      for (const l of locks) rmSync(l, { force: true });
      if (ing.status !== 0) throw new Error(`ingest failed: ${ing.stderr}`);
      const r = await startTimed();
      runs.push({ kind: 'pending_changes', changes_to_catch_up: pending, listening_ms: r.listeningMs, ready_ms: r.readyMs, cpu_at_ready_s: r.cpuAtReadyS, load_1m: loadavg()[0] });
      await stop(r.server);
      noteLoad();
    }
  }
  const ready = (k: string) => runs.filter((r) => r.kind === k && (r.build ?? 'current') === builds[builds.length - 1]![0]).map((r) => r.ready_ms as number).sort((a, b) => a - b);
  result.runs = runs;
  const med = (xs: number[]) => pct([...xs].sort((a, b) => a - b), 50);
  result.by_build = Object.fromEntries(
    builds.map(([label]) => {
      const rs = runs.filter((r) => r.kind === 'caught_up' && r.build === label);
      return [label, { ready_ms_median: med(rs.map((r) => r.ready_ms as number)), listening_ms_median: med(rs.map((r) => r.listening_ms as number)), cpu_at_ready_s_median: med(rs.map((r) => r.cpu_at_ready_s as number)) }];
    }),
  );
  result.summary = { caught_up_ready_ms_median: pct(ready('caught_up'), 50), pending_changes_ready_ms_median: pct(ready('pending_changes'), 50), pending_changes_listening_ms_median: pct(runs.filter((r) => r.kind === 'pending_changes').map((r) => r.listening_ms as number).sort((a, b) => a - b), 50) };
} else {
  const workload = JSON.parse(readFileSync(values.workload!, 'utf8')) as Record<string, { text: string }[]>;
  const queries = workload.or!.map((q) => q.text);
  const acct = cli(['accounts', 'create', '--email', `fresh${Date.now()}@example.org`, '--credits', '1000000000']);
  const key = (JSON.parse(acct.stdout) as { api_key: string }).api_key;
  const rounds: Record<string, unknown>[] = [];
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const bound of ['1000', '0']) {
      const { server } = await startTimed({ LECTERN_FRESHNESS_BOUND_MS: bound });
      let stopLoad = false;
      const lat: { t: number; ms: number }[] = [];
      let failures = 0;
      const clients = Array.from({ length: Number(values.clients) }, async (_, c) => {
        for (let i = c; !stopLoad; i++) {
          const t = performance.now();
          const r = await post(key, { query: queries[i % queries.length], limit: 10 });
          if (r.status !== 200) failures++;
          lat.push({ t, ms: performance.now() - t });
        }
      });
      await sleep(3000); // warm-up
      const steadyFrom = performance.now();
      await sleep(5000);
      const ingestFrom = performance.now();
      const word = `frsh${round}q${bound}z${Math.random().toString(36).slice(2, 8)}`;
      const file = join(tmpdir(), `fresh-${process.pid}-${round}-${bound}.jsonl`);
      const docs = Number(values.docs);
      writeFileSync(file, Array.from({ length: docs }, (_, j) => JSON.stringify({ id: `${word}-${j}`, title: `${word} fresh record ${j}`, abstract: 'Ingested under a saturating search load.' })).join('\n'));
      const ingestT0 = performance.now();
      const child = spawn(process.execPath, [main, 'ingest', '--format', 'lectern', '--wait', '--wait-timeout', '120', file], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      child.stdout.resume();
      const code = await new Promise<number | null>((r) => child.once('exit', r));
      const ingestMs = performance.now() - ingestT0;
      const ingestTo = performance.now();
      const check = await post(key, { query: word, limit: 1 });
      stopLoad = true;
      await Promise.all(clients);
      const waited = /searchable: the running server indexed through change \d+ \(([\d.]+) s after the ingest\)/.exec(stderr);
      const window = (from: number, to: number) => {
        const xs = lat.filter((l) => l.t >= from && l.t < to).map((l) => l.ms).sort((a, b) => a - b);
        return { searches: xs.length, per_second: Math.round(xs.length / ((to - from) / 1000)), p50_ms: xs.length ? Math.round(pct(xs, 50) * 10) / 10 : null, p99_ms: xs.length ? Math.round(pct(xs, 99) * 10) / 10 : null };
      };
      const metrics = await new Promise<string>((resolve) => {
        request({ host: '127.0.0.1', port, path: '/metrics', agent }, (res) => {
          let b = '';
          res.on('data', (c: Buffer) => (b += c.toString('utf8')));
          res.on('end', () => resolve(b));
        }).end();
      });
      const rests = Number(/^lectern_search_threads_pacing_rests (\d+)/m.exec(metrics)?.[1] ?? NaN);
      rounds.push({
        round,
        freshness_bound_ms: Number(bound),
        ingest_exit: code,
        cli_total_s: Math.round(ingestMs) / 1000,
        store_to_searchable_s: waited ? Number(waited[1]) : null,
        timed_out: code !== 0,
        first_search_after_found: check.total,
        documents: docs,
        steady: window(steadyFrom, ingestFrom),
        during_ingest_and_wait: window(ingestFrom, ingestTo),
        pacing_rests: rests,
        failures,
        load_1m: loadavg()[0],
      });
      console.error(JSON.stringify(rounds[rounds.length - 1]));
      await stop(server);
      noteLoad();
    }
  }
  result.rounds = rounds;
  const s = (b: number) => rounds.filter((r) => r.freshness_bound_ms === b).map((r) => (r.store_to_searchable_s as number | null) ?? Infinity).sort((a, b2) => a - b2);
  result.summary = { store_to_searchable_s_median_paced: pct(s(1000), 50), store_to_searchable_s_median_unpaced: pct(s(0), 50), clients: Number(values.clients) };
}
result.load_averages_during = loads;
const json = JSON.stringify(result, null, 2);
if (values.out) writeFileSync(values.out, `${json}\n`);
console.log(json);
process.exit(0);
