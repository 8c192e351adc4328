// Fairness by cost (issue 25, ADRs 0212, 0270, 0305): another account's search latency while one account
// floods expensive queries within its own concurrency limit. The server runs in a process of its own
// (bench/search/fairness-server.ts: a real HTTP server on loopback, the synthetic corpus of common words,
// generated there, deterministic, the configured search threads); this process is only the client.
//
//   node dist/bench/search/fairness-cost.bench.js [--docs 10000] [--seconds 8] [--threads 1]
//        [--flood-connections 4,16] [--build dist/src/app.js] [--label this]
//        [--ab-build tmp/before-dist/src/app.js --ab-label before] [--rounds 2]
//        [--cpu-prof DIR] [--out bench/results/fairness-cost.json]
//
// Per server (one per build and round; with --ab-build the builds alternate, B first in even rounds):
// the victim alone (sequential cheap 2-term searches, limit 10) and /healthz alone, then for each
// --flood-connections value the same while the flooder runs that many keep-alive loops of 23-term
// common-word queries at limit 400 (beyond its `searchConcurrency`, 4, its searches are refused 429
// search_concurrency, counted, and the loop asks again after Retry-After: within its limits). The
// server reports its main thread's event-loop delay and utilisation and its process CPU time over the
// victim's window during the flood, and over a window of the flood alone before it (seconds / 2: the
// main thread's CPU time per flood response). --cpu-prof DIR runs the server with node --cpu-prof (profile written
// into DIR when it closes). Every response must be 200 (or the flooder's 429).
import { fork } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { machine } from '../lib/machine.js';
import { COMMON, RARE } from './fairness-words.js';

const { values } = parseArgs({
  options: {
    docs: { type: 'string', default: '10000' },
    seconds: { type: 'string', default: '8' },
    threads: { type: 'string', default: '1' },
    build: { type: 'string', default: 'dist/src/app.js' },
    label: { type: 'string', default: 'this branch' },
    'ab-build': { type: 'string' },
    'ab-label': { type: 'string', default: 'other build' },
    rounds: { type: 'string', default: '1' },
    'flood-connections': { type: 'string', default: '4' },
    'cpu-prof': { type: 'string' },
    out: { type: 'string' },
  },
});

interface Ready { kind: 'ready'; port: number; flooderKey: string; victimKey: string; searchThreads: number; searchConcurrency: number }
type Window = Record<string, unknown>;

const here = dirname(fileURLToPath(import.meta.url));
const round1 = (v: number) => Math.round(v * 10) / 10;
const load1 = () => Math.round(loadavg()[0]! * 100) / 100;
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : round1(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!);
};

async function server(build: string) {
  const execArgv = values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', resolve(values['cpu-prof'])] : [];
  if (values['cpu-prof']) mkdirSync(resolve(values['cpu-prof']), { recursive: true });
  const windowsFile = values['cpu-prof'] ? ['--windows-file', join(resolve(values['cpu-prof']), `windows-${Date.now()}.json`)] : [];
  const child = fork(join(here, 'fairness-server.js'), ['--build', build, '--docs', values.docs!, '--threads', values.threads!, ...windowsFile], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = <T>(kind: string) =>
    new Promise<T>((ok, fail) => {
      const onMsg = (m: { kind: string }) => {
        if (m.kind !== kind) return;
        child.off('message', onMsg);
        child.off('exit', onExit);
        ok(m as T);
      };
      const onExit = (code: number | null) => fail(new Error(`the bench server exited (${code}) before '${kind}'`));
      child.on('message', onMsg);
      child.once('exit', onExit);
    });
  const ready = await next<Ready>('ready');
  return {
    ready,
    windowStart: async () => {
      const w = next('window-started');
      child.send({ kind: 'window-start' });
      await w;
    },
    windowEnd: async () => {
      const w = next<Window>('window');
      child.send({ kind: 'window-end' });
      const { kind: _k, ...rest } = await w;
      return rest;
    },
    close: () => new Promise<void>((ok) => {
      child.once('exit', () => ok());
      child.send({ kind: 'close' });
    }),
  };
}

async function measure(build: string, label: string, connectionsList: number[], round: number) {
  const started = machine();
  const s = await server(resolve(build));
  const { port, flooderKey, victimKey } = s.ready;
  const base = `http://127.0.0.1:${port}`;
  let refused = 0;
  let floodBytes = 0;
  const post = async (key: string, body: object, allow429 = false) => {
    const t0 = performance.now();
    const r = await fetch(`${base}/v2/search/`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const buf = await r.arrayBuffer();
    if (r.status === 429 && allow429) {
      refused++;
      // within its limits: the flooder honours Retry-After, as the interface asks of clients
      await new Promise((ok) => setTimeout(ok, 1000 * Number(r.headers.get('retry-after') ?? 1)));
      return -1;
    }
    if (r.status !== 200) throw new Error(`search answered ${r.status}: ${new TextDecoder().decode(buf).slice(0, 300)}`);
    if (key === flooderKey) floodBytes += buf.byteLength;
    return performance.now() - t0;
  };
  const heavy = (i: number) => ({ query: Array.from({ length: 23 }, (_, k) => COMMON[(i * 5 + k * 11) % COMMON.length]).join(' '), limit: 400 });
  const cheap = (i: number) => ({ query: `${RARE[(i * 13) % RARE.length]} ${RARE[(i * 17 + 1) % RARE.length]}`, limit: 10 });
  const seconds = Number(values.seconds);
  const victimLoop = async (until: number) => {
    const ms: number[] = [];
    for (let i = 0; performance.now() < until; i++) ms.push(await post(victimKey, cheap(i)));
    return ms;
  };
  const health = async (until: number) => {
    const ms: number[] = [];
    while (performance.now() < until) {
      const t0 = performance.now();
      const r = await fetch(`${base}/healthz`);
      await r.arrayBuffer();
      ms.push(performance.now() - t0);
    }
    return ms;
  };
  const results = [];
  try {
    // warm-up
    for (let i = 0; i < 20; i++) await post(victimKey, cheap(i));
    for (let i = 0; i < 4; i++) await post(flooderKey, heavy(i));
    const loadAlone = load1();
    await s.windowStart();
    const alone = await victimLoop(performance.now() + seconds * 1000);
    const aloneWindow = await s.windowEnd();
    const healthAlone = await health(performance.now() + 3000);
    for (const connections of connectionsList) {
      let stop = false;
      let floods = 0;
      refused = 0;
      floodBytes = 0;
      const floodLoops = Array.from({ length: connections }, async (_, c) => {
        for (let i = c; !stop; i += connections) {
          if ((await post(flooderKey, heavy(i), true)) >= 0) floods++;
        }
      });
      await new Promise((r) => setTimeout(r, 1000));
      // the flood alone: the server main thread's CPU per flood response (CPU time: not inflated by the machine's load)
      const floodsBeforeAlone = floods;
      await s.windowStart();
      await new Promise((r) => setTimeout(r, (seconds * 1000) / 2));
      const floodAlone = await s.windowEnd();
      const floodAloneSearches = floods - floodsBeforeAlone;
      const load = load1();
      const floodsBefore = floods;
      await s.windowStart();
      const during = await victimLoop(performance.now() + seconds * 1000);
      const window = await s.windowEnd();
      const floodsInWindow = floods - floodsBefore;
      const healthDuring = await health(performance.now() + 3000);
      stop = true;
      await Promise.all(floodLoops);
      const floodResponseKb = floods ? round1(floodBytes / floods / 1024) : null;
      const result = {
        bench: 'fairness-cost',
        build: label,
        round,
        note: 'Client in its own process (the server process has the machine as in production, shared with the client and the other sessions\' load); a shared 2-core machine: absolute numbers move between runs; compare builds alternated within one run.',
        machine: { ...started, load_average_1m_victim_alone: loadAlone, load_average_1m_during_flood: load, load_average_1m_at_end: load1() },
        config: { docs: Number(values.docs), search_threads: s.ready.searchThreads, search_concurrency: s.ready.searchConcurrency, flood_connections: connections, seconds, client: 'separate process' },
        victim_alone_ms: { n: alone.length, p50: pct(alone, 50), p90: pct(alone, 90) },
        victim_during_flood_ms: { n: during.length, p50: pct(during, 50), p90: pct(during, 90) },
        p50_ratio: Math.round((pct(during, 50) / pct(alone, 50)) * 100) / 100,
        server_victim_alone: { ...aloneWindow, main_thread_cpu_ms_per_search: alone.length && aloneWindow.main_thread_cpu_ms !== null ? Math.round(((aloneWindow.main_thread_cpu_ms as number) / alone.length) * 100) / 100 : null },
        server_flood_only: { ...floodAlone, flood_searches: floodAloneSearches, main_thread_cpu_ms_per_flood_search: floodAloneSearches && floodAlone.main_thread_cpu_ms !== null ? round1((floodAlone.main_thread_cpu_ms as number) / floodAloneSearches) : null },
        server_during_flood: { ...window, flood_searches: floodsInWindow, main_thread_cpu_ms_per_flood_search: floodsInWindow && window.main_thread_cpu_ms !== null ? round1((window.main_thread_cpu_ms as number) / floodsInWindow) : null },
        healthz_alone_ms: { p50: pct(healthAlone, 50) },
        healthz_during_flood_ms: { p50: pct(healthDuring, 50) },
        flooder_searches_per_second: round1(floodsInWindow / seconds),
        flooder_refused_429: refused,
        flood_response_kib: floodResponseKb,
      };
      console.log(JSON.stringify(result));
      results.push(result);
    }
  } finally {
    await s.close();
  }
  return results;
}

const connectionsList = values['flood-connections']!.split(',').map(Number);
const builds: [string, string][] = [[values.build!, values.label!]];
if (values['ab-build']) builds.push([values['ab-build'], values['ab-label']!]);
const all = [];
for (let round = 0; round < Number(values.rounds); round++) {
  const order = round % 2 === 0 ? builds : [...builds].reverse();
  for (const [build, label] of order) all.push(...(await measure(build, label, connectionsList, round)));
}
if (values.out) {
  const out = resolve(values.out);
  let prior: unknown[] = [];
  try {
    prior = JSON.parse(readFileSync(out, 'utf8')).runs ?? [];
  } catch {
    prior = [];
  }
  writeFileSync(out, JSON.stringify({ runs: [...prior, ...all] }, null, 2) + '\n');
}
process.exit(0);
